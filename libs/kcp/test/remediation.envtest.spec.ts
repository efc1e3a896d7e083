// KCP remediation on envtest with the Machine controller and the in-memory provider: Machines marked the way MHC
// marks them are deleted one at a time and replaced by the regular scale up.
import { realClock } from '@capi/apimachinery';
import {
  KCP_REMEDIATION_FOR_ANNOTATION,
  KCP_REMEDIATION_IN_PROGRESS_ANNOTATION,
  OWNER_REMEDIATED_CONDITION,
  REMEDIATING_CONDITION,
  UP_TO_DATE_CONDITION,
  getCondition,
  type Condition,
  type Machine,
} from '@capi/api';
import type { WatchHandle } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { decideMachineMarking, MHC_FIELD_MANAGER } from '@capi/mhc';
import { createControlPlane, getKcp, listMachines, startKcpHarness, NS, type KcpHarness } from './support/harness';
import { parseRemediationData } from '../src/remediation';

jest.setTimeout(90_000);

const POLL = { timeoutMs: 40_000, intervalMs: 200 };

/** Applies HealthCheckSucceeded=False / OwnerRemediated=False exactly like the MHC controller does. */
async function markUnhealthyAsMhc(h: KcpHarness, machine: Machine, remediationAllowed = true): Promise<void> {
  const marking = decideMachineMarking(
    machine,
    { state: 'Unhealthy', reason: 'UnhealthyNode', message: 'Node is not ready' },
    { remediationAllowed, clusterPaused: false, clock: realClock },
  );
  expect(marking.remediationRequested).toBe(remediationAllowed);
  await applyAsMhc(h, machine, marking.conditions);
}

/** MHC finds the Machine healthy again. */
async function markHealthyAsMhc(h: KcpHarness, machine: Machine): Promise<void> {
  const marking = decideMachineMarking(
    machine,
    { state: 'Healthy' },
    { remediationAllowed: true, clusterPaused: false, clock: realClock },
  );
  await applyAsMhc(h, machine, marking.conditions);
}

async function applyAsMhc(h: KcpHarness, machine: Machine, conditions: Condition[]): Promise<void> {
  await h.client.apply(
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name: machine.metadata.name, namespace: NS, uid: machine.metadata.uid },
      status: { conditions },
    },
    { fieldManager: MHC_FIELD_MANAGER, force: true, subresource: 'status' },
  );
}

async function stableMachines(h: KcpHarness, replicas: number, message: string): Promise<Machine[]> {
  return eventually(
    async () => {
      const kcp = await getKcp(h.client);
      const ms = await listMachines(h.client);
      const ok =
        kcp.status?.replicas === replicas &&
        ms.length === replicas &&
        ms.every(
          (m) =>
            m.status?.nodeRef &&
            !m.metadata.deletionTimestamp &&
            getCondition(m, UP_TO_DATE_CONDITION)?.status === 'True',
        );
      return ok ? ms : undefined;
    },
    { ...POLL, message },
  );
}

/** Every Machine event in order, and the most Machines seen deleting at once. */
async function recordMachines(
  h: KcpHarness,
): Promise<{ events: Machine[]; maxDeleting: () => number; stop: () => void }> {
  const deleting = new Set<string>();
  const events: Machine[] = [];
  let max = 0;
  const handle: WatchHandle = await h.client.watch<Machine>(
    'cluster.x-k8s.io/v1beta2',
    'Machine',
    { namespace: NS },
    (ev) => {
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') return;
      const name = ev.object.metadata.name!;
      if (ev.type === 'DELETED' || !ev.object.metadata.deletionTimestamp) deleting.delete(name);
      else deleting.add(name);
      max = Math.max(max, deleting.size);
      if (ev.type !== 'DELETED') events.push(ev.object);
    },
  );
  return { events, maxDeleting: () => max, stop: () => handle.stop() };
}

const byName = (ms: Machine[], name: string) => ms.find((m) => m.metadata.name === name);
const remediationFor = (m: Machine) => {
  const v = m.metadata.annotations?.[KCP_REMEDIATION_FOR_ANNOTATION];
  return v === undefined ? undefined : parseRemediationData(KCP_REMEDIATION_FOR_ANNOTATION, v);
};

