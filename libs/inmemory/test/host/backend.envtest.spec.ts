// In-place update on the simulated host: the reference updater (wired by the provider module) calls the backend,
// which changes the Node in the workload cluster.
import { HOOKS_API_VERSION, decodePatch, type UpdateMachineRequest } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import { eventually, extensionConfigFor } from '@capi/envtest';
import { discoverExtension, ExtensionRegistry, HttpsExtensionTransport, RuntimeClient } from '@capi/runtime-client';
import type { RunningInPlaceUpdater } from '@capi/inplace-updater';
import {
  INMEMORY_API_VERSION,
  INMEMORY_HOST_BACKEND,
  fileDigest,
  hostFilesOf,
  INMEMORY_INPLACE_UPDATER,
  type InMemoryHostBackend,
  WorkloadNodeHostBackend,
} from '@capi/inmemory';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import {
  DEFAULT_BOOTSTRAP_DATA,
  NS,
  createBootstrapDataSecret,
  createCluster,
  createMachine,
  infraRef,
  startProviderEnv,
  type ProviderEnv,
} from '../support/fixtures';
import { appliedSpecOf, isNodeReady, kubeletVersionOf } from '../../src/host/node';
import { HostUpdateError } from '../../src/host/backend';

jest.setTimeout(60_000);

let p: ProviderEnv;
let now = Date.parse('2026-01-01T00:00:00Z');
const transport = new HttpsExtensionTransport();
const registry = new ExtensionRegistry();
const runtime = new RuntimeClient(registry, transport, async () => ({}));

beforeAll(async () => {
  p = await startProviderEnv({
    provisioningDelayMs: 60_000,
    now: () => now,
    inPlaceUpdater: { nodeNotReadyDuringUpdate: true, updateDurationSeconds: 15, random: () => 0 },
  });
  const updater = p.app.get<RunningInPlaceUpdater>(INMEMORY_INPLACE_UPDATER);
  registry.warmUp([await discoverExtension(extensionConfigFor('inmemory-updater', updater), transport)]);
  await createCluster(p.client, 'hc');
});
afterAll(async () => {
  transport.close();
  await p?.stop();
});

const machineObj = (name: string, version: string, providerID?: string) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name, namespace: NS },
  spec: { clusterName: 'hc', version, ...(providerID ? { providerID } : {}) },
});
const infraObj = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: INMEMORY_API_VERSION,
  kind: 'InMemoryMachine',
  metadata: { name: `${name}-infra`, namespace: NS },
  spec,
});

