import {
  decideRemediationAllowed,
  parseUnhealthyRange,
  RemediationTriggerError,
  scaledValue,
} from './remediation-allowed';

describe('decideRemediationAllowed', () => {
  it('defaults to 100%: always allowed', () => {
    expect(decideRemediationAllowed({}, 3, 0)).toEqual({ allowed: true, remediationsAllowed: 0 });
  });

  it('integer unhealthyLessThanOrEqualTo', () => {
    const spec = { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 1 } } };
    expect(decideRemediationAllowed(spec, 3, 2)).toEqual({ allowed: true, remediationsAllowed: 0 });
    expect(decideRemediationAllowed(spec, 3, 1)).toEqual({
      allowed: false,
      remediationsAllowed: 0,
      message:
        'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 2, maxUnhealthy: 1)',
    });
  });

  it('percentages round down', () => {
    const spec = { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' } } };
    expect(decideRemediationAllowed(spec, 5, 3)).toEqual({ allowed: true, remediationsAllowed: 0 });
    expect(decideRemediationAllowed(spec, 4, 2).allowed).toBe(false); // floor(1.6) = 1 < 2
    expect(decideRemediationAllowed(spec, 4, 2).message).toContain('maxUnhealthy: 40%');
  });

  it('unhealthyInRange', () => {
    const spec = { remediation: { triggerIf: { unhealthyInRange: '[1-2]' } } };
    expect(decideRemediationAllowed(spec, 5, 4)).toEqual({ allowed: true, remediationsAllowed: 1 });
    expect(decideRemediationAllowed(spec, 5, 5).allowed).toBe(false);
    expect(decideRemediationAllowed(spec, 5, 2)).toEqual({
      allowed: false,
      remediationsAllowed: 0,
      message:
        'Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: 5, unhealthy: 3, unhealthyRange: [1-2])',
    });
  });

  it('rejects unparsable values with RemediationTriggerError', () => {
    expect(() => scaledValue('forty', 3)).toThrow(RemediationTriggerError);
    expect(() => scaledValue('4', 3)).toThrow(/not a percentage/);
    expect(() => parseUnhealthyRange('1-2')).toThrow(RemediationTriggerError);
    expect(() => parseUnhealthyRange('[3-1]')).toThrow(/cannot be less than min value/);
    expect(() => decideRemediationAllowed({ remediation: { triggerIf: { unhealthyInRange: '[a-b]' } } }, 1, 1)).toThrow(
      RemediationTriggerError,
    );
  });
});
