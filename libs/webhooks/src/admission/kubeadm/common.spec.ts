// Template metadata (clusterv1.ObjectMeta.Validate) and machine taints (internal/util/taints ValidateMachineTaints).
import { defaultFeatureGates, isDefined, validateMachineTaints, validateTemplateMetadata } from './common';

describe('validateMachineTaints', () => {
  const on = defaultFeatureGates({ MachineTaintPropagation: true });

  it('forbids taints while MachineTaintPropagation is off', () => {
    expect(validateMachineTaints([{ key: 'a' }], 'spec.taints', defaultFeatureGates())).toEqual([
      {
        type: 'FieldValueForbidden',
        field: 'spec.taints',
        detail: 'taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled',
      },
    ]);
  });

  it.each([
    ['node.cluster.x-k8s.io/uninitialized', 'taint key is not allowed'],
    ['node.cluster.x-k8s.io/outdated-revision', 'taint key is not allowed'],
    [
      'node.kubernetes.io/not-ready',
      'taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service',
    ],
    ['node.cloudprovider.kubernetes.io/x', 'taint key must not have the prefix node.cloudprovider.kubernetes.io/'],
    ['node-role.kubernetes.io/master', 'taint is deprecated since 1.24 and should not be used anymore'],
    ['a/b/c', expect.stringContaining('a valid label key must consist of alphanumeric characters')],
  ])('%s', (key, detail) => {
    expect(validateMachineTaints([{ key: 'ok' }, { key }], 'spec.taints', on)).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.taints[1].key', badValue: key, detail },
    ]);
  });

  it('allows node.kubernetes.io/out-of-service', () => {
    expect(validateMachineTaints([{ key: 'node.kubernetes.io/out-of-service' }], 'spec.taints', on)).toEqual([]);
  });
});

describe('validateTemplateMetadata', () => {
  it('accepts valid labels and annotations (annotation keys are case-insensitive)', () => {
    expect(
      validateTemplateMetadata({ labels: { 'a.b/c': 'd' }, annotations: { 'Example.COM/Key': 'x' } }, 'm'),
    ).toEqual([]);
  });

  it('limits all annotations together to 256 KiB', () => {
    expect(validateTemplateMetadata({ annotations: { a: 'x'.repeat(256 * 1024) } }, 'm')).toEqual([
      { type: 'FieldValueTooLong', field: 'm.annotations', detail: 'may not be more than 262144 bytes' },
    ]);
  });
});

describe('isDefined (v1beta2 IsDefined over JSON)', () => {
  it.each([
    [undefined, false],
    [{}, false],
    [{ endpoints: [] }, false],
    [{ keyFile: '' }, false],
    [{ endpoints: ['1.2.3.4'] }, true],
    [{ a: { b: 0 } }, true],
  ])('%j → %s', (v, defined) => expect(isDefined(v)).toBe(defined));
});
