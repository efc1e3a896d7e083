// End to end: the Go extension (upstream's Go SDK, test/compat/go-extension) is the only in-place updater of the
// embedded manager (embedded API server, KCP / MachineSet / MachineDeployment / Machine / ExtensionConfig
// controllers, in-memory provider; the reference updater is off: provider option `updater: false`). Registered by an
// ExtensionConfig with its CA and a namespaceSelector, it updates a KubeadmControlPlane and a MachineDeployment in
// place: every Machine keeps its UID. It runs with --strict-requests, so every hook request the manager sent
// decoded strictly into upstream's request types.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLUSTER_API_VERSION,
  CONTROLPLANE_API_VERSION,
  DISCOVERED_CONDITION,
  ExtensionConfigGVK,
  PENDING_HOOKS_ANNOTATION,
  READY_CONDITION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UP_TO_DATE_CONDITION,
  type ExtensionConfig,
  type Machine,
} from '@capi/api';
import { startEmbeddedManager, type EmbeddedManager } from '../demo/embedded';
import { createDemoCluster, names, versionPatch, type DemoSpec } from '../demo/objects';
import { buildGoExtension, goExtensionConfig, startGoExtension, type GoExtension } from './go-extension';
import { eventually } from '@capi/envtest';
import { conditionOf, createNamespace, listMachines, untilNoProblems } from '../e2e/support';

// The first build of the extension on a machine takes minutes (cached by version afterwards).
jest.setTimeout(900_000);

const NAMESPACE_LABEL = { 'capi-inplace.test/go-extension': 'true' };
const spec: DemoSpec = {
  namespace: 'go-ext',
  cluster: 'gx',
  controlPlaneReplicas: 3,
  workerReplicas: 2,
  version: 'v1.31.0',
  upgradeVersion: 'v1.31.1',
  image: 'img-1',
  newImage: 'img-2',
};
const want = spec.controlPlaneReplicas + spec.workerReplicas;

let dir: string;
let ext: GoExtension | undefined;
let manager: EmbeddedManager | undefined;

beforeAll(async () => {
  const binary = await buildGoExtension((l) => process.stderr.write(`${l}\n`));
  dir = mkdtempSync(join(tmpdir(), 'go-extension-e2e-'));
  ext = await startGoExtension({
    binary,
    dir,
    args: ['--strict-requests', '--update-duration=2s', '--update-jitter=0s', '--retry-after-seconds=1'],
  });
  manager = await startEmbeddedManager({ provider: { provisioningDelayMs: 0, updater: false } });
});

