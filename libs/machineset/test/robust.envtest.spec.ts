// One bad Machine does not stall a MachineSet (upstream core/reconcilers/machineset/machineset_controller.go
// doReconcile, deleteMachines, syncMachines, computeDesiredMachine): the MachineSet controller alone on envtest, with
// write failures injected for chosen Machines between the controller and the API server (test/support/client-faults.ts).
import { CLUSTER_API_VERSION, type Machine, type MachineDeployment, type MachineSet } from '@capi/api';
import { ClientFaults } from './support/client-faults';
import {
  createDeployment,
  eventually,
  INFRA_API_VERSION,
  INFRA_GROUP,
  machinesOf,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(60_000);

const MS = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet' };
const MACHINE = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine' };
const HOLD = 'test.cluster.x-k8s.io/hold';
const MOVE = 'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset';
const RECEIVE = 'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets';

function machineSet(ns: string, name: string, replicas: number, machineNaming?: string): MachineSet {
  return {
    ...MS,
    metadata: { name, namespace: ns },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: name } },
      ...(machineNaming ? { machineNaming: { template: machineNaming } } : {}),
      template: {
        metadata: { labels: { pool: name } },
        spec: {
          clusterName: 'c1',
          version: 'v1.30.0',
          bootstrap: { dataSecretName: 'data' },
          infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
        },
      },
    },
  } as MachineSet;
}

