import {
  aggregate,
  getCondition,
  isFalse,
  isTrue,
  isUnknown,
  mirror,
  removeCondition,
  setCondition,
  setConditionOn,
  type Condition,
} from './conditions';
import type { PassiveClock } from '@capi/apimachinery';

const clockAt = (iso: string): PassiveClock => ({ now: () => Date.parse(iso) });
const t0 = clockAt('2026-01-01T00:00:00.123Z');
const t1 = clockAt('2026-01-01T01:00:00Z');

describe('setCondition', () => {
  it('adds a new condition with lastTransitionTime from the clock (second precision)', () => {
    const out = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Ready' }, t0);
    expect(out).toEqual([
      { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
  });

  it('keeps lastTransitionTime when only reason/message change', () => {
    const a = setCondition([], { type: 'Updating', status: 'True', reason: 'InPlaceUpdating' }, t0);
    const b = setCondition(a, { type: 'Updating', status: 'True', reason: 'InPlaceUpdateFailed', message: 'x' }, t1);
    expect(b[0]).toMatchObject({
      reason: 'InPlaceUpdateFailed',
      message: 'x',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
  });

  it('changes lastTransitionTime when status changes', () => {
    const a = setCondition([], { type: 'Updating', status: 'True', reason: 'InPlaceUpdating' }, t0);
    const b = setCondition(a, { type: 'Updating', status: 'False', reason: 'NotUpdating' }, t1);
    expect(b[0].lastTransitionTime).toBe('2026-01-01T01:00:00Z');
  });

  it('returns identical condition objects when nothing changes and does not mutate the input', () => {
    const a = setCondition([], { type: 'Ready', status: 'True', reason: 'Ready', observedGeneration: 2 }, t0);
    const b = setCondition(a, { type: 'Ready', status: 'True', reason: 'Ready', observedGeneration: 2 }, t1);
    expect(b[0]).toBe(a[0]);
    const c = setCondition(a, { type: 'Other', status: 'False', reason: 'R' }, t1);
    expect(a).toHaveLength(1);
    expect(c.map((x) => x.type)).toEqual(['Ready', 'Other']);
  });
});

describe('setConditionOn', () => {
  it('defaults observedGeneration to metadata.generation and creates status', () => {
    const obj: { metadata: { generation: number }; status?: { conditions?: Condition[] } } = {
      metadata: { generation: 7 },
    };
    setConditionOn(obj, { type: 'UpToDate', status: 'False', reason: 'NotUpToDate' }, t0);
    expect(obj.status?.conditions?.[0]).toMatchObject({ observedGeneration: 7, status: 'False' });
  });
});

describe('getters and removeCondition', () => {
  const conds = setCondition(
    setCondition([], { type: 'A', status: 'True', reason: 'r' }, t0),
    { type: 'B', status: 'False', reason: 'r' },
    t0,
  );
  it('reads statuses from lists and objects', () => {
    expect(isTrue(conds, 'A')).toBe(true);
    expect(isFalse(conds, 'B')).toBe(true);
    expect(isUnknown(conds, 'C')).toBe(true);
    expect(isTrue({ metadata: {}, status: { conditions: conds } }, 'A')).toBe(true);
    expect(getCondition(undefined, 'A')).toBeUndefined();
  });
  it('removes by type', () => {
    expect(removeCondition(conds, 'A').map((c) => c.type)).toEqual(['B']);
  });
});

describe('mirror', () => {
  it('copies status/reason/message under a new type', () => {
    const src = {
      kind: 'Machine',
      metadata: { name: 'm' },
      status: {
        conditions: setCondition([], { type: 'Ready', status: 'False', reason: 'NotReady', message: 'node down' }, t0),
      },
    };
    expect(mirror(src, 'Ready', { targetType: 'MachineReady' })).toEqual({
      type: 'MachineReady',
      status: 'False',
      reason: 'NotReady',
      message: 'node down',
    });
  });
  it('falls back to Unknown when the source has no such condition', () => {
    expect(mirror({ kind: 'DockerMachine', metadata: {} }, 'Ready')).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'NotYetReported',
      message: 'Condition Ready not yet reported from DockerMachine',
    });
  });
});

describe('aggregate', () => {
  const machine = (name: string, status?: 'True' | 'False' | 'Unknown', message?: string) => ({
    metadata: { name },
    status: {
      conditions: status
        ? setCondition(
            [],
            { type: 'UpToDate', status, reason: status === 'True' ? 'UpToDate' : 'NotUpToDate', message },
            t0,
          )
        : [],
    },
  });
  const opts = {
    targetType: 'MachinesUpToDate',
    trueReason: 'UpToDate',
    falseReason: 'NotUpToDate',
    unknownReason: 'UpToDateUnknown',
    noObjects: { status: 'True' as const, reason: 'NoReplicas' },
  };

  it('is True when every object is True', () => {
    expect(aggregate([machine('a', 'True'), machine('b', 'True')], 'UpToDate', opts)).toEqual({
      type: 'MachinesUpToDate',
      status: 'True',
      reason: 'UpToDate',
    });
  });
  it('uses the no-objects result for an empty list', () => {
    expect(aggregate([], 'UpToDate', opts)).toEqual({ type: 'MachinesUpToDate', status: 'True', reason: 'NoReplicas' });
  });
  it('is False when any object is False and groups names by message', () => {
    const r = aggregate(
      [
        machine('c', 'False', 'Version 1.31 required'),
        machine('a', 'False', 'Version 1.31 required'),
        machine('b', 'True'),
        machine('d'),
      ],
      'UpToDate',
      opts,
    );
    expect(r.status).toBe('False');
    expect(r.reason).toBe('NotUpToDate');
    expect(r.message).toBe('* Machines a, c: Version 1.31 required\n* Machine d: Condition UpToDate not yet reported');
  });
  it('is Unknown when nothing is False but something is missing, and truncates long name lists', () => {
    const r = aggregate(
      ['a', 'b', 'c', 'd', 'e'].map((n) => machine(n)),
      'UpToDate',
      opts,
    );
    expect(r).toMatchObject({ status: 'Unknown', reason: 'UpToDateUnknown' });
    expect(r.message).toBe('* Machines a, b, c, ... (2 more): Condition UpToDate not yet reported');
  });
});
