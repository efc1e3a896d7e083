// Upstream util/conditions getter_test.go (TestUnstructuredGet, TestConvertFromUnstructuredConditions) and
// mirror_test.go (TestMirrorStatusCondition), for JSON objects.
import { mirrorFromUnstructured, unstructuredGet, unstructuredGetAll } from './unstructured-conditions';

const now = '2026-01-01T00:00:00Z';
const bar = {
  type: 'barCondition',
  status: 'True',
  observedGeneration: 10,
  lastTransitionTime: now,
  reason: 'FooReason',
  message: 'FooMessage',
};

describe('unstructuredGet (upstream TestUnstructuredGet)', () => {
  it('Phase1 object with both legacy and v1beta2 conditions (v1beta2 nil)', () => {
    const obj = {
      kind: 'Phase1Obj',
      status: { conditions: [{ type: 'bazCondition', status: 'False', lastTransitionTime: now }] },
    };
    expect(unstructuredGet(obj, 'barCondition')).toBeUndefined();
  });
  it('Phase1 object with both legacy and v1beta2 conditions', () => {
    const obj = {
      kind: 'Phase1Obj',
      status: {
        conditions: [{ type: 'bazCondition', status: 'False', lastTransitionTime: now }],
        v1beta2: { conditions: [bar] },
      },
    };
    expect(unstructuredGet(obj, 'barCondition')).toEqual(bar);
  });
  it('Phase2 object with conditions (empty) and backward compatible conditions', () => {
    const obj = {
      kind: 'Phase2Obj',
      status: { conditions: [], deprecated: { v1beta1: { conditions: [{ type: 'bazCondition', status: 'False' }] } } },
    };
    expect(unstructuredGet(obj, 'barCondition')).toBeUndefined();
  });
  it('Phase3 object with conditions', () => {
    expect(unstructuredGet({ kind: 'Phase3Obj', status: { conditions: [bar] } }, 'barCondition')).toEqual(bar);
  });
  it('an object without status has no conditions', () => expect(unstructuredGetAll({ kind: 'K' })).toEqual([]));
});

describe('convert from unstructured conditions (upstream TestConvertFromUnstructuredConditions)', () => {
  const get = (c: object) => () => unstructuredGetAll({ kind: 'K', status: { conditions: [c] } });
  it('Fails if Type is missing', () =>
    expect(get({ status: 'True' })).toThrow(
      'failed to convert status.conditions from K to []metav1.Condition: type must be set for all conditions',
    ));
  it('Fails if Status is missing', () => expect(get({ type: 'A' })).toThrow('status must be set for the A condition'));
  it('Fails if Status is a wrong value', () =>
    expect(get({ type: 'A', status: 'foo' })).toThrow(
      'status for the A condition must be one of True, False, Unknown',
    ));
  it('Defaults reason for positive polarity', () =>
    expect(get({ type: 'A', status: 'True' })()).toEqual([
      { type: 'A', status: 'True', lastTransitionTime: '', reason: 'NoReasonReported' },
    ]));
  it('Defaults reason for negative polarity', () =>
    expect(get({ type: 'A', status: 'False' })()[0].reason).toBe('NoReasonReported'));
  it('status.v1beta2.conditions errors name that path', () =>
    expect(() => unstructuredGetAll({ kind: 'K', status: { v1beta2: { conditions: [{ type: 'A' }] } } })).toThrow(
      'failed to convert status.v1beta2.conditions from K to []metav1.Condition: status must be set for the A condition',
    ));
});

describe('mirrorFromUnstructured (upstream TestMirrorStatusCondition)', () => {
  it('Mirror a condition with target type', () => {
    const obj = {
      kind: 'Phase3Obj',
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: 'm' }] },
    };
    expect(mirrorFromUnstructured(obj, 'Ready', { targetType: 'SomethingReady' })).toEqual({
      type: 'SomethingReady',
      status: 'True',
      reason: 'R',
      message: 'm',
    });
  });
  it('Mirror a condition not yet reported', () =>
    expect(mirrorFromUnstructured({ kind: 'Phase3Obj' }, 'Ready')).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'NotYetReported',
      message: 'Condition Ready not yet reported',
    }));
  it('Mirror a condition not yet reported with a fallback condition', () =>
    expect(
      mirrorFromUnstructured({ kind: 'Phase3Obj' }, 'Ready', {
        fallback: { status: 'True', reason: 'SomeReason', message: 'Foo' },
      }),
    ).toEqual({
      type: 'Ready',
      status: 'True',
      reason: 'SomeReason',
      message: 'Foo',
    }));
});
