// Admission of the InPlaceOnly rollout policy annotation on MachineDeployments and KubeadmControlPlanes (this
// project's extension, @capi/inplace rollout-policy.ts): an unknown value is refused here; without the webhooks the
// controllers report it in RolloutBlocked (reason InvalidRolloutPolicy) and hold replacements back.
import { IN_PLACE_ONLY_ROLLOUT_POLICY, ROLLOUT_POLICY_ANNOTATION } from '@capi/inplace';
import { type FieldError, fieldError } from './field-errors';

export function validateRolloutPolicy(annotations: Record<string, string> | undefined): FieldError[] {
  const value = annotations?.[ROLLOUT_POLICY_ANNOTATION];
  if (value === undefined || value === IN_PLACE_ONLY_ROLLOUT_POLICY) return [];
  return [
    fieldError.notSupported(`metadata.annotations[${ROLLOUT_POLICY_ANNOTATION}]`, value, [
      IN_PLACE_ONLY_ROLLOUT_POLICY,
    ]),
  ];
}
