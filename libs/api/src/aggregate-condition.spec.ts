// Cases from upstream util/conditions aggregate_test.go (TestAggregate) and merge_strategies_test.go
// (TestAggregateMessages), through newAggregateCondition.
import { aggregateSourceOf, newAggregateCondition, pluralizeKind, type AggregateSource } from './aggregate-condition';
import type { Condition, ConditionStatus } from './schema/meta';

const cond = (type: string, status: ConditionStatus, reason: string, message?: string): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: '',
  ...(message !== undefined ? { message } : {}),
});
const A = 'Available';
const S = 'ScalingUp';
/** obj0, obj1, ... of kind Phase3Obj, one list of conditions each. */
const objs = (conditions: Condition[][]): AggregateSource[] =>
  conditions.map((c, i) => ({ kind: 'Phase3Obj', name: `obj${i}`, conditions: c }));

describe('newAggregateCondition (upstream TestAggregate)', () => {
  it.each<[string, Condition[][], string, Parameters<typeof newAggregateCondition>[2], object]>([
    [
      'One issue',
      [[cond(A, 'False', 'Reason-1', 'Message-1')], [cond(A, 'True', 'Reason-99', 'Message-99')]],
      A,
      {},
      { type: A, status: 'False', reason: 'IssuesReported', message: '* Phase3Obj obj0: Message-1' },
    ],
    [
      'One issue with negative polarity',
      [[cond(S, 'True', 'Reason-1', 'Message-1')], [cond(S, 'False', 'Reason-99', 'Message-99')]],
      S,
      { negativePolarity: [S] },
      { type: S, status: 'True', reason: 'IssuesReported', message: '* Phase3Obj obj0: Message-1' },
    ],
    [
      'One issue with custom merge strategy',
      [[cond(S, 'True', 'Reason-1', 'Message-1')], [cond(S, 'False', 'Reason-99', 'Message-99')]],
      S,
      {
        negativePolarity: [S],
        targetPositivePolarity: true,
        reasons: { issue: 'bad', unknown: 'unknown', info: 'good' },
      },
      { type: S, status: 'False', reason: 'bad', message: '* Phase3Obj obj0: Message-1' },
    ],
    [
      'One issue with custom merge strategy (negative polarity)',
      [[cond(S, 'True', 'Reason-1', 'Message-1')], [cond(S, 'False', 'Reason-99', 'Message-99')]],
      S,
      {
        negativePolarity: [S],
        targetPositivePolarity: false,
        reasons: { issue: 'good', unknown: 'unknown', info: 'bad' },
      },
      { type: S, status: 'True', reason: 'good', message: '* Phase3Obj obj0: Message-1' },
    ],
    [
      'One issue with target type and negative polarity',
      [[cond(S, 'True', 'Reason-1', 'Message-1')], [cond(S, 'False', 'Reason-99', 'Message-99')]],
      S,
      { targetType: 'SomethingAvailable', negativePolarity: [S] },
      { type: 'SomethingAvailable', status: 'True', reason: 'IssuesReported', message: '* Phase3Obj obj0: Message-1' },
    ],
    [
      'Same issue from more than three objects',
      [
        ...Array.from({ length: 4 }, () => [cond(A, 'False', 'Reason-1', 'Message-1')]),
        [cond(A, 'False', 'Reason-B', 'Message-1')],
        [cond(A, 'True', '', 'Message-99')],
      ],
      A,
      {},
      {
        type: A,
        status: 'False',
        reason: 'IssuesReported',
        message: '* Phase3Objs obj0, obj1, obj2, ... (2 more): Message-1',
      },
    ],
    [
      'Up to three different issue messages; if message is a list, it should be indented',
      [
        [cond(A, 'False', 'Reason-1', '* Message-1')],
        [cond(A, 'False', 'Reason-2', '* Message-2A\n* Message-2B')],
        [cond(A, 'False', 'Reason-2', '* Message-2A\n* Message-2B')],
        [cond(A, 'False', 'Reason-1', '* Message-1')],
        [cond(A, 'False', 'Reason-1', '* Message-1')],
        [cond(A, 'False', 'Reason-3', '* Message-3')],
        [cond(A, 'True', 'Reason-99', 'Message-99')],
      ],
      A,
      {},
      {
        type: A,
        status: 'False',
        reason: 'IssuesReported',
        message:
          '* Phase3Objs obj0, obj3, obj4:\n  * Message-1\n* Phase3Objs obj1, obj2:\n  * Message-2A\n  * Message-2B\n' +
          '* Phase3Obj obj5:\n  * Message-3',
      },
    ],
    [
      'More than three different issue messages',
      [
        [cond(A, 'False', 'Reason-1', 'Message-1')],
        [cond(A, 'False', 'Reason-2', 'Message-2')],
        [cond(A, 'False', 'Reason-4', 'Message-4')],
        [cond(A, 'False', 'Reason-5', 'Message-5')],
        [cond(A, 'False', 'Reason-1', 'Message-1')],
        [cond(A, 'False', 'Reason-3', 'Message-3')],
        [cond(A, 'True', 'Reason-99', 'Message-99')],
      ],
      A,
      {},
      {
        type: A,
        status: 'False',
        reason: 'IssuesReported',
        message:
          '* Phase3Objs obj0, obj4: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj2: Message-4\n' +
          'And 2 Phase3Objs with other issues',
      },
    ],
    [
      'At least 3 issue messages and unknown message',
      [
        [cond(A, 'False', 'Reason-1', 'Message-1')],
        [cond(A, 'False', 'Reason-2', 'Message-2')],
        [cond(A, 'Unknown', 'Reason-3', 'Message-3')],
        [cond(A, 'False', 'Reason-4', 'Message-4')],
        [cond(A, 'True', 'Reason-99', 'Message-99')],
      ],
      A,
      {},
      {
        type: A,
        status: 'False',
        reason: 'IssuesReported',
        message:
          '* Phase3Obj obj0: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj3: Message-4\n' +
          'And 1 Phase3Obj with status unknown',
      },
    ],
    [
      'info messages',
      [
        [cond(A, 'True', 'Reason-1', 'Message-1')],
        [cond(A, 'True', 'Reason-2', 'Message-2')],
        [cond(A, 'True', 'Reason-4', 'Message-4')],
        [cond(A, 'True', 'Reason-5', '')],
        [cond(A, 'True', 'Reason-1', 'Message-1')],
        [cond(A, 'True', 'Reason-3', 'Message-3')],
      ],
      A,
      {},
      {
        type: A,
        status: 'True',
        reason: 'InfoReported',
        message:
          '* Phase3Objs obj0, obj4: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj2: Message-4\n' +
          'And 1 Phase3Obj with additional info',
      },
    ],
    [
      'Missing conditions are defaulted why a custom target condition type',
      [[cond(A, 'False', 'Reason-1', 'Message-1')], []],
      A,
      { targetType: 'SomethingAvailable' },
      {
        type: 'SomethingAvailable',
        status: 'False',
        reason: 'IssuesReported',
        message: '* Phase3Obj obj0: Message-1\n* Phase3Obj obj1: Condition Available not yet reported',
      },
    ],
  ])('%s', (_name, conditions, type, options, want) => {
    expect(newAggregateCondition(objs(conditions), type, options)).toEqual(want);
  });

  it('Error if negative polarity conditions are misconfigured', () => {
    expect(() =>
      newAggregateCondition(objs([[cond(S, 'True', 'Reason-1')]]), S, { negativePolarity: ['foo'] }),
    ).toThrow('negativePolarityConditionTypes can only be set to ["ScalingUp"]');
  });
  it('an empty list of objects is an error', () => {
    expect(() => newAggregateCondition([], A)).toThrow("sourceObjs can't be empty");
  });
});

