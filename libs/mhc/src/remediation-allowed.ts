// Remediation short-circuit (upstream isAllowedRemediation / getMaxUnhealthy / getUnhealthyRange): with too many
// unhealthy targets MHC marks them but does not ask owners to remediate.
import type { MachineHealthCheckSpec } from '@capi/api';

export const REMEDIATION_ALLOWED_CONDITION = 'RemediationAllowed';
export const REMEDIATION_ALLOWED_REASON = 'RemediationAllowed';
export const TOO_MANY_UNHEALTHY_REASON = 'TooManyUnhealthy';
/** Not upstream (upstream returns a reconcile error): the trigger fields cannot be interpreted. */
export const INVALID_REMEDIATION_TRIGGER_REASON = 'InvalidRemediationTrigger';
export const DEFAULT_UNHEALTHY_LESS_THAN_OR_EQUAL_TO = '100%';

export class RemediationTriggerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemediationTriggerError';
  }
}

export interface RemediationDecision {
  allowed: boolean;
  /** status.remediationsAllowed: 0 when not allowed. */
  remediationsAllowed: number;
  /** Why remediation is not allowed (upstream message); undefined when allowed. */
  message?: string;
}

/** intstr.GetScaledValueFromIntOrPercent with roundUp=false. */
export function scaledValue(value: number | string, total: number): number {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new RemediationTriggerError(`invalid value ${value}: not an integer`);
    return value;
  }
  const m = /^(-?\d+)%$/.exec(value);
  if (!m) {
    throw new RemediationTriggerError(
      `invalid value for IntOrString: invalid type: string is not a percentage: ${JSON.stringify(value)}`,
    );
  }
  return Math.floor((Number(m[1]) * total) / 100);
}

/** "[min-max]" → [min, max]. */
export function parseUnhealthyRange(range: string): [number, number] {
  const m = /^\[(\d+)-(\d+)\]$/.exec(range);
  if (!m)
    throw new RemediationTriggerError(`invalid unhealthyInRange ${JSON.stringify(range)}: must look like "[3-5]"`);
  const [min, max] = [Number(m[1]), Number(m[2])];
  if (max < min)
    throw new RemediationTriggerError(`max value ${max} cannot be less than min value ${min} for unhealthyRange`);
  return [min, max];
}

/**
 * Whether remediation is allowed with `expected` targets of which `healthy` are healthy (everything else, including
 * Machines still starting, counts as unhealthy, as upstream). Throws RemediationTriggerError on unparsable fields.
 */
export function decideRemediationAllowed(
  spec: Pick<MachineHealthCheckSpec, 'remediation'>,
  expected: number,
  healthy: number,
): RemediationDecision {
  const trigger = spec.remediation?.triggerIf ?? {};
  const unhealthy = expected - healthy;
  if (trigger.unhealthyInRange) {
    const [min, max] = parseUnhealthyRange(trigger.unhealthyInRange);
    if (unhealthy >= min && unhealthy <= max) return { allowed: true, remediationsAllowed: max - unhealthy };
    return {
      allowed: false,
      remediationsAllowed: 0,
      message: `Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: ${expected}, unhealthy: ${unhealthy}, unhealthyRange: ${trigger.unhealthyInRange})`,
    };
  }
  const raw = trigger.unhealthyLessThanOrEqualTo ?? DEFAULT_UNHEALTHY_LESS_THAN_OR_EQUAL_TO;
  const maxUnhealthy = scaledValue(raw, expected);
  if (unhealthy <= maxUnhealthy) return { allowed: true, remediationsAllowed: maxUnhealthy - unhealthy };
  return {
    allowed: false,
    remediationsAllowed: 0,
    message: `Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: ${expected}, unhealthy: ${unhealthy}, maxUnhealthy: ${raw})`,
  };
}
