import { scaleCauses, scaleOf } from './scale';

const paths = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.selector',
};

describe('scaleCauses (kube ValidateScaleSpec / ValidateScaleStatus)', () => {
  it('refuses negative and over-int32 counts at the declared paths', () => {
    expect(scaleCauses(paths, { spec: { replicas: -1 }, status: { replicas: 2 ** 31 } }, false)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: '.spec.replicas',
        message: 'Invalid value: -1: should be a non-negative integer',
      },
      {
        type: 'FieldValueInvalid',
        field: '.status.replicas',
        message: 'Invalid value: 2147483648: should be less than or equal to 2147483647',
      },
    ]);
    expect(scaleCauses(paths, { spec: { replicas: 0 }, status: {} }, false)).toEqual([]);
  });

  it('a status write checks the status count only', () => {
    expect(scaleCauses(paths, { spec: { replicas: -1 }, status: { replicas: 1 } }, true)).toEqual([]);
  });
});

describe('scaleOf', () => {
  it('reads absent counts as 0 and the selector when declared', () => {
    const s = scaleOf(paths, {
      apiVersion: 'example.com/v1',
      kind: 'Pool',
      metadata: { name: 'p' },
      status: { selector: 'a=b' },
    });
    expect([s.spec, s.status]).toEqual([{ replicas: 0 }, { replicas: 0, selector: 'a=b' }]);
  });
});
