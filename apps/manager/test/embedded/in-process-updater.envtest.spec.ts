// A downstream provider's in-process updater through the real manager (embedded API server, MachineDeployment,
// MachineSet, Machine and Cluster controllers, in-memory hosts, no reference updater and no ExtensionConfig): one in-place
// update, then a throwing updater surfacing on the Machine's Updating condition until it recovers.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  BOOTSTRAP_API_VERSION,
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  IN_PLACE_UPDATE_FAILED_REASON,
  INFRASTRUCTURE_GROUP,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  encodePatch,
  type Cluster,
  type Machine,
  type UpdateMachineRequest,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import { inPlaceUpdater, type InPlaceUpdater } from '@capi/runtime-client';
import { buildManagerModule, JsonLogger, loadManagerConfig, LOGGER } from '@capi/manager';

jest.setTimeout(120_000);

const ns = 'default';
const cluster = 'ip';
const md = 'ip-md';

/** Accepts version changes; UpdateMachine answers "in progress" once per desired version, then "done" (or throws). */
const calls: string[] = [];
const completed: string[] = [];
let failWith: string | undefined;
const started = new Set<string>();
const versionUpdater: InPlaceUpdater = {
  name: 'test-updater',
  timeoutSeconds: 2,
  canUpdateMachine: (req) => ({
    status: 'Success',
    machinePatch: encodePatch('JSONPatch', [
      { op: 'replace', path: '/spec/version', value: (req.desired.machine as Machine).spec.version },
    ]),
  }),
  canUpdateMachineSet: (req) => ({
    status: 'Success',
    machineSetPatch: encodePatch('JSONPatch', [
      {
        op: 'replace',
        path: '/spec/template/spec/version',
        value: (req.desired.machineSet as unknown as { spec: { template: { spec: { version: string } } } }).spec
          .template.spec.version,
      },
    ]),
  }),
  updateMachine: (req: UpdateMachineRequest) => {
    const m = req.desired.machine as Machine;
    calls.push(m.spec.version ?? '');
    if (failWith) throw new Error(failWith);
    const key = `${m.metadata.uid}/${m.spec.version}`;
    if (!started.has(key)) {
      started.add(key);
      return { status: 'Success', retryAfterSeconds: 1, message: 'updating' };
    }
    completed.push(m.spec.version ?? '');
    return { status: 'Success', retryAfterSeconds: 0, message: 'done' };
  },
};
@Module({ providers: [inPlaceUpdater({ useValue: versionUpdater })] })
class TestProviderModule {}

let app: INestApplicationContext;
let client: Client;
beforeAll(async () => {
  const loaded = loadManagerConfig([
    '--data-dir=',
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--controllers=cluster,machineset,machine,extensionconfig',
  ]);
  if (loaded.help) throw new Error('help');
  const quiet = { provide: LOGGER, useValue: JsonLogger.create({ destination: { write: () => undefined } }) };
  app = await NestFactory.createApplicationContext(
    buildManagerModule(loaded.config, {
      providers: [quiet],
      modules: [TestProviderModule],
      embeddedProvider: { provisioningDelayMs: 0, updater: false },
    }),
    { logger: false },
  );
  await app.init();
  client = app.get<Client>(KUBE_CLIENT);
});
afterAll(async () => {
  await app?.close();
});

async function createCluster(): Promise<void> {
  const labels = { [CLUSTER_NAME_LABEL]: cluster };
  const c = await client.create<Cluster>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: cluster, namespace: ns, labels },
    spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: cluster } },
  } as Cluster);
  const owner = [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: cluster, uid: c.metadata.uid! }];
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: { name: cluster, namespace: ns, labels, ownerReferences: owner },
    spec: {},
  });
  // No control plane provider runs here: mark the control plane initialized as one would.
  await client.patch(
    { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', namespace: ns, name: cluster },
    'merge',
    { status: { initialization: { controlPlaneInitialized: true } } },
    { subresource: 'status' },
  );
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryMachineTemplate',
    metadata: { name: md, namespace: ns, labels },
    spec: { template: { spec: { image: 'img-1' } } },
  });
  await client.create({
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfigTemplate',
    metadata: { name: md, namespace: ns, labels },
    spec: { template: { spec: { joinConfiguration: {} } } },
  });
  const selector = { ...labels, [MACHINE_DEPLOYMENT_NAME_LABEL]: md };
  await client.create({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    metadata: { name: md, namespace: ns, labels, ownerReferences: owner },
    spec: {
      clusterName: cluster,
      replicas: 1,
      selector: { matchLabels: selector },
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } },
      template: {
        metadata: { labels: selector },
        spec: {
          clusterName: cluster,
          version: 'v1.31.0',
          bootstrap: { configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name: md } },
          infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name: md },
        },
      },
    },
  } as KubeObject);
}

const machines = async () => (await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns })).items;
const bumpVersion = (version: string) =>
  client.patch({ apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: ns, name: md }, 'merge', {
    spec: { template: { spec: { version } } },
  });
const updatedInPlace = (uid: string, version: string) => async () => {
  const all = await machines();
  const m = all.find((x) => x.metadata.uid === uid);
  const annotations = m?.metadata.annotations ?? {};
  const done =
    completed.includes(version) &&
    !annotations[UPDATE_IN_PROGRESS_ANNOTATION] &&
    !annotations[PENDING_HOOKS_ANNOTATION];
  return all.length === 1 && m?.spec.version === version && done ? m : undefined;
};

describe('an in-process updater registered by a provider module, through the manager', () => {
  let uid: string;

  it("updates the MachineDeployment's Machine in place (same UID) with no ExtensionConfig and no reference updater", async () => {
    await createCluster();
    const running = await eventually(
      async () => {
        const [m] = await machines();
        return m?.status?.phase === 'Running' ? m : undefined;
      },
      { message: 'the Machine Running', timeoutMs: 60_000 },
    );
    uid = running.metadata.uid!;
    await bumpVersion('v1.31.1');
    await eventually(updatedInPlace(uid, 'v1.31.1'), {
      message: 'the Machine updated in place to v1.31.1',
      timeoutMs: 60_000,
    });
    // First call "in progress" (retryAfterSeconds 1), the next one "done".
    expect(calls.filter((v) => v === 'v1.31.1').length).toBeGreaterThanOrEqual(2);
    expect((await client.list('runtime.cluster.x-k8s.io/v1beta2', 'ExtensionConfig')).items).toEqual([]);
  });

  it('a throwing updater sets Updating=True, InPlaceUpdateFailed; once it recovers the update completes', async () => {
    failWith = 'host agent down';
    await bumpVersion('v1.31.2');
    const failed = await eventually(
      async () => {
        const m = (await machines()).find((x) => x.metadata.uid === uid);
        const c = m?.status?.conditions?.find((x) => x.type === 'Updating');
        return c?.reason === IN_PLACE_UPDATE_FAILED_REASON ? c : undefined;
      },
      { message: 'Updating=InPlaceUpdateFailed', timeoutMs: 60_000 },
    );
    expect(failed.status).toBe('True');
    // The condition points at the logs, as upstream; the updater was called for the new version.
    expect(failed.message).toBe('UpdateMachine hook failed: please check controller logs for errors');
    expect(calls).toContain('v1.31.2');
    expect(completed).not.toContain('v1.31.2');
    failWith = undefined;
    await eventually(updatedInPlace(uid, 'v1.31.2'), {
      message: 'the Machine updated in place to v1.31.2 after the updater recovered',
      timeoutMs: 60_000,
    });
  });
});