const vmCondition = async (name: string) =>
  (
    (await p.client.get(infraRef(`${name}-infra`))).status as
      { conditions?: { type: string; reason: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'VMProvisioned');

/** Creates a Machine, waits until its VM is booting, lets the (fake) clock pass the boot delay and pokes a reconcile. */
async function bootMachine(
  name: string,
  infraSpec: Record<string, unknown>,
  bootstrapData?: string | false,
): Promise<void> {
  await createMachine(p.client, 'hc', name, {
    dataSecretName: `${name}-data`,
    version: 'v1.31.0',
    infraSpec,
    bootstrapData,
  });
  await eventually(async () => (await vmCondition(name))?.reason === 'Provisioning', `${name} booting`);
  now += 61_000;
  await p.client.patch(infraRef(`${name}-infra`), 'merge', { metadata: { annotations: { poke: String(now) } } });
}

async function provisionedNode(
  name: string,
  infraSpec: Record<string, unknown>,
  bootstrapData?: string,
): Promise<{ providerID: string; node: () => Promise<KubeObject> }> {
  await bootMachine(name, infraSpec, bootstrapData);
  const infra = await eventually(async () => {
    const m = await p.client.get(infraRef(`${name}-infra`));
    return (m.status as { initialization?: { provisioned?: boolean } } | undefined)?.initialization?.provisioned
      ? m
      : undefined;
  }, `${name} provisioned`);
  const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
  const workload = await eventually(() => clients({ namespace: NS, name: 'hc' }), 'workload client');
  return {
    providerID: (infra.spec as { providerID: string }).providerID,
    node: () => workload.get({ apiVersion: 'v1', kind: 'Node', name }),
  };
}

describe('provisioning delay', () => {
  it('the Node appears only once the boot delay has passed', async () => {
    await createMachine(p.client, 'hc', 'slow', { dataSecretName: 'slow-data', version: 'v1.31.0' });
    await eventually(async () => (await vmCondition('slow'))?.reason === 'Provisioning', 'booting');
    const workload = await eventually(
      () => p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER)({ namespace: NS, name: 'hc' }),
      'workload client',
    );
    const nodeRef = { apiVersion: 'v1', kind: 'Node', name: 'slow' };
    expect(await workload.tryGet(nodeRef)).toBeUndefined();
    expect((await p.client.get(infraRef('slow-infra'))).status).toMatchObject({
      initialization: { provisioned: false },
    });
    now += 61_000;
    await p.client.patch(infraRef('slow-infra'), 'merge', { metadata: { annotations: { poke: '1' } } });
    await eventually(async () => (await vmCondition('slow'))?.reason === 'Provisioned', 'provisioned');
    expect(kubeletVersionOf(await workload.get(nodeRef))).toBe('v1.31.0');
  });
});

describe('files on the host', () => {
  it("the VM runs its bootstrap data: the Node shows the files cloud-init's write_files wrote", async () => {
    const data =
      '#cloud-config\nwrite_files:\n- path: /etc/a\n  content: A\n- path: /etc/a\n  content: B\n  append: true\n';
    const { node } = await provisionedNode('boot-files', {}, data);
    expect(hostFilesOf(await node())).toEqual({ '/etc/a': fileDigest('AB') });
  });

  it('bootstrap data that cannot be run: VMProvisioned False (BootstrapFailed), no Node; once fixed, the VM boots', async () => {
    await bootMachine('no-data', {}, false);
    const failed = await eventually(async () => {
      const c = await vmCondition('no-data');
      return c?.reason === 'BootstrapFailed' ? c : undefined;
    }, 'no-data BootstrapFailed');
    expect(failed).toMatchObject({ status: 'False', message: `bootstrap data Secret ${NS}/no-data-data not found` });
    const workload = await p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER)({
      namespace: NS,
      name: 'hc',
    });
    expect(await workload.tryGet({ apiVersion: 'v1', kind: 'Node', name: 'no-data' })).toBeUndefined();
    // The Secret is not watched: the controller polls (10 s); a poke brings the reconcile sooner.
    await createBootstrapDataSecret(p.client, 'no-data-data', DEFAULT_BOOTSTRAP_DATA);
    await p.client.patch(infraRef('no-data-infra'), 'merge', { metadata: { annotations: { poke: 'fixed' } } });
    await eventually(async () => (await vmCondition('no-data'))?.reason === 'Provisioned', 'no-data provisioned');
    const node = await workload.get({ apiVersion: 'v1', kind: 'Node', name: 'no-data' });
    expect(hostFilesOf(node)).toEqual({ '/etc/boot': fileDigest('booted') });
  });

  it("UpdateMachine writes the desired KubeadmConfig's files (contentFrom read from its Secret) on the host", async () => {
    const { providerID, node } = await provisionedNode('files', {});
    await p.client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'files-secret', namespace: NS },
      data: { token: Buffer.from('s3cret').toString('base64') },
    });
    const bootstrapConfig = (files: unknown[]) => ({
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfig',
      metadata: { name: 'files', namespace: NS },
      spec: { joinConfiguration: {}, files },
    });
    const req = (files: unknown[]): UpdateMachineRequest => ({
      apiVersion: HOOKS_API_VERSION,
      kind: 'UpdateMachineRequest',
      desired: {
        machine: machineObj('files', 'v1.31.0', providerID),
        infrastructureMachine: infraObj('files', { providerID }),
        bootstrapConfig: bootstrapConfig(files),
      },
    });
    const forObject = { metadata: { namespace: NS } };
    const update = async (files: unknown[]) => {
      await runtime.callAllExtensions('UpdateMachine', forObject, req(files));
      now += 16_000;
      return runtime.callAllExtensions('UpdateMachine', forObject, req(files));
    };
    const first = [
      { path: '/tmp/test', content: 'first in-place update' },
      { path: '/etc/token', contentFrom: { secret: { name: 'files-secret', key: 'token' } } },
    ];
    expect(await update(first)).toMatchObject({ retryAfterSeconds: 0 });
    expect(hostFilesOf(await node())).toEqual({
      '/etc/boot': fileDigest('booted'),
      '/etc/token': fileDigest('s3cret'),
      '/tmp/test': fileDigest('first in-place update'),
    });

    // A file whose Secret is missing: a Failure naming it, and the host keeps what it had.
    const missing = [{ path: '/etc/gone', contentFrom: { secret: { name: 'absent', key: 'k' } } }];
    await expect(update(missing)).rejects.toMatchObject({
      message: expect.stringContaining('file /etc/gone: key "k" of Secret "absent" not found'),
    });
    expect(hostFilesOf(await node())['/tmp/test']).toBe(fileDigest('first in-place update'));

    expect(await update([{ path: '/tmp/test', content: 'second in-place update' }])).toMatchObject({
      retryAfterSeconds: 0,
    });
    expect(hostFilesOf(await node())).toMatchObject({
      '/etc/token': fileDigest('s3cret'),
      '/tmp/test': fileDigest('second in-place update'),
    });
  });
});

