// MachineSet remediation on envtest with the Machine lifecycle: Machines marked the way MachineHealthCheck marks them
// are deleted by their MachineSet (within the MD's maxInFlight) and replaced by the regular scale up.
import {
  CLUSTER_API_VERSION,
  REVISION_ANNOTATION,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import { CACHE, type InformerCache } from '@capi/controller-runtime';
import {
  createDeployment,
  describeNamespace,
  eventually,
  machinesOf,
  startHarness,
  type Harness,
} from './support/harness';
import { type KubeObject } from '@capi/apimachinery';

jest.setTimeout(60_000);

const HOLD_FINALIZER = 'test.cluster.x-k8s.io/hold';
const NOW = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

describe('MachineSet remediation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  const condition = (m: Machine | undefined, type: string) => m?.status?.conditions?.find((c) => c.type === type);
  const byName = async (ns: string) => new Map((await machinesOf(h.client, ns)).map((m) => [m.metadata.name ?? '', m]));

  /**
   * Adds or removes the test's hold finalizer on the Machine as it is now (others add and remove theirs meanwhile: a
   * list from an older copy would bring back one the Machine controller removed, which kube refuses on a deleting object).
   */
  async function setHold(m: Machine, held: boolean): Promise<void> {
    await eventually(
      async () => {
        const cur = await h.client.get<Machine>(victimRef(m));
        const finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== HOLD_FINALIZER);
        if (held) finalizers.push(HOLD_FINALIZER);
        await h.client.patch(victimRef(m), 'merge', {
          metadata: { resourceVersion: cur.metadata.resourceVersion, finalizers },
        });
        return true;
      },
      `${held ? 'hold' : 'release'} ${m.metadata.name}`,
    );
  }

  /** What MHC writes on an unhealthy Machine (SSA on status with its own field manager). */
  async function markUnhealthy(m: Machine): Promise<void> {
    const lastTransitionTime = NOW();
    await h.client.apply(
      {
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        metadata: { name: m.metadata.name, namespace: m.metadata.namespace },
        status: {
          conditions: [
            {
              type: 'HealthCheckSucceeded',
              status: 'False',
              reason: 'UnhealthyNode',
              message: 'Condition Ready on Node is reported as False',
              lastTransitionTime,
            },
            {
              type: 'OwnerRemediated',
              status: 'False',
              reason: 'WaitingForRemediation',
              message: 'Waiting for remediation',
              lastTransitionTime,
            },
          ],
        },
      },
      { fieldManager: 'capi-machinehealthcheck', force: true, subresource: 'status' },
    );
  }

  async function provisionedMachines(ns: string, count: number): Promise<Machine[]> {
    return eventually(async () => {
      const list = (await machinesOf(h.client, ns)).filter((m) => !m.metadata.deletionTimestamp && m.status?.nodeRef);
      return list.length === count && list;
    }, `${count} provisioned Machines in ${ns}`);
  }

  async function setUp(ns: string, maxInFlight?: number): Promise<{ md: MachineDeployment; machines: Machine[] }> {
    const md = await createDeployment(h.client, ns, {
      replicas: 3,
      version: 'v1.30.0',
      maxSurge: 1,
      maxUnavailable: 0,
    });
    if (maxInFlight !== undefined) {
      await h.client.patch(
        { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: ns, name: 'md' },
        'merge',
        { spec: { remediation: { maxInFlight } } },
      );
    }
    return { md, machines: await provisionedMachines(ns, 3) };
  }

  it('deletes a Machine marked by MHC (OwnerRemediated MachineDeleting first) and replaces it', async () => {
    const ns = 'remediate-one';
    const { machines } = await setUp(ns);
    // The MD surfaces its current revision; its MachineSet has the same one, so it may remediate.
    const md = await h.client.get<MachineDeployment>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      namespace: ns,
      name: 'md',
    });
    const [ms] = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
    expect(md.metadata.annotations?.[REVISION_ANNOTATION]).toBe('1');
    expect(ms.metadata.annotations?.[REVISION_ANNOTATION]).toBe('1');

    const victim = machines[0];
    // Holds the Machine after its deletion so the condition written before the delete can be checked.
    await setHold(victim, true);
    await markUnhealthy(victim);

    const deleting = await eventually(async () => {
      const m = (await byName(ns)).get(victim.metadata.name ?? '');
      return m?.metadata.deletionTimestamp ? m : undefined;
    }, 'the marked Machine deleting');
    expect(condition(deleting, 'OwnerRemediated')).toMatchObject({
      status: 'False',
      reason: 'MachineDeleting',
      message: 'Machine is deleting',
    });
    const others = [...(await byName(ns)).values()].filter((m) => m.metadata.name !== victim.metadata.name);
    expect(others.every((m) => !m.metadata.deletionTimestamp)).toBe(true);
    await eventually(async () => {
      const status = (
        await h.client.get<MachineSet>({
          apiVersion: CLUSTER_API_VERSION,
          kind: 'MachineSet',
          namespace: ns,
          name: ms.metadata.name ?? '',
        })
      ).status;
      const c = status?.conditions?.find((x) => x.type === 'Remediating');
      return c?.status === 'True' && c.message?.includes(`Machine ${victim.metadata.name}: Machine is deleting`);
    }, 'MachineSet Remediating True while the remediation is in flight');

    await setHold(victim, false);
    const replaced = await provisionedMachines(ns, 3).catch(async (e) => {
      throw new Error(`${(e as Error).message}\n${await describeNamespace(h.client, ns)}`);
    });
    const names = replaced.map((m) => m.metadata.name);
    expect(names).not.toContain(victim.metadata.name);
    for (const m of machines.slice(1)) expect(names).toContain(m.metadata.name);
    await eventually(async () => {
      const status = (
        await h.client.get<MachineSet>({
          apiVersion: CLUSTER_API_VERSION,
          kind: 'MachineSet',
          namespace: ns,
          name: ms.metadata.name ?? '',
        })
      ).status;
      return status?.conditions?.find((c) => c.type === 'Remediating')?.reason === 'NotRemediating';
    }, 'MachineSet NotRemediating once replaced');
  });

  it('does not remediate while the Cluster is paused, and does once it is unpaused', async () => {
    const ns = 'remediate-paused';
    const { machines } = await setUp(ns);
    const cluster = { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', namespace: ns, name: 'c1' };
    const paused = await h.client.patch<KubeObject>(cluster, 'merge', { spec: { paused: true } });
    // The controllers read the Cluster from the informer cache: mark only once it shows the pause.
    expect(
      await h.app
        .get<InformerCache>(CACHE)
        .waitForResourceVersion(cluster, paused.metadata.resourceVersion ?? '', 10_000),
    ).toBe(true);
    const victim = machines[0];
    await markUnhealthy(victim);
    const [ms] = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
    // The MS reconciled after the mark (its Remediating condition saw it) yet left the Machine alone.
    await eventually(async () => {
      const status = (
        await h.client.get<MachineSet>({
          apiVersion: CLUSTER_API_VERSION,
          kind: 'MachineSet',
          namespace: ns,
          name: ms.metadata.name ?? '',
        })
      ).status;
      const c = status?.conditions?.find((x) => x.type === 'Remediating');
      return c?.status === 'True' && c.message?.includes('Waiting for remediation');
    }, 'MachineSet Remediating True while paused');
    const stillThere = (await byName(ns)).get(victim.metadata.name ?? '');
    expect(stillThere?.metadata.deletionTimestamp).toBeUndefined();
    expect(condition(stillThere, 'OwnerRemediated')?.reason).toBe('WaitingForRemediation');

    await h.client.patch(cluster, 'merge', { spec: { paused: false } });
    await eventually(
      async () =>
        !(await byName(ns)).get(victim.metadata.name ?? '')?.metadata.uid ||
        (await byName(ns)).get(victim.metadata.name ?? '')?.metadata.deletionTimestamp,
      'the Machine remediated after unpause',
    );
  });

  it('with maxInFlight 1 remediates two marked Machines one at a time', async () => {
    const ns = 'remediate-in-flight';
    const { machines } = await setUp(ns, 1);
    const [a, b] = machines;
    for (const m of [a, b]) await setHold(m, true);
    await markUnhealthy(a);
    await markUnhealthy(b);

    // One goes first (newest first, then by name); the other waits with RemediationDeferred.
    const { first, second } = await eventually(async () => {
      const now = await byName(ns);
      const [ma, mb] = [now.get(a.metadata.name ?? ''), now.get(b.metadata.name ?? '')];
      const deferred = [ma, mb].find((m) => condition(m, 'OwnerRemediated')?.reason === 'RemediationDeferred');
      const gone = [ma, mb].find((m) => m?.metadata.deletionTimestamp);
      return deferred && gone && { first: gone, second: deferred };
    }, 'one Machine deleting, the other deferred');
    expect(second.metadata.deletionTimestamp).toBeUndefined();
    expect(condition(first, 'OwnerRemediated')).toMatchObject({ reason: 'MachineDeleting' });
    expect(condition(second, 'OwnerRemediated')?.message).toBe(
      'Waiting because there are already too many remediations in progress (spec.strategy.remediation.maxInFlight is 1)',
    );

    // While the first is still deleting, the MS keeps reporting the waiting one and does not delete it.
    await eventually(async () => {
      const ms = await h.client.get<MachineSet>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'MachineSet',
        namespace: ns,
        name: first.metadata.ownerReferences?.[0]?.name ?? '',
      });
      return ms.status?.conditions?.find((c) => c.type === 'Remediating')?.status === 'True';
    }, 'MachineSet Remediating True while one Machine waits');
    expect((await byName(ns)).get(second.metadata.name ?? '')?.metadata.deletionTimestamp).toBeUndefined();

    await setHold(first, false);
    const secondDeleting = await eventually(async () => {
      const now = await byName(ns);
      const m = now.get(second.metadata.name ?? '');
      return !now.has(first.metadata.name ?? '') && m?.metadata.deletionTimestamp ? m : undefined;
    }, 'the first gone, then the second deleting');
    expect(condition(secondDeleting, 'OwnerRemediated')).toMatchObject({
      reason: 'MachineDeleting',
      message: 'Machine is deleting',
    });

    await setHold(second, false);
    const replaced = await provisionedMachines(ns, 3);
    const names = replaced.map((m) => m.metadata.name);
    expect(names).not.toContain(a.metadata.name);
    expect(names).not.toContain(b.metadata.name);
  });
});

function victimRef(m: Machine) {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    namespace: m.metadata.namespace,
    name: m.metadata.name ?? '',
  };
}
