// Events the MachineDeployment and MachineSet controllers record, as core/v1 Events listed from the API server
// (upstream core/reconcilers/machinedeployment/machinedeployment_controller.go, machinedeployment_sync.go
// cleanupDeployment, core/reconcilers/machineset/machineset_controller.go).
import { CLUSTER_API_VERSION, type Machine, type MachineDeployment, type MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { ClientFaults } from './support/client-faults';
import {
  createDeployment,
  eventually,
  INFRA_GROUP,
  machinesOf,
  MD_REF,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(120_000);

interface CoreEvent extends KubeObject {
  reason: string;
  message: string;
  type: string;
  count?: number;
  involvedObject: { kind: string; name: string; uid?: string };
  source?: { component?: string };
}

describe('MachineDeployment and MachineSet events (envtest)', () => {
  let h: Harness;
  const faults = new ClientFaults();
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false, faults });
  });
  afterAll(async () => h?.close());
  afterEach(() => faults.clear());

  const events = async (ns: string, kind: string, name: string, reason?: string) =>
    (await h.client.list<CoreEvent>('v1', 'Event', { namespace: ns })).items.filter(
      (e) =>
        e.involvedObject.kind === kind &&
        e.involvedObject.name === name &&
        (reason === undefined || e.reason === reason),
    );
  const messages = async (ns: string, kind: string, name: string, reason: string) =>
    (await events(ns, kind, name, reason)).map((e) => e.message).sort();
  const machineSets = async (ns: string) =>
    (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
  const live = async (ns: string) => (await machinesOf(h.client, ns)).filter((m) => !m.metadata.deletionTimestamp);
  const quoted = (names: string[]) => names.map((n) => `"${n}"`);

  it('create, scale up, scale down and rollout: MachineSets on the MachineDeployment, Machines on the MachineSet', async () => {
    const ns = 'ev-md';
    await createDeployment(h.client, ns, { replicas: 1, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    const [ms] = await eventually(async () => {
      const list = await machineSets(ns);
      return list.length === 1 && (await live(ns)).length === 1 && list;
    }, '1 MachineSet with 1 Machine');
    const msName = ms.metadata.name!;
    const md = await h.client.get<MachineDeployment>(MD_REF(ns));
    const [created] = await eventually(
      async () =>
        (await events(ns, 'MachineDeployment', 'md', 'SuccessfulCreate')).length === 1 &&
        events(ns, 'MachineDeployment', 'md', 'SuccessfulCreate'),
      'SuccessfulCreate on the MachineDeployment',
    );
    expect(created).toMatchObject({
      type: 'Normal',
      message: `Created MachineSet ${ns}/${msName} with 1 replicas`,
      involvedObject: { uid: md.metadata.uid },
      source: { component: 'machinedeployment-controller' },
    });
    const first = (await live(ns)).map((m) => m.metadata.name!);
    const [machineCreated] = await eventually(async () => {
      const list = await events(ns, 'MachineSet', msName, 'SuccessfulCreate');
      return list.length === 1 && list;
    }, 'SuccessfulCreate on the MachineSet');
    expect(machineCreated).toMatchObject({
      type: 'Normal',
      message: `Created Machine "${first[0]}"`,
      involvedObject: { uid: ms.metadata.uid },
      source: { component: 'machineset-controller' },
    });

    // Scale up 1 -> 3.
    await h.client.patch(MD_REF(ns), 'merge', { spec: { replicas: 3 } });
    await eventually(async () => (await live(ns)).length === 3, '3 Machines');
    const three = (await live(ns)).map((m) => m.metadata.name!).sort();
    await eventually(
      async () => (await messages(ns, 'MachineSet', msName, 'SuccessfulCreate')).length === 3,
      '3 SuccessfulCreate on the MachineSet',
    );
    expect(await messages(ns, 'MachineSet', msName, 'SuccessfulCreate')).toEqual(
      three.map((n) => `Created Machine "${n}"`).sort(),
    );
    await eventually(
      async () =>
        (await messages(ns, 'MachineDeployment', 'md', 'SuccessfulScale')).includes(
          `Scaled up MachineSet ${msName}: 1 -> 3`,
        ),
      'Scaled up event',
    );

    // Scale down 3 -> 1: the two deleted Machines are named on the MachineSet.
    await h.client.patch(MD_REF(ns), 'merge', { spec: { replicas: 1 } });
    await eventually(async () => (await machinesOf(h.client, ns)).length === 1, '1 Machine left');
    const kept = (await machinesOf(h.client, ns)).map((m) => m.metadata.name!);
    const deleted = three.filter((n) => !kept.includes(n));
    expect(await messages(ns, 'MachineSet', msName, 'SuccessfulDelete')).toEqual(
      quoted(deleted).map((n) => `Deleted Machine ${n}`),
    );
    expect(await messages(ns, 'MachineDeployment', 'md', 'SuccessfulScale')).toEqual([
      `Scaled down MachineSet ${msName}: 3 -> 1`,
      `Scaled up MachineSet ${msName}: 1 -> 3`,
    ]);

    // Rollout: a new MachineSet is created, the old one scaled down and, once drained, deleted.
    await h.client.patch(MD_REF(ns), 'merge', { spec: { template: { spec: { version: 'v1.31.0' } } } });
    await eventually(
      async () => (await messages(ns, 'MachineDeployment', 'md', 'SuccessfulDelete')).length === 1,
      'SuccessfulDelete on the MachineDeployment',
      60_000,
    );
    expect(await messages(ns, 'MachineDeployment', 'md', 'SuccessfulDelete')).toEqual([
      `Deleted MachineSet "${msName}"`,
    ]);
    const [newMS] = await machineSets(ns);
    expect(newMS.metadata.name).not.toBe(msName);
    // The new MachineSet's replicas at creation are the planner's (0 or 1 here, depending on what it observed).
    const createdMessages = await messages(ns, 'MachineDeployment', 'md', 'SuccessfulCreate');
    expect(createdMessages).toHaveLength(2);
    expect(createdMessages).toContain(`Created MachineSet ${ns}/${msName} with 1 replicas`);
    expect(createdMessages.find((m) => m.includes(newMS.metadata.name!))).toMatch(
      new RegExp(`^Created MachineSet ${ns}/${newMS.metadata.name} with [01] replicas$`),
    );
    expect(await messages(ns, 'MachineDeployment', 'md', 'SuccessfulScale')).toContain(
      `Scaled down MachineSet ${msName}: 1 -> 0`,
    );
    expect(await events(ns, 'MachineDeployment', 'md', 'FailedCreate')).toEqual([]);
  });

  it('a MachineSet that cannot be created is a FailedCreate Warning on the MachineDeployment', async () => {
    const ns = 'ev-md-fail';
    faults.fail('apply', 'MachineSet', 'md-*');
    await createDeployment(h.client, ns, { replicas: 1, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    const [failed] = await eventually(async () => {
      const list = await events(ns, 'MachineDeployment', 'md', 'FailedCreate');
      return list.length > 0 && list;
    }, 'FailedCreate');
    expect(failed.type).toBe('Warning');
    expect(failed.message).toMatch(
      new RegExp(`^Failed to create MachineSet ${ns}/md-[a-z0-9]+: injected failure: apply MachineSet md-[a-z0-9]+$`),
    );
    faults.clear();
    await eventually(
      async () => (await events(ns, 'MachineDeployment', 'md', 'SuccessfulCreate')).length === 1,
      'SuccessfulCreate after the fault is gone',
    );
  });

  it('adopting an orphan Machine is SuccessfulAdopt, a failed adoption FailedAdopt, on the MachineSet', async () => {
    const ns = 'ev-ms';
    // Namespace, Cluster and template (the MachineDeployment of 0 replicas selects other labels).
    await createDeployment(h.client, ns, { replicas: 0, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    const orphan = (name: string): Machine => ({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Machine',
      metadata: { name, namespace: ns, labels: { pool: 'adopt' } },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: 'data' },
        infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachine', name },
      },
    });
    await h.client.create(orphan('orphan-a'));
    await h.client.create(orphan('orphan-b'));
    faults.fail('patch', 'Machine', 'orphan-b');
    await h.client.create<MachineSet>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineSet',
      metadata: { name: 'adopt', namespace: ns },
      spec: {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: { pool: 'adopt' } },
        template: {
          metadata: { labels: { pool: 'adopt' } },
          spec: {
            clusterName: 'c1',
            version: 'v1.30.0',
            bootstrap: { dataSecretName: 'data' },
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
          },
        },
      },
    });
    const [failed] = await eventually(async () => {
      const list = await events(ns, 'MachineSet', 'adopt', 'FailedAdopt');
      return list.length > 0 && list;
    }, 'FailedAdopt');
    expect(failed).toMatchObject({
      type: 'Warning',
      message: 'Failed to adopt Machine "orphan-b": injected failure: patch Machine orphan-b',
    });
    faults.clear();
    await eventually(
      async () => (await messages(ns, 'MachineSet', 'adopt', 'SuccessfulAdopt')).length === 2,
      'both orphans adopted',
    );
    expect(await messages(ns, 'MachineSet', 'adopt', 'SuccessfulAdopt')).toEqual([
      'Adopted Machine "orphan-a"',
      'Adopted Machine "orphan-b"',
    ]);
    // Both orphans fill the 2 replicas: nothing is created.
    expect(await events(ns, 'MachineSet', 'adopt', 'SuccessfulCreate')).toEqual([]);
  });
});
