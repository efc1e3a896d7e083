// Helpers behind the core webhooks: blang/semver strictness, intstr percent parsing, taint rules.
import { isStrictSemver, scaledValueFromIntOrPercent, validateMachineTaints, validateVersion } from './validation';
import { fieldErrorText } from '../field-errors';

describe('isStrictSemver (blang/semver Parse after TrimPrefix "v")', () => {
  it.each([
    ['1.17.2', true],
    ['1.17.2-rc.1+build.5', true],
    ['0.0.0', true],
    ['1.17', false],
    ['01.2.3', false],
    ['1.2.3-01', false],
    ['1.17.2++', false],
    ['v1.2.3', false], // after one "v" was trimmed, a second one is not numeric
    [' 1.2.3', false],
    ['=1.2.3', false],
    ['', false],
  ])('%j → %s', (s, ok) => expect(isStrictSemver(s)).toBe(ok));

  it('rejects "vv1.2.3" with "must be a valid semantic version" only', () => {
    expect(validateVersion('vv1.2.3', 'spec.version').map(fieldErrorText)).toEqual([
      'spec.version: Invalid value: "vv1.2.3": must be a valid semantic version',
    ]);
  });
});

describe('scaledValueFromIntOrPercent (intstr.GetScaledValueFromIntOrPercent)', () => {
  it.each<[number | string, number, boolean, number]>([
    [3, 10, false, 3],
    ['25%', 10, false, 2],
    ['25%', 10, true, 3],
    ['+50%', 4, false, 2],
  ])('%j of %d (roundUp %s) = %d', (v, total, roundUp, out) =>
    expect(scaledValueFromIntOrPercent(v, total, roundUp)).toBe(out),
  );

  it.each([
    ['1', 'invalid value for IntOrString: invalid type: string is not a percentage'],
    ['%', 'invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax'],
    ['1.5%', 'invalid value for IntOrString: invalid value "1.5%": strconv.Atoi: parsing "1.5": invalid syntax'],
    [
      '99999999999999999999%',
      'invalid value for IntOrString: invalid value "99999999999999999999%": strconv.Atoi: parsing "99999999999999999999": value out of range',
    ],
  ])('%j throws %j', (v, msg) => expect(() => scaledValueFromIntOrPercent(v, 0, false)).toThrow(msg));
});

describe('validateMachineTaints (internal/util/taints/validation.go)', () => {
  const on = { featureGates: { MachineTaintPropagation: true } };
  it.each([
    ['node.cluster.x-k8s.io/uninitialized', 'taint key is not allowed'],
    ['node.cluster.x-k8s.io/outdated-revision', 'taint key is not allowed'],
    [
      'node.kubernetes.io/x',
      'taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service',
    ],
    ['node.cloudprovider.kubernetes.io/x', 'taint key must not have the prefix node.cloudprovider.kubernetes.io/'],
    ['node-role.kubernetes.io/master', 'taint is deprecated since 1.24 and should not be used anymore'],
  ])('%s: %s', (key, detail) => {
    expect(validateMachineTaints([{ key }], 'spec.taints', on).map(fieldErrorText)).toEqual([
      `spec.taints[0].key: Invalid value: ${JSON.stringify(key)}: ${detail}`,
    ]);
  });

  it('checks the key is a qualified name', () => {
    expect(validateMachineTaints([{ key: 'a/b/c' }], 'spec.taints', on)).toHaveLength(1);
    expect(validateMachineTaints([{ key: 'example.com/ok' }], 'spec.taints', on)).toEqual([]);
  });
});
