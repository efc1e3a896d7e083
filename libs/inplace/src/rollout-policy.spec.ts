import {
  IN_PLACE_ONLY_ROLLOUT_POLICY,
  ROLLOUT_POLICY_ANNOTATION,
  rolloutBlockedCondition,
  rolloutPolicyOf,
  updatersOf,
} from './rollout-policy';

const annotated = (value?: string) => ({
  metadata: value === undefined ? {} : { annotations: { [ROLLOUT_POLICY_ANNOTATION]: value } },
});

describe('rolloutPolicyOf', () => {
  it('reads Default, InPlaceOnly and anything else as Invalid (not guessed)', () => {
    expect(rolloutPolicyOf(annotated())).toEqual({ type: 'Default' });
    expect(rolloutPolicyOf(annotated(IN_PLACE_ONLY_ROLLOUT_POLICY))).toEqual({ type: 'InPlaceOnly' });
    expect(rolloutPolicyOf(annotated('inplaceonly'))).toEqual({ type: 'Invalid', value: 'inplaceonly' });
    expect(rolloutPolicyOf(annotated(''))).toEqual({ type: 'Invalid', value: '' });
  });
});

describe('rolloutBlockedCondition', () => {
  const notCovered = {
    reason: 'NotCoveredByUpdaters' as const,
    subject: 'MachineSet md-a',
    uncovered: [{ object: 'TestMachineTemplate', fields: ['spec.template.spec.image'] }],
    asked: ['can-update-machineset.in-place', 'can-update-machineset.zz-other'],
  };

  it('is absent without the policy, False with nothing held back', () => {
    expect(rolloutBlockedCondition({ type: 'Default' }, [notCovered])).toBeUndefined();
    expect(rolloutBlockedCondition({ type: 'InPlaceOnly' }, [])).toEqual({
      type: 'RolloutBlocked',
      status: 'False',
      reason: 'NotBlocked',
    });
  });

  it('names the uncovered fields and the updaters asked', () => {
    const c = rolloutBlockedCondition({ type: 'InPlaceOnly' }, [notCovered, { reason: 'NoUpdaters', subject: 'x' }]);
    expect(c?.status).toBe('True');
    expect(c?.reason).toBe('NotCoveredByUpdaters');
    expect(c?.message).toBe(
      'replacements blocked by in-place-updates.capi-inplace.io/rollout-policy=InPlaceOnly; MachineSet md-a: not ' +
        'covered by updaters: TestMachineTemplate spec.template.spec.image (updaters asked: in-place, zz-other); ' +
        'x: no updater registered',
    );
  });

  it('reports an invalid value first, even with nothing held back', () => {
    const c = rolloutBlockedCondition({ type: 'Invalid', value: 'Sometimes' }, []);
    expect(c?.status).toBe('True');
    expect(c?.reason).toBe('InvalidRolloutPolicy');
    expect(c?.message).toContain('unknown value "Sometimes"');
  });

  it('caps the list', () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ reason: 'NoUpdaters' as const, subject: `m${i}` }));
    expect(rolloutBlockedCondition({ type: 'InPlaceOnly' }, many)?.message).toMatch(
      /m4: no updater registered; \.\.\. and 2 more$/,
    );
  });
});

describe('updatersOf', () => {
  it('maps handler names to their ExtensionConfigs once each', () => {
    expect(updatersOf(['a.x', 'b.x', 'a.y', 'bare'])).toEqual(['x', 'y', 'bare']);
  });
});
