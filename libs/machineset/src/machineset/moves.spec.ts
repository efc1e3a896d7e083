import {
  checkMoveHandshake,
  machinesToStartInPlaceUpdate,
  movePatch,
  moveTargetProblem,
  planDeletions,
  planMoves,
  replicaDelta,
  shouldStartInPlaceUpdate,
} from './moves';
import { deletePriorityFunc } from './deletion-order';
import { machine, machineSet, NOW } from '../testing/fixtures';

const PENDING_ACK = 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move';
const IN_PROGRESS = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';
const MOVE = 'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset';
const RECEIVE = 'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets';
const ACK = 'in-place-updates.internal.cluster.x-k8s.io/acknowledged-move';
const PENDING_HOOKS = 'runtime.cluster.x-k8s.io/pending-hooks';
const names = (ms: { metadata: { name?: string } }[]) => ms.map((m) => m.metadata.name);
const moved = (name: string, extra: Record<string, string> = {}) =>
  machine(name, { annotations: { [PENDING_ACK]: '', [IN_PROGRESS]: '', ...extra } });
const unhealthyRemediated = (name: string, extra: Parameters<typeof machine>[1] = {}) =>
  machine(name, {
    ...extra,
    conditions: [
      { type: 'HealthCheckSucceeded', status: 'False' },
      { type: 'OwnerRemediated', status: 'False' },
    ],
  });

describe('shouldStartInPlaceUpdate', () => {
  it('waits for the acknowledgement while the MS receives Machines, then starts', () => {
    const ms = machineSet('new', { annotations: { [RECEIVE]: 'old', [ACK]: 'b' } });
    expect(names(machinesToStartInPlaceUpdate(ms, [machine('a'), moved('b'), moved('c')]))).toEqual(['b']);
  });
  it.each([
    ['the receive annotation is gone', {}],
    ['the receive annotation is empty', { [RECEIVE]: '' }],
  ])('starts an unacknowledged moved Machine when %s (the MS no longer receives Machines)', (_label, annotations) => {
    expect(shouldStartInPlaceUpdate(machineSet('new', { annotations }), moved('m'))).toBe(true);
  });
  it('starts an update-in-progress Machine without pending acknowledgement (a start interrupted before its last patch)', () => {
    expect(
      shouldStartInPlaceUpdate(
        machineSet('new', { annotations: { [RECEIVE]: 'old' } }),
        machine('m', { annotations: { [IN_PROGRESS]: '' } }),
      ),
    ).toBe(true);
  });
  it('does nothing for Machines not marked, or already handed to the Machine controller', () => {
    const ms = machineSet('new');
    expect(shouldStartInPlaceUpdate(ms, machine('plain'))).toBe(false);
    expect(
      shouldStartInPlaceUpdate(
        ms,
        machine('started', { annotations: { [IN_PROGRESS]: '', [PENDING_HOOKS]: 'UpdateMachine' } }),
      ),
    ).toBe(false);
    expect(
      shouldStartInPlaceUpdate(ms, machine('pending-only', { annotations: { [PENDING_HOOKS]: 'UpdateMachine' } })),
    ).toBe(false);
  });
});

describe('replicaDelta', () => {
  it('creates for missing replicas counting every Machine, moved ones pending acknowledgement too', () => {
    expect(replicaDelta(machineSet('ms', { replicas: 3 }), [machine('a')])).toBe(2);
    expect(
      replicaDelta(machineSet('ms', { replicas: 3, annotations: { [RECEIVE]: 'old' } }), [
        machine('a'),
        moved('b'),
        moved('c'),
      ]),
    ).toBe(0);
  });
  it('does not remove Machines for moved ones a receiving MS has not had acknowledged', () => {
    const ms = machineSet('ms', { replicas: 1, annotations: { [RECEIVE]: 'old' } });
    expect(replicaDelta(ms, [machine('a'), moved('b'), moved('c')])).toBe(0);
    expect(replicaDelta(ms, [machine('a'), machine('d'), moved('b')])).toBe(-1);
    expect(replicaDelta({ ...ms, spec: { ...ms.spec, replicas: 2 } }, [machine('a'), moved('b'), moved('c')])).toBe(0);
  });
  it('removes moved ones like any other Machine once the MS no longer receives Machines', () => {
    expect(replicaDelta(machineSet('ms', { replicas: 1 }), [machine('a'), moved('b')])).toBe(-1);
  });
});

describe('checkMoveHandshake', () => {
  const oldMS = machineSet('old', { annotations: { [MOVE]: 'new' } });
  it('holds when the target exists, is not deleting and accepts this MS', () => {
    const target = machineSet('new', { annotations: { [RECEIVE]: 'other,old' } });
    expect(checkMoveHandshake(oldMS, target).ok).toBe(true);
  });
  const deletingTarget = machineSet('new', { annotations: { [RECEIVE]: 'old' } });
  deletingTarget.metadata.deletionTimestamp = NOW.toISOString();
  it.each([
    [
      'no annotation on the old MS',
      machineSet('old'),
      machineSet('new', { annotations: { [RECEIVE]: 'old' } }),
      'no move-machines-to-machineset',
    ],
    ['target missing', oldMS, undefined, 'does not exist'],
    ['target deleting', oldMS, deletingTarget, 'is being deleted'],
    [
      'target does not accept',
      oldMS,
      machineSet('new', { annotations: { [RECEIVE]: 'other' } }),
      'new only accepts Machines from other',
    ],
  ])('fails when %s', (_label, from, target, message) => {
    const r = checkMoveHandshake(from, target);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(message);
  });
});