describe('KubeadmControlPlane remediation', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 3 });
  });
  afterAll(async () => h?.close());

  it('deletes a marked Machine and replaces it; a second marked Machine waits for the first remediation', async () => {
    const initial = await stableMachines(h, 3, '3 stable control plane Machines');
    const [first, second] = initial.map((m) => m.metadata.name!).sort();
    const recorder = await recordMachines(h);

    await markUnhealthyAsMhc(h, byName(initial, first)!);
    // While the first is being deleted (remediation in progress), MHC marks a second one.
    // (Deletion can complete between two polls, so "gone" counts as well; the replacement is not ready yet then.)
    await eventually(
      async () => {
        const m = byName(await listMachines(h.client), first);
        return !m || m.metadata.deletionTimestamp !== undefined;
      },
      { ...POLL, message: `${first} deleting` },
    );
    await markUnhealthyAsMhc(h, byName(await listMachines(h.client), second)!);

    // The first is replaced by a Machine carrying the retry data.
    const replacement = await eventually(
      async () => (await listMachines(h.client)).find((m) => remediationFor(m)?.machine === first && m.status?.nodeRef),
      { ...POLL, message: `replacement of ${first} with a Node` },
    );
    expect(remediationFor(replacement)).toMatchObject({ machine: first, retryCount: 0 });

    // Then the second is remediated too, and replaced.
    const final = await eventually(
      async () => {
        const ms = await stableMachines(h, 3, '3 stable Machines after both remediations');
        return ms.some((m) => remediationFor(m)?.machine === second) && !byName(ms, first) && !byName(ms, second)
          ? ms
          : undefined;
      },
      { ...POLL, timeoutMs: 60_000, message: `${second} remediated and replaced` },
    );
    recorder.stop();

    // One Machine at a time: never two deleting, and the second was deleted only after the first's replacement had a Node.
    expect(recorder.maxDeleting()).toBe(1);
    const idx = (pred: (m: Machine) => boolean) => recorder.events.findIndex(pred);
    const replacementReady = idx((m) => m.metadata.name === replacement.metadata.name && !!m.status?.nodeRef);
    const secondDeleting = idx((m) => m.metadata.name === second && !!m.metadata.deletionTimestamp);
    const firstDeleting = idx((m) => m.metadata.name === first && !!m.metadata.deletionTimestamp);
    expect(firstDeleting).toBeGreaterThanOrEqual(0);
    expect(replacementReady).toBeGreaterThan(firstDeleting);
    expect(secondDeleting).toBeGreaterThan(replacementReady);
    // KCP reported on the Machines: MachineDeleting on the remediated ones; the second one was never marked by KCP
    // as deleting before its turn.
    const reasons = (name: string) =>
      recorder.events
        .filter((m) => m.metadata.name === name)
        .map((m) => getCondition(m, OWNER_REMEDIATED_CONDITION)?.reason);
    expect(reasons(first)).toContain('MachineDeleting');
    expect(reasons(second)).toContain('MachineDeleting');
    expect(reasons(second).indexOf('MachineDeleting')).toBeGreaterThan(
      reasons(second).indexOf('WaitingForRemediation'),
    );

    const kcp = await eventually(
      async () => {
        const k = await getKcp(h.client);
        return getCondition(k, REMEDIATING_CONDITION)?.status === 'False' ? k : undefined;
      },
      { ...POLL, message: 'Remediating=False' },
    );
    expect(getCondition(kcp, REMEDIATING_CONDITION)?.reason).toBe('NotRemediating');
    expect(kcp.metadata.annotations?.[KCP_REMEDIATION_IN_PROGRESS_ANNOTATION]).toBeUndefined();
    expect(kcp.status?.lastRemediation).toMatchObject({ machine: second, retryCount: 0 });
    expect(final).toHaveLength(3);
  });

  it('a marked Machine whose removal would lose etcd quorum is blocked with CannotBeRemediated; healthy again, KCP removes the condition', async () => {
    const machines = await stableMachines(h, 3, '3 stable control plane Machines');
    const [a, b] = [...machines].sort((x, y) => x.metadata.name!.localeCompare(y.metadata.name!));
    // a is unhealthy but MHC does not ask for its remediation (e.g. maxUnhealthy exceeded); b is marked.
    await markUnhealthyAsMhc(h, a, false);
    await markUnhealthyAsMhc(h, b);
    const blocked = await eventually(
      async () => {
        const c = getCondition(byName(await listMachines(h.client), b.metadata.name!)!, OWNER_REMEDIATED_CONDITION);
        return c?.reason === 'CannotBeRemediated' ? c : undefined;
      },
      { ...POLL, message: 'OwnerRemediated=False/CannotBeRemediated' },
    );
    expect(blocked.message).toContain('etcd losing quorum');
    // KCP writes its own status after the Machine's condition, at the end of the same reconcile (as upstream's
    // deferred patch): wait for it rather than read it once.
    await eventually(
      async () => {
        const c = getCondition(await getKcp(h.client), REMEDIATING_CONDITION);
        return c?.status === 'True' && c.reason === 'Remediating';
      },
      { ...POLL, message: 'KCP Remediating=True/Remediating' },
    );

    const now = await listMachines(h.client);
    // b first: with a healthy again, b would be remediated right away.
    await markHealthyAsMhc(h, byName(now, b.metadata.name!)!);
    await markHealthyAsMhc(h, byName(now, a.metadata.name!)!);
    await eventually(
      async () => {
        const ms = await listMachines(h.client);
        return [a, b].every(
          (m) => getCondition(byName(ms, m.metadata.name!)!, OWNER_REMEDIATED_CONDITION) === undefined,
        );
      },
      { ...POLL, message: 'OwnerRemediated removed from both Machines' },
    );
    const after = await listMachines(h.client);
    expect(after.map((m) => m.metadata.uid).sort()).toEqual(machines.map((m) => m.metadata.uid).sort());
    await eventually(async () => getCondition(await getKcp(h.client), REMEDIATING_CONDITION)?.status === 'False', {
      ...POLL,
      message: 'Remediating=False',
    });
  });
});