describe('in-place update through the in-memory updater', () => {
  it('CanUpdateMachine covers InMemoryMachine resources but not image', async () => {
    const req = (image: string) => ({
      apiVersion: HOOKS_API_VERSION,
      kind: 'CanUpdateMachineRequest' as const,
      current: {
        machine: machineObj('x', 'v1.31.0'),
        infrastructureMachine: infraObj('x', { image: 'a', resources: { cpu: 2 } }),
      },
      desired: {
        machine: machineObj('x', 'v1.32.0'),
        infrastructureMachine: infraObj('x', { image, resources: { cpu: 8 } }),
      },
    });
    const resp = await runtime.callExtension(
      'CanUpdateMachine',
      { metadata: { namespace: NS } },
      'can-update-machine.inmemory-updater',
      req('b'),
    );
    expect(decodePatch(resp.infrastructureMachinePatch!).document).toEqual([
      { op: 'replace', path: '/spec/resources/cpu', value: 8 },
    ]);
    expect(decodePatch(resp.machinePatch!).document).toEqual([
      { op: 'replace', path: '/spec/version', value: 'v1.32.0' },
    ]);
  });

  it('UpdateMachine: Node NotReady while updating, then the new kubelet version and resources', async () => {
    const { providerID, node } = await provisionedNode('upd', { resources: { cpu: 2 } });
    expect(kubeletVersionOf(await node())).toBe('v1.31.0');
    const req: UpdateMachineRequest = {
      apiVersion: HOOKS_API_VERSION,
      kind: 'UpdateMachineRequest',
      desired: {
        machine: machineObj('upd', 'v1.32.0', providerID),
        infrastructureMachine: infraObj('upd', { providerID, resources: { cpu: 8, memoryMiB: 16384 } }),
      },
    };
    const forObject = { metadata: { namespace: NS } };
    expect(await runtime.callAllExtensions('UpdateMachine', forObject, req)).toMatchObject({ retryAfterSeconds: 5 });
    const during = await node();
    expect(isNodeReady(during)).toBe(false);
    expect(kubeletVersionOf(during)).toBe('v1.31.0');

    now += 16_000;
    expect(await runtime.callAllExtensions('UpdateMachine', forObject, req)).toMatchObject({
      retryAfterSeconds: 0,
      message: 'Extension completed updating Machine',
    });
    const after = await node();
    expect(isNodeReady(after)).toBe(true);
    expect(kubeletVersionOf(after)).toBe('v1.32.0');
    expect((after.status as { capacity: Record<string, string> }).capacity).toMatchObject({
      cpu: '8',
      memory: '16384Mi',
    });
    expect(appliedSpecOf(after)).toEqual({ resources: { cpu: 8, memoryMiB: 16384 } });
    expect(after.spec).toMatchObject({ providerID });

    // Idempotent: a repeated call after completion answers done and leaves the Node as it is.
    expect(await runtime.callAllExtensions('UpdateMachine', forObject, req)).toMatchObject({ retryAfterSeconds: 0 });
    expect(kubeletVersionOf(await node())).toBe('v1.32.0');
  });

  it('a Machine whose Node cannot be found gets a Failure naming the providerID', async () => {
    const req: UpdateMachineRequest = {
      apiVersion: HOOKS_API_VERSION,
      kind: 'UpdateMachineRequest',
      desired: {
        machine: machineObj('ghost', 'v1.32.0', 'in-memory://hc/ghost'),
        infrastructureMachine: infraObj('ghost', {}),
      },
    };
    await expect(
      runtime.callAllExtensions('UpdateMachine', { metadata: { namespace: NS } }, req),
    ).rejects.toMatchObject({
      message: expect.stringContaining('no Node with providerID in-memory://hc/ghost'),
    });
  });
});

