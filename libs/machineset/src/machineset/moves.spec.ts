import { checkMoveHandshake, classifyMachines, isMovable, movePatch, planScaleDown } from './moves';
import { deletePriorityFunc } from './deletion-order';
import { machine, machineSet, NOW } from '../testing/fixtures';

const PENDING_ACK = 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move';
const IN_PROGRESS = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';
const MOVE = 'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset';
const RECEIVE = 'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets';
const ACK = 'in-place-updates.internal.cluster.x-k8s.io/acknowledged-move';
const names = (ms: { metadata: { name?: string } }[]) => ms.map((m) => m.metadata.name);

describe('classifyMachines', () => {
  it('ignores moved Machines until the MachineDeployment acknowledged them, then starts their update', () => {
    const ms = machineSet('new', { annotations: { [ACK]: 'b' } });
    const a = machine('a');
    const b = machine('b', { annotations: { [PENDING_ACK]: '', [IN_PROGRESS]: '' } });
    const c = machine('c', { annotations: { [PENDING_ACK]: '', [IN_PROGRESS]: '' } });
    const r = classifyMachines(ms, [a, b, c]);
    expect(names(r.counted)).toEqual(['a', 'b']);
    expect(names(r.toStartUpdate)).toEqual(['b']);
    expect(names(r.unacknowledged)).toEqual(['c']);
  });
});

describe('checkMoveHandshake', () => {
  const oldMS = machineSet('old', { annotations: { [MOVE]: 'new' } });
  it('holds when the target exists, is not deleting and accepts this MS', () => {
    const target = machineSet('new', { annotations: { [RECEIVE]: 'other,old' } });
    expect(checkMoveHandshake(oldMS, target).ok).toBe(true);
  });
  it.each([
    ['no annotation on the old MS', machineSet('old'), machineSet('new', { annotations: { [RECEIVE]: 'old' } }), 'no move-machines-to-machineset'],
    ['target missing', oldMS, undefined, 'does not exist'],
    ['target deleting', oldMS, { ...machineSet('new', { annotations: { [RECEIVE]: 'old' } }), metadata: { ...machineSet('new', { annotations: { [RECEIVE]: 'old' } }).metadata, deletionTimestamp: NOW.toISOString() } }, 'is being deleted'],
    ['target does not accept', oldMS, machineSet('new', { annotations: { [RECEIVE]: 'other' } }), 'does not accept Machines from old'],
  ])('fails when %s', (_label, from, target, message) => {
    const r = checkMoveHandshake(from, target);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(message);
  });
});

describe('planScaleDown', () => {
  const priority = deletePriorityFunc('Oldest', () => NOW);
  it('moves movable Machines in deletion order and deletes the others', () => {
    const deleting = machine('deleting', { deleting: true });
    const updating = machine('updating', { annotations: { [IN_PROGRESS]: '' } });
    const unhealthy = machine('unhealthy', { conditions: [{ type: 'HealthCheckSucceeded', status: 'False' }] });
    const oldest = machine('oldest', { created: '2025-01-01T00:00:00Z' });
    const young = machine('young', { created: '2026-01-09T00:00:00Z' });
    const plan = planScaleDown([young, oldest, unhealthy, updating, deleting], 4, priority, true);
    expect(names(plan.toDelete)).toEqual(['deleting', 'updating', 'unhealthy']);
    expect(names(plan.toMove)).toEqual(['oldest']);
  });
  it('deletes everything selected when moving is not allowed', () => {
    const plan = planScaleDown([machine('a'), machine('b')], 1, priority, false);
    expect(plan.toMove).toEqual([]);
    expect(names(plan.toDelete)).toEqual(['a']);
  });
  it('never moves Machines marked for remediation', () => {
    expect(isMovable(machine('r', { conditions: [{ type: 'OwnerRemediated', status: 'False' }] }))).toBe(false);
    expect(isMovable(machine('ok'))).toBe(true);
  });
});

describe('movePatch', () => {
  it('swaps selector labels, the controller owner and adds both markers in one patch', () => {
    const oldMS = machineSet('md-old', { hash: 'old' });
    const newMS = machineSet('md-new', { hash: 'new' });
    const m = machine('m1', { owner: 'md-old', labels: { 'cluster.x-k8s.io/deployment-name': 'md', 'machine-template-hash': 'old', 'cluster.x-k8s.io/set-name': 'md-old', keep: 'me' } });
    m.metadata.ownerReferences!.push({ apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'u' });
    m.metadata.resourceVersion = '42';
    const p = movePatch(m, oldMS, newMS);
    expect(p.metadata.labels).toEqual({ 'machine-template-hash': 'new', 'cluster.x-k8s.io/set-name': 'md-new' });
    expect(p.metadata.annotations).toEqual({ [PENDING_ACK]: '', [IN_PROGRESS]: '' });
    expect(p.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'u' },
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'md-new', uid: 'uid-md-new', controller: true, blockOwnerDeletion: true },
    ]);
    expect(p.metadata.resourceVersion).toBe('42');
  });
  it('drops old selector labels the new MS does not select on', () => {
    const oldMS = machineSet('md-old', { hash: 'old' });
    oldMS.spec.selector.matchLabels!['pool'] = 'a';
    const m = machine('m1', { labels: { pool: 'a', 'machine-template-hash': 'old' } });
    expect(movePatch(m, oldMS, machineSet('md-new', { hash: 'new' })).metadata.labels.pool).toBeNull();
  });
});
