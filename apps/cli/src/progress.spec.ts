import type { Condition, Machine } from '@capi/api';
import {
  blockingConditions,
  estimateRemainingMs,
  formatProgress,
  isRolloutDone,
  rolloutProgress,
  rolloutStart,
  type RolloutTarget,
} from './progress';

const cond = (type: string, status: Condition['status'], reason = type, message?: string): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  ...(message ? { message } : {}),
});
const machine = (uid: string, upToDate: boolean, updating = false): Machine =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: `m-${uid}`,
      uid,
      annotations: updating ? { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' } : {},
    },
    spec: {},
    status: { conditions: [cond('UpToDate', upToDate ? 'True' : 'False')] },
  }) as unknown as Machine;
const md = (status: RolloutTarget['status'], generation = 2): RolloutTarget => ({
  kind: 'MachineDeployment',
  metadata: { name: 'md', generation },
  spec: { replicas: 3 },
  status: { observedGeneration: 2, ...status },
});

describe('rolloutProgress', () => {
  const start = rolloutStart([machine('a', false), machine('b', false), machine('c', true)], 1_000);

  it('counts a kept UID brought up to date as in place and a new UID as replaced; one already up to date as neither', () => {
    const p = rolloutProgress(
      md({}),
      [machine('a', true), machine('c', true), machine('new', true), machine('b', false, true)],
      start,
    );
    expect(p).toEqual({ desired: 3, done: 3, inPlace: 1, replaced: 1, waiting: 0, updating: 1, extra: 1 });
  });

  it('does not count a Machine still updating in place as done', () => {
    const p = rolloutProgress(md({}), [machine('a', true, true), machine('b', false), machine('c', true)], start);
    expect(p).toMatchObject({ done: 1, inPlace: 0, waiting: 2, updating: 1 });
  });

  it('estimates the time left from the rate since the start, unknown before any progress', () => {
    const p = rolloutProgress(md({}), [machine('a', true), machine('b', false), machine('c', true)], start);
    expect(estimateRemainingMs(p, start, 61_000)).toBe(60_000);
    const none = rolloutProgress(md({}), [machine('a', false), machine('b', false), machine('c', true)], start);
    expect(estimateRemainingMs(none, start, 61_000)).toBeUndefined();
    expect(formatProgress(p, 60_000)).toBe(
      '[#############-------] 2/3 up to date (1 in place, 0 replaced), 1 waiting, ETA 60s',
    );
  });
});

describe('isRolloutDone', () => {
  const all = [machine('a', true), machine('b', true), machine('c', true)];
  const done = { replicas: 3, upToDateReplicas: 3, availableReplicas: 3 };

  it('is done when the counters and the Machines say every desired Machine is up to date and available', () => {
    expect(isRolloutDone(md(done), all)).toBe(true);
  });

  it.each([
    ['the controller has not seen the latest generation', md(done, 3), all],
    ['an old Machine is left', md({ ...done, replicas: 4 }), all],
    ['a Machine is not available', md({ ...done, availableReplicas: 2 }), all],
    [
      'a Machine is still updating in place',
      md(done),
      [machine('a', true), machine('b', true), machine('c', true, true)],
    ],
    ['a Machine is not up to date yet', md(done), [machine('a', true), machine('b', true), machine('c', false)]],
  ])('is not done when %s', (_, target, machines) => {
    expect(isRolloutDone(target, machines)).toBe(false);
  });
});

describe('blockingConditions', () => {
  it('lists negative-polarity conditions that are True and any other condition that is False, and updating Machines', () => {
    const target = md({
      conditions: [
        cond('Available', 'True'),
        cond('RollingOut', 'True', 'RollingOut', 'Rolling out 2 not up-to-date replicas'),
        cond('ScalingDown', 'False', 'NotScalingDown'),
        cond('SomePolicy', 'False', 'Blocked', 'line one\nline two'),
      ],
    });
    const updating = machine('a', false, true);
    updating.status!.conditions!.push(cond('Updating', 'True', 'InPlaceUpdating', 'waiting for the updater'));
    expect(blockingConditions(target, [updating, machine('b', true)])).toEqual([
      'MachineDeployment md: RollingOut=True RollingOut: Rolling out 2 not up-to-date replicas',
      'MachineDeployment md: SomePolicy=False Blocked: line one line two',
      'Machine m-a: Updating=True InPlaceUpdating: waiting for the updater',
    ]);
  });
});