describe('WorkloadNodeHostBackend', () => {
  it('finds the Node without listing every Node of the workload cluster (the hook Machine has no nodeRef)', async () => {
    const { providerID, node } = await provisionedNode('memo', { resources: { cpu: 2 } });
    const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
    let nodeLists = 0;
    // The real workload client, counting its Node lists.
    const counting: WorkloadClusterClientProvider = async (cluster) => {
      const real = await clients(cluster);
      return new Proxy(real, {
        get: (target, prop) => {
          if (prop === 'list')
            return (apiVersion: string, kind: string, ...rest: unknown[]) => {
              if (kind === 'Node') nodeLists++;
              return (target.list as (...a: unknown[]) => unknown).call(target, apiVersion, kind, ...rest);
            };
          const v = Reflect.get(target, prop);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) as Client;
    };
    const backend = new WorkloadNodeHostBackend(counting, { now: () => new Date(now) });
    const desired = (version: string) => ({
      machine: machineObj('memo', version, providerID),
      infrastructureMachine: infraObj('memo', { providerID, resources: { cpu: 2 } }),
    });
    await backend.applyUpdate(desired('v1.32.0').machine, desired('v1.32.0'));
    await backend.applyUpdate(desired('v1.33.0').machine, desired('v1.33.0'));
    await backend.applyUpdate(desired('v1.34.0').machine, desired('v1.34.0'));
    expect(kubeletVersionOf(await node())).toBe('v1.34.0');
    expect(nodeLists).toBe(0);
  });

  it('rejects Machines without providerID or whose cluster has no kubeconfig Secret', async () => {
    const backend = p.app.get<InMemoryHostBackend>(INMEMORY_HOST_BACKEND);
    const desired = { machine: machineObj('m', 'v1'), infrastructureMachine: infraObj('m', {}) };
    await expect(backend.applyUpdate(desired.machine, desired)).rejects.toThrow(HostUpdateError);
    const elsewhere = {
      ...machineObj('m', 'v1', 'in-memory://nowhere/m'),
      spec: { clusterName: 'nowhere', providerID: 'in-memory://nowhere/m' },
    };
    await expect(backend.applyUpdate(elsewhere, { ...desired, machine: elsewhere })).rejects.toThrow(
      /kubeconfig Secret default\/nowhere-kubeconfig not found/,
    );
  });
});