describe('MachineSet controller with one bad Machine', () => {
  let h: Harness;
  const faults = new ClientFaults();
  const ns = 'robust';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true, machineLifecycle: false, faults });
    await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await h.client.create({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachineTemplate',
      metadata: { name: 'tmpl', namespace: ns },
      spec: { template: { spec: { image: 'v1' } } },
    });
  });
  afterEach(() => faults.clear());
  afterAll(async () => {
    await h?.close();
  });

  const owned = async (msName: string) =>
    (await machinesOf(h.client, ns))
      .filter((m) => m.metadata.ownerReferences?.some((r) => r.controller && r.name === msName))
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const ownedCount = (msName: string, n: number) =>
    eventually(async () => {
      const list = await owned(msName);
      return list.length === n && list;
    }, `${n} Machines of ${msName}`);
  const getMS = (name: string) => h.client.get<MachineSet>({ ...MS, namespace: ns, name });
  const patchMS = (name: string, body: object) => h.client.patch({ ...MS, namespace: ns, name }, 'merge', body);
  const condition = (ms: MachineSet, type: string) => ms.status?.conditions?.find((c) => c.type === type);

  // Upstream TestMachineSetReconciler_deleteMachines "should keep deleting machines when one deletion fails".
  it('deletes the other chosen Machines when one delete fails, and shows the failure on ScalingDown', async () => {
    await h.client.create(machineSet(ns, 'del', 4));
    const [m0, m1, m2, m3] = await ownedCount('del', 4);
    for (const m of [m0, m1])
      await h.client.patch({ ...MACHINE, namespace: ns, name: m.metadata.name! }, 'merge', {
        metadata: { annotations: { 'cluster.x-k8s.io/delete-machine': '' } },
      });
    faults.fail('delete', 'Machine', m0.metadata.name!);
    await patchMS('del', { spec: { replicas: 2 } });

    const left = await ownedCount('del', 3);
    expect(left.map((m) => m.metadata.name)).toEqual([m0, m2, m3].map((m) => m.metadata.name));
    const ms = await eventually(async () => {
      const got = await getMS('del');
      return condition(got, 'ScalingDown')?.reason === 'MachineDeletionFailed' && got.status?.replicas === 3 && got;
    }, 'ScalingDown MachineDeletionFailed with 3 replicas');
    expect(condition(ms, 'ScalingDown')).toMatchObject({ status: 'False' });
    expect(condition(ms, 'ScalingDown')?.message).toContain(`injected failure: delete Machine ${m0.metadata.name}`);

    faults.clear(); // the retry deletes it
    const after = await ownedCount('del', 2);
    expect(after.map((m) => m.metadata.name)).toEqual([m2, m3].map((m) => m.metadata.name));
  });

  // Upstream doReconcile: a failing phase does not skip the later ones; the errors are returned together.
  it('a Machine whose apply fails does not stop the sync of the others, scaling or status', async () => {
    await h.client.create(machineSet(ns, 'sync', 2));
    const [s0, s1] = await ownedCount('sync', 2);
    faults.fail('apply', 'Machine', s0.metadata.name!);
    await patchMS('sync', {
      spec: { replicas: 3, template: { metadata: { labels: { pool: 'sync', team: 'b' } } } },
    });

    const machines = await ownedCount('sync', 3);
    await eventually(async () => {
      const m = await h.client.get<Machine>({ ...MACHINE, namespace: ns, name: s1.metadata.name! });
      return m.metadata.labels?.team === 'b';
    }, 'the other Machine synced');
    await eventually(async () => (await getMS('sync')).status?.replicas === 3, 'status.replicas 3');
    expect(faults.failed).toContain(`apply Machine/${s0.metadata.name}`);
    const bad = machines.find((m) => m.metadata.name === s0.metadata.name)!;
    expect(bad.metadata.labels?.team).toBeUndefined();

    faults.clear();
    await eventually(async () => {
      const m = await h.client.get<Machine>({ ...MACHINE, namespace: ns, name: s0.metadata.name! });
      return m.metadata.labels?.team === 'b';
    }, 'the bad Machine synced once its apply works');
  });

  // Upstream TestMachineSetReconciler_createMachines "should stop creating machines when there are failures and rollback
  // partial changes".
  it('removes the cloned InfraMachine when the Machine cannot be created, and shows it on ScalingUp', async () => {
    faults.fail('apply', 'Machine', 'rollback-*');
    await h.client.create(machineSet(ns, 'rollback', 2));
    const ms = await eventually(async () => {
      const got = await getMS('rollback');
      return condition(got, 'ScalingUp')?.reason === 'MachineCreationFailed' && got;
    }, 'ScalingUp MachineCreationFailed');
    expect(condition(ms, 'ScalingUp')?.message).toMatch(
      /failed to create Machine robust\/rollback-\w{5}: injected failure/,
    );
    const infraOf = async () =>
      (await h.client.list(INFRA_API_VERSION, 'TestMachine', { namespace: ns })).items.filter((o) =>
        o.metadata.name?.startsWith('rollback-'),
      );
    await eventually(async () => (await infraOf()).length === 0, 'no TestMachine left behind');
    expect(await owned('rollback')).toEqual([]);

    faults.clear();
    await ownedCount('rollback', 2);
    expect(await infraOf()).toHaveLength(2);
  });

  // Upstream TestMachineSetReconciler_startMoveMachines "should keep moving machines when one move fails".
  it('moves the other Machines when moving one fails, and shows it on ScalingDown', async () => {
    await h.client.create({
      ...machineSet(ns, 'mv-to', 0),
      metadata: {
        name: 'mv-to',
        namespace: ns,
        labels: { 'machine-template-hash': 'mv-to' },
        annotations: { [RECEIVE]: 'mv-from' },
      },
    });
    await h.client.create(machineSet(ns, 'mv-from', 3));
    const [f0, f1, f2] = await ownedCount('mv-from', 3);
    for (const m of [f0, f1, f2]) {
      const ref = { ...MACHINE, namespace: ns, name: m.metadata.name! };
      // No Machine controller here: give the Machines the Node a move requires; f0 and f1 go first.
      await eventually(async () => {
        const cur = await h.client.get<Machine>(ref);
        await h.client.updateStatus({
          ...cur,
          status: { ...cur.status, nodeRef: { name: `node-${m.metadata.name}` } },
        });
        return true;
      }, `nodeRef on ${m.metadata.name}`);
      if (m !== f2)
        await h.client.patch(ref, 'merge', { metadata: { annotations: { 'cluster.x-k8s.io/delete-machine': '' } } });
    }
    faults.fail('patch', 'Machine', f0.metadata.name!);
    await patchMS('mv-from', { metadata: { annotations: { [MOVE]: 'mv-to' } }, spec: { replicas: 1 } });

    const movedIn = await ownedCount('mv-to', 1);
    expect(movedIn.map((m) => m.metadata.name)).toEqual([f1.metadata.name]);
    const ms = await eventually(async () => {
      const got = await getMS('mv-from');
      return condition(got, 'ScalingDown')?.reason === 'MoveFailed' && got;
    }, 'ScalingDown MoveFailed');
    expect(condition(ms, 'ScalingDown')?.message).toContain(`injected failure: patch Machine ${f0.metadata.name}`);
    expect((await owned('mv-from')).map((m) => m.metadata.name)).toEqual([f0, f2].map((m) => m.metadata.name));

    faults.clear();
    await ownedCount('mv-to', 2);
  });

  // Upstream TestMachineSetReconciler_syncMachines: a deleting Machine still gets the fields that matter for its teardown.
  it('syncs timeouts, minReadySeconds, readiness gates and taints to a deleting Machine', async () => {
    await h.client.create(machineSet(ns, 'deleting', 1));
    const [d0] = await ownedCount('deleting', 1);
    const ref = { ...MACHINE, namespace: ns, name: d0.metadata.name! };
    await h.client.patch(ref, 'merge', { metadata: { finalizers: [HOLD] } });
    await h.client.delete(ref);
    await patchMS('deleting', {
      spec: {
        template: {
          spec: {
            minReadySeconds: 4,
            readinessGates: [{ conditionType: 'Foo' }],
            deletion: { nodeDrainTimeoutSeconds: 5 },
            taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', propagation: 'Always' }],
          },
        },
      },
    });
    const m = await eventually(async () => {
      const got = await h.client.get<Machine>(ref);
      return got.spec.deletion?.nodeDrainTimeoutSeconds === 5 && got;
    }, 'the deleting Machine synced');
    expect(m.metadata.deletionTimestamp).toBeDefined();
    expect(m.spec).toMatchObject({
      minReadySeconds: 4,
      readinessGates: [{ conditionType: 'Foo' }],
      deletion: { nodeDrainTimeoutSeconds: 5, nodeDeletionTimeoutSeconds: 10 },
      taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', propagation: 'Always' }],
      version: 'v1.30.0',
    });
    await h.client.patch(ref, 'merge', { metadata: { finalizers: null } });
  });

  // Upstream TestComputeDesiredMachine (naming cases) through the controller.
  it('names Machines by spec.machineNaming.template', async () => {
    await h.client.create(machineSet(ns, 'named', 2, '{{ .machineSet.name }}-w-{{ .random }}'));
    const machines = await ownedCount('named', 2);
    for (const m of machines) expect(m.metadata.name).toMatch(/^named-w-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('an invalid machineNaming.template creates nothing and shows the error on ScalingUp', async () => {
    await h.client.create(machineSet(ns, 'badname', 1, 'x-{{ .doesnotexistindata }}-{{ .random }}'));
    const ms = await eventually(async () => {
      const got = await getMS('badname');
      return condition(got, 'ScalingUp')?.reason === 'MachineCreationFailed' && got;
    }, 'ScalingUp MachineCreationFailed');
    expect(condition(ms, 'ScalingUp')).toMatchObject({ status: 'False' });
    expect(condition(ms, 'ScalingUp')?.message).toContain('failed to generate Machine name');
    expect(condition(ms, 'ScalingUp')?.message).toContain('doesnotexistindata');
    expect(await owned('badname')).toEqual([]);
  });

  // Upstream computeDesiredMS (machinedeployment_rollout_planner.go) through the MachineDeployment controller.
  it('a MachineDeployment carries its annotations, replica annotations and machineNaming to its MachineSet', async () => {
    const mdNs = 'robust-md';
    await createDeployment(h.client, mdNs, { replicas: 0, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: mdNs, name: 'md' },
      'merge',
      {
        metadata: { annotations: { team: 'a' } },
        spec: { replicas: 2, machineNaming: { template: 'w-{{ .machineSet.name }}-{{ .random }}' } },
      },
    );
    const ms = await eventually(async () => {
      const list = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: mdNs })).items;
      return list.length === 1 && list[0].spec.replicas === 2 && list[0];
    }, 'the MachineSet at 2 replicas');
    expect(ms.metadata.annotations).toMatchObject({
      team: 'a',
      'machinedeployment.clusters.x-k8s.io/desired-replicas': '2',
      'machinedeployment.clusters.x-k8s.io/max-replicas': '3',
    });
    expect(ms.spec.machineNaming).toEqual({ template: 'w-{{ .machineSet.name }}-{{ .random }}' });
    const machines = await eventually(async () => {
      const list = await machinesOf(h.client, mdNs);
      return list.length === 2 && list;
    }, '2 Machines');
    for (const m of machines) expect(m.metadata.name).toMatch(new RegExp(`^w-${ms.metadata.name}-[a-z0-9]{5}$`));
    const md = await h.client.get<MachineDeployment>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      namespace: mdNs,
      name: 'md',
    });
    expect(md.metadata.annotations?.team).toBe('a');
  });
});