afterAll(async () => {
  await manager?.stop();
  await ext?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const machines = (): Promise<Machine[]> => listMachines(manager!.client, spec.namespace);

/** Why the Machines are not all settled at `version` (empty when they are). */
function notSettled(all: Machine[], version: string): string[] {
  const out = all.length === want ? [] : [`${all.length} Machines (want ${want})`];
  for (const m of all) {
    const annotations = m.metadata.annotations ?? {};
    if (m.spec.version !== version) out.push(`${m.metadata.name}: version ${m.spec.version}`);
    if (m.status?.phase !== 'Running') out.push(`${m.metadata.name}: phase ${m.status?.phase}`);
    if (conditionOf(m, READY_CONDITION)?.status !== 'True') out.push(`${m.metadata.name}: not Ready`);
    if (UPDATE_IN_PROGRESS_ANNOTATION in annotations) out.push(`${m.metadata.name}: update in progress`);
    if (PENDING_HOOKS_ANNOTATION in annotations) out.push(`${m.metadata.name}: pending hooks`);
  }
  return out;
}

/** Polls until every Machine is settled at `version`; on timeout the error lists what was not. */
const settledAt = (version: string, timeoutMs: number): Promise<Machine[]> =>
  untilNoProblems(
    async () => {
      const all = await machines();
      return { problems: notSettled(all, version), value: all };
    },
    `Machines settled at ${version}`,
    timeoutMs,
  );

describe('a Go extension on upstream SDK as the only updater of the embedded manager', () => {
  let before: Map<string, string>;

  it('is discovered through its ExtensionConfig (caBundle, namespaceSelector); no reference updater is registered', async () => {
    const client = manager!.client;
    await createNamespace(client, spec.namespace, NAMESPACE_LABEL);
    await client.create(goExtensionConfig('go-extension', ext!, NAMESPACE_LABEL));
    const ec = await eventually(
      async () => {
        const got = await client.tryGet<ExtensionConfig>({ ...ExtensionConfigGVK, name: 'go-extension' });
        return conditionOf(got, DISCOVERED_CONDITION)?.status === 'True' ? got : undefined;
      },
      { message: 'ExtensionConfig go-extension Discovered=True', timeoutMs: 60_000 },
    );
    expect(ec.status?.handlers?.map((h) => h.name).sort()).toEqual([
      'can-update-machine.go-extension',
      'can-update-machineset.go-extension',
      'update-machine.go-extension',
    ]);
    const all = await client.list<ExtensionConfig>(ExtensionConfigGVK.apiVersion, 'ExtensionConfig');
    expect(all.items.map((e) => e.metadata.name)).toEqual(['go-extension']);
  });

  it('a KubeadmControlPlane and a MachineDeployment come up', async () => {
    await createDemoCluster((obj) => manager!.client.create(obj), spec);
    const settled = await settledAt(spec.version, 180_000);
    before = new Map(settled.map((m) => [m.metadata.name!, m.metadata.uid!]));
  });

  it('a version bump on both completes in place: every Machine keeps its UID, the Go extension did the updates', async () => {
    const client = manager!.client;
    const n = names(spec);
    await client.patch(
      {
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'KubeadmControlPlane',
        namespace: spec.namespace,
        name: n.controlPlane,
      },
      'merge',
      versionPatch.controlPlane(spec.upgradeVersion),
    );
    await client.patch(
      {
        apiVersion: CLUSTER_API_VERSION,
        kind: 'MachineDeployment',
        namespace: spec.namespace,
        name: n.machineDeployment,
      },
      'merge',
      versionPatch.machineDeployment(spec.upgradeVersion),
    );
    const after = await settledAt(spec.upgradeVersion, 300_000);
    expect(new Map(after.map((m) => [m.metadata.name!, m.metadata.uid!]))).toEqual(before);
    // Each Machine's update was completed by the Go extension (its UpdateMachine log line, klog format).
    const completed = ext!
      .log()
      .split('\n')
      .filter((l) => l.includes('"UpdateMachine response"') && l.includes('"Extension completed updating Machine"'));
    for (const name of before.keys())
      expect(completed.some((l) => l.includes(`Machine="${spec.namespace}/${name}"`))).toBe(true);
  });

  // UpToDate follows the kubelet version the Node reports (upstream machine_controller_status.go setUpToDateCondition
  // and KCP's): the in-memory host changes its kubelet only when an updater in the manager's process hands it the
  // update (libs/inmemory WorkloadNodeHostBackend, behind the reference updater). An extension in its own process has
  // no way to reach that simulated host, so the Node keeps the old kubelet and UpToDate stays False/Updating.
  it('UpToDate stays False (Updating): the Node still reports the old kubelet, nothing told the simulated host', async () => {
    const message = `* Node.status.nodeInfo.kubeletVersion ${spec.version}, ${spec.upgradeVersion} required`;
    // The Machine's conditions follow its annotations by a reconcile: wait for the settled condition.
    const all = await eventually(
      async () => {
        const ms = await machines();
        return ms.every((m) => conditionOf(m, UP_TO_DATE_CONDITION)?.message === message) ? ms : undefined;
      },
      { message: 'every Machine UpToDate False with the kubelet version message', timeoutMs: 60_000 },
    );
    for (const m of all) {
      expect(m.status?.nodeInfo?.kubeletVersion).toBe(spec.version);
      expect(conditionOf(m, UP_TO_DATE_CONDITION)).toMatchObject({ status: 'False', reason: 'Updating', message });
    }
  });
});
