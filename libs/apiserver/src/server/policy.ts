// policy/v1 PodDisruptionBudget validation (kubernetes pkg/apis/policy/validation/validation.go
// ValidatePodDisruptionBudgetSpec, pkg/apis/apps/validation ValidatePositiveIntOrPercent / IsNotMoreThan100Percent).
import type { KubeObject } from '@capi/apimachinery';
import type { Cause } from './status';

type Obj = Record<string, any>;
const PERCENT = /^[0-9]+%$/;
const PERCENT_MESSAGE =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

const present = (v: unknown) => v !== undefined && v !== null;

/**
 * field.Invalid's rendering of the internal PodDisruptionBudgetSpec (JSON of a Go struct without json tags: its field
 * names; the selector is a metav1.LabelSelector with its tags).
 */
function goSpec(spec: Obj): string {
  const selector = spec.selector && typeof spec.selector === 'object' ? spec.selector : null;
  return JSON.stringify({
    MinAvailable: spec.minAvailable ?? null,
    Selector: selector,
    MaxUnavailable: spec.maxUnavailable ?? null,
    UnhealthyPodEvictionPolicy: spec.unhealthyPodEvictionPolicy ?? null,
  });
}

function intOrPercentCauses(v: unknown, field: string): Cause[] {
  const invalid = (message: string): Cause => ({ type: 'FieldValueInvalid', field, message });
  if (typeof v === 'number') {
    if (v < 0) return [invalid(`Invalid value: ${v}: must be greater than or equal to 0`)];
    return [];
  }
  if (typeof v !== 'string')
    return [invalid(`Invalid value: ${JSON.stringify(v)}: must be an integer or percentage (e.g '5%')`)];
  if (!PERCENT.test(v)) return [invalid(`Invalid value: ${JSON.stringify(v)}: ${PERCENT_MESSAGE}`)];
  if (Number(v.slice(0, -1)) > 100)
    return [invalid(`Invalid value: ${JSON.stringify(v)}: must not be greater than 100%`)];
  return [];
}

/** The causes of an invalid PodDisruptionBudget spec: minAvailable and maxUnavailable are exclusive, each int >= 0 or a percent <= 100%. */
export function pdbCauses(pdb: KubeObject): Cause[] {
  const spec: Obj = (pdb.spec as Obj) ?? {};
  const causes: Cause[] = [];
  if (present(spec.minAvailable) && present(spec.maxUnavailable))
    causes.push({
      type: 'FieldValueInvalid',
      field: 'spec',
      message: `Invalid value: ${goSpec(spec)}: minAvailable and maxUnavailable cannot be both set`,
    });
  if (present(spec.minAvailable)) causes.push(...intOrPercentCauses(spec.minAvailable, 'spec.minAvailable'));
  if (present(spec.maxUnavailable)) causes.push(...intOrPercentCauses(spec.maxUnavailable, 'spec.maxUnavailable'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (present(policy) && policy !== 'IfHealthyBudget' && policy !== 'AlwaysAllow')
    causes.push({
      type: 'FieldValueNotSupported',
      field: 'spec.unhealthyPodEvictionPolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "AlwaysAllow", "IfHealthyBudget"`,
    });
  return causes;
}