describe('aggregate messages (upstream TestAggregateMessages)', () => {
  const owned = (
    kind: string,
    name: string,
    message: string,
    status: ConditionStatus,
    cp = false,
  ): AggregateSource => ({
    kind,
    name,
    isControlPlaneMachine: cp,
    conditions: [cond('A', status, 'R', message)],
  });
  it('Groups by kind, return max 3 messages, aggregate objects, count others', () => {
    const md = (name: string, m: string) => owned('MachineDeployment', name, m, 'False');
    const sources = [
      md('obj02', 'Message-1'),
      md('obj01', 'Message-1'),
      md('obj04', '* Message-2'),
      md('obj03', '* Message-2'),
      md('obj06', '* Message-3A\n* Message-3B'),
      md('obj05', 'Message-1'),
      md('obj08', 'Message-1'),
      md('obj07', 'Message-4'),
      md('obj09', 'Message-1'),
      md('obj10', 'Message-5'),
      owned('MachineSet', 'obj11', 'Message-1', 'False'),
      owned('MachineSet', 'obj12', 'Message-1', 'False'),
    ];
    expect(newAggregateCondition(sources, 'A').message.split('\n')).toEqual([
      '* MachineDeployments obj01, obj02, obj05, ... (2 more): Message-1',
      '* MachineDeployments obj03, obj04:',
      '  * Message-2',
      '* MachineDeployment obj06:',
      '  * Message-3A',
      '  * Message-3B',
      'And 2 MachineDeployments with other issues',
      'And 2 MachineSets with other issues',
    ]);
  });
  it('names control plane Machines first, then the smallest names, of many with one message', () => {
    const m = (name: string, cp = false) => owned('Machine', name, 'Message-1', 'False', cp);
    const sources = [m('m7'), m('m3'), m('cp-b', true), m('m9'), m('m1'), m('cp-a', true), m('m2'), m('m0')];
    expect(newAggregateCondition(sources, 'A').message).toBe('* Machines cp-a, cp-b, m0, ... (5 more): Message-1');
    expect(newAggregateCondition(sources.slice(3, 6), 'A').message).toBe('* Machines cp-a, m1, m9: Message-1');
  });
  it('Issue messages goes before unknown', () => {
    const md = (name: string, m: string, s: ConditionStatus) => owned('MachineDeployment', name, m, s);
    const sources = [
      md('obj02', 'Message-1', 'Unknown'),
      md('obj01', 'Message-1', 'Unknown'),
      md('obj04', '* Message-2', 'False'),
      md('obj03', '* Message-2', 'False'),
      md('obj06', '* Message-3A\n* Message-3B', 'False'),
      md('obj05', 'Message-1', 'Unknown'),
      md('obj08', 'Message-1', 'Unknown'),
      md('obj07', 'Message-4\n* More Message-4', 'False'),
      md('obj09', 'Message-1', 'Unknown'),
      md('obj10', 'Message-5', 'False'),
    ];
    expect(newAggregateCondition(sources, 'A').message).toBe(
      '* MachineDeployments obj03, obj04:\n  * Message-2\n* MachineDeployment obj06:\n  * Message-3A\n  * Message-3B\n' +
        '* MachineDeployment obj07:\n  * Message-4\n    * More Message-4\n' +
        'And 1 MachineDeployment with other issues\nAnd 5 MachineDeployments with status unknown',
    );
  });
  it('Control plane machines always goes before other machines', () => {
    const m = (name: string, msg: string, s: ConditionStatus, cp = false) => owned('Machine', name, msg, s, cp);
    const sources = [
      m('obj02', '* Message-1', 'Unknown', true),
      m('obj01', '* Message-1', 'Unknown'),
      m('obj04', '* Message-2', 'False'),
      m('obj03', '* Message-2', 'False'),
      m('obj06', '* Message-3A\n* Message-3B', 'False'),
      m('obj05', '* Message-2', 'False'),
    ];
    expect(newAggregateCondition(sources, 'A').message).toBe(
      '* Machines obj02, obj01:\n  * Message-1\n* Machines obj03, obj04, obj05:\n  * Message-2\n' +
        '* Machine obj06:\n  * Message-3A\n  * Message-3B',
    );
  });
});

describe('aggregateSourceOf', () => {
  it('takes the kind from the object, else the fallback; a Machine with the control plane label is one', () => {
    const m = { metadata: { name: 'm1', labels: { 'cluster.x-k8s.io/control-plane': '' } } };
    expect(aggregateSourceOf(m, 'Machine')).toEqual({
      kind: 'Machine',
      name: 'm1',
      isControlPlaneMachine: true,
      conditions: [],
    });
    expect(aggregateSourceOf({ kind: 'MachineSet', ...m }, 'Machine').isControlPlaneMachine).toBe(false);
  });
  it('pluralizes kinds', () => {
    expect(['Machine', 'MachineDeployment', 'Phase3Obj', 'Policy', 'Ingress'].map(pluralizeKind)).toEqual([
      'Machines',
      'MachineDeployments',
      'Phase3Objs',
      'Policies',
      'Ingresses',
    ]);
  });
});
