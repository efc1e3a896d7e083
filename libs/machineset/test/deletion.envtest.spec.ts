// Deleting a MachineDeployment: its finalizer makes it delete its MachineSets, whose finalizer makes them delete their
// Machines (upstream reconcileDelete of core/reconcilers/machinedeployment and core/reconcilers/machineset). Nothing
// relies on ownerReference garbage collection: on the kube-apiserver target no garbage collector runs.
import {
  CLUSTER_API_VERSION,
  MACHINE_DEPLOYMENT_FINALIZER,
  MACHINE_SET_FINALIZER,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import {
  createDeployment,
  describeNamespace,
  eventually,
  machinesOf,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(90_000);

const MD_REF = (ns: string) => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'MachineDeployment',
  namespace: ns,
  name: 'md',
});
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