// Upstream TestMachineSetReconciler_startMoveMachines "should fail when target MS doesn't have a unique label".
describe('moveTargetProblem', () => {
  it('refuses a target MachineSet without the machine-template-hash label', () => {
    const target = machineSet('ms2', { annotations: { [RECEIVE]: 'ms1,ms3' } });
    expect(moveTargetProblem(target)).toBe('MachineSet ms2 does not have the machine-template-hash label');
    target.metadata.labels = { ...target.metadata.labels, 'machine-template-hash': '456' };
    expect(moveTargetProblem(target)).toBeUndefined();
  });
});

describe('planMoves', () => {
  const priority = deletePriorityFunc('Oldest', () => NOW);
  it('skips updating Machines and Machines without a Node, counts deleting ones, deletes unhealthy + remediated ones', () => {
    const deleting = machine('deleting', { deleting: true });
    const updating = machine('updating', { annotations: { [IN_PROGRESS]: '' } });
    const pendingAck = moved('pending-ack');
    const noNode = machine('no-node', { nodeRef: false });
    const remediate = unhealthyRemediated('remediate');
    const oldest = machine('oldest', { created: '2025-01-01T00:00:00Z' });
    const young = machine('young', { created: '2026-01-09T00:00:00Z' });
    const plan = planMoves([young, oldest, remediate, noNode, updating, pendingAck, deleting], 3, priority);
    expect(names(plan.toDelete)).toEqual(['remediate']);
    expect(names(plan.toMove)).toEqual(['oldest']);
  });
  it('moves delete-machine annotated Machines and Machines only unhealthy (not yet marked for remediation)', () => {
    const annotated = machine('annotated', { annotations: { 'cluster.x-k8s.io/delete-machine': '' } });
    const unhealthy = machine('unhealthy', { conditions: [{ type: 'HealthCheckSucceeded', status: 'False' }] });
    const plan = planMoves([machine('other'), unhealthy, annotated], 2, priority);
    expect(names(plan.toMove)).toEqual(['annotated', 'unhealthy']);
    expect(plan.toDelete).toEqual([]);
  });
  it('moves fewer than asked, never deleting, when the only candidates are updating in place', () => {
    const plan = planMoves(
      [
        machine('u1', { annotations: { [IN_PROGRESS]: '' } }),
        machine('u2', { annotations: { [PENDING_HOOKS]: 'UpdateMachine' } }),
        machine('ok'),
      ],
      3,
      priority,
    );
    expect(names(plan.toMove)).toEqual(['ok']);
    expect(plan.toDelete).toEqual([]);
  });
});

describe('planDeletions', () => {
  it('takes the first Machines in deletion order and waits for those already deleting', () => {
    const priority = deletePriorityFunc('Random', () => NOW);
    expect(
      names(planDeletions([machine('b'), machine('a'), machine('gone', { deleting: true })], 2, priority)),
    ).toEqual(['a']);
  });
});

describe('movePatch', () => {
  it('carries the updaters that accepted the change from the old MachineSet, and clears a stale value', () => {
    const UPDATERS = 'in-place-updates.capi-inplace.io/updaters';
    const newMS = machineSet('md-new', { hash: 'new' });
    const withUpdaters = machineSet('md-old', { hash: 'old', annotations: { [UPDATERS]: 'a-updater,b-updater' } });
    expect(movePatch(machine('m1', { owner: 'md-old' }), withUpdaters, newMS).metadata.annotations[UPDATERS]).toBe(
      'a-updater,b-updater',
    );
    const stale = machine('m2', { owner: 'md-old', annotations: { [UPDATERS]: 'old-one' } });
    expect(movePatch(stale, machineSet('md-old', { hash: 'old' }), newMS).metadata.annotations[UPDATERS]).toBeNull();
  });
  it('swaps selector labels, the controller owner and adds both markers in one patch', () => {
    const oldMS = machineSet('md-old', { hash: 'old' });
    const newMS = machineSet('md-new', { hash: 'new' });
    const m = machine('m1', {
      owner: 'md-old',
      labels: {
        'cluster.x-k8s.io/deployment-name': 'md',
        'machine-template-hash': 'old',
        'cluster.x-k8s.io/set-name': 'md-old',
        keep: 'me',
      },
    });
    m.metadata.ownerReferences!.push({ apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'u' });
    m.metadata.resourceVersion = '42';
    const p = movePatch(m, oldMS, newMS);
    expect(p.metadata.labels).toEqual({ 'machine-template-hash': 'new', 'cluster.x-k8s.io/set-name': 'md-new' });
    expect(p.metadata.annotations).toEqual({ [PENDING_ACK]: '', [IN_PROGRESS]: '' });
    expect(p.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'u' },
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachineSet',
        name: 'md-new',
        uid: 'uid-md-new',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    // Unguarded, as upstream's startMoveMachines (client.MergeFrom without the optimistic lock).
    expect(p.metadata).not.toHaveProperty('resourceVersion');
  });
  it('drops old selector labels the new MS does not select on', () => {
    const oldMS = machineSet('md-old', { hash: 'old' });
    oldMS.spec.selector.matchLabels!['pool'] = 'a';
    const m = machine('m1', { labels: { pool: 'a', 'machine-template-hash': 'old' } });
    expect(movePatch(m, oldMS, machineSet('md-new', { hash: 'new' })).metadata.labels.pool).toBeNull();
  });
});
