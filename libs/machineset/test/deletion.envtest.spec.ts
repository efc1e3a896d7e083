// Deleting a MachineDeployment: its finalizer makes it delete its MachineSets, whose finalizer makes them delete their
// Machines (upstream reconcileDelete of core/reconcilers/machinedeployment and core/reconcilers/machineset). Nothing
// relies on ownerReference garbage collection: on the kube-apiserver target no garbage collector runs.
import {
  CLUSTER_API_VERSION,
  DISABLE_MACHINE_CREATE_ANNOTATION,
  MACHINE_DEPLOYMENT_FINALIZER,
  MACHINE_SET_FINALIZER,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import {
  createDeployment,
  describeNamespace,
  eventually,
  INFRA_GROUP,
  machinesOf,
  MD_REF,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(90_000);

const machineSetsOf = async (h: Harness, ns: string) =>
  (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;

describe('MachineDeployment deletion', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('deletes its MachineSets and their Machines, then goes itself', async () => {
    const ns = 'delete-md';
    await createDeployment(h.client, ns, { replicas: 2, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    const md = await eventually(async () => {
      const [machines, md] = await Promise.all([machinesOf(h.client, ns), h.client.get<MachineDeployment>(MD_REF(ns))]);
      return machines.length === 2 && md.metadata.finalizers?.includes(MACHINE_DEPLOYMENT_FINALIZER) && md;
    }, `2 Machines and the MachineDeployment finalizer in ${ns}`);
    const [ms] = await eventually(async () => {
      const all = await machineSetsOf(h, ns);
      return all.length === 1 && all[0].metadata.finalizers?.includes(MACHINE_SET_FINALIZER) && all;
    }, `one MachineSet with its finalizer in ${ns}`);
    expect(ms.metadata.ownerReferences?.[0]?.uid).toBe(md.metadata.uid);

    await h.client.delete(MD_REF(ns));
    try {
      await eventually(
        async () =>
          !(await h.client.tryGet(MD_REF(ns))) &&
          (await machineSetsOf(h, ns)).length === 0 &&
          (await machinesOf(h.client, ns)).length === 0,
        `the MachineDeployment, its MachineSet and its Machines gone from ${ns}`,
        60_000,
      );
    } catch (e) {
      (e as Error).message += `\n${await describeNamespace(h.client, ns)}`;
      throw e;
    }
  });
});

// Upstream core/reconcilers/machineset/machineset_controller_test.go TestReconciler_reconcileDelete, on a real API
// server with the MachineSet controller alone: Machines of the MS are deleted, others stay; the finalizer stays while
// a Machine is still deleting.
describe('MachineSet deletion', () => {
  let h: Harness;
  const ns = 'delete-ms';
  const HOLD = 'test.cluster.x-k8s.io/hold';
  const machineRef = (name: string) => ({ apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: ns, name });
  const msRef = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'ms0' };
  const machine = (name: string, labels: Record<string, string>, finalizers: string[] = []): Machine => ({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: { name, namespace: ns, labels, finalizers },
    spec: {
      clusterName: 'c1',
      bootstrap: { dataSecretName: 'data' },
      infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachine', name },
    },
  });
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false, machineLifecycle: false });
    await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('deletes only its Machines and keeps its finalizer until they are gone', async () => {
    const pool = { some: 'labelselector' };
    // Orphans matching the selector are adopted; the ones not matching are not part of the MS.
    await h.client.create(machine('m0', pool, [HOLD]));
    await h.client.create(machine('m1', pool));
    await h.client.create(machine('m2-not-part-of-ms', { other: 'x' }));
    await h.client.create(machine('m3-not-part-of-ms', {}));
    await h.client.create<MachineSet>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineSet',
      // No creation: the two adopted Machines are all it has.
      metadata: { name: 'ms0', namespace: ns, annotations: { [DISABLE_MACHINE_CREATE_ANNOTATION]: 'true' } },
      spec: {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: pool },
        template: {
          metadata: { labels: pool },
          spec: {
            clusterName: 'c1',
            bootstrap: { dataSecretName: 'data' },
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
          },
        },
      },
    });
    await eventually(async () => {
      const [ms, m0, m1] = await Promise.all([
        h.client.get<MachineSet>(msRef),
        h.client.get<Machine>(machineRef('m0')),
        h.client.get<Machine>(machineRef('m1')),
      ]);
      const ours = (m: Machine) => m.metadata.ownerReferences?.some((r) => r.controller && r.uid === ms.metadata.uid);
      return ms.metadata.finalizers?.includes(MACHINE_SET_FINALIZER) && ours(m0) && ours(m1);
    }, 'the MachineSet finalizer and both Machines adopted');

    await h.client.delete(msRef);
    const deleting = await eventually(async () => {
      const [ms, m0, m1] = await Promise.all([
        h.client.tryGet<MachineSet>(msRef),
        h.client.tryGet<Machine>(machineRef('m0')),
        h.client.tryGet<Machine>(machineRef('m1')),
      ]);
      return m1 || !m0?.metadata.deletionTimestamp ? undefined : ms;
    }, 'm1 gone, m0 deleting');
    // m0 is still there (held by the test's finalizer): the MachineSet waits with its finalizer.
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();
    expect(deleting.metadata.finalizers).toContain(MACHINE_SET_FINALIZER);

    await h.client.patch(machineRef('m0'), 'merge', { metadata: { finalizers: [] } });
    await eventually(async () => !(await h.client.tryGet(msRef)), 'the MachineSet gone');
    expect((await machinesOf(h.client, ns)).map((m) => m.metadata.name).sort()).toEqual([
      'm2-not-part-of-ms',
      'm3-not-part-of-ms',
    ]);
  });
});
