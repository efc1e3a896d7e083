// Conditions of provider objects read as JSON, as upstream util/conditions getter.go (UnstructuredGetAll,
// UnstructuredGet) and mirror.go (NewMirrorConditionFromUnstructured): metav1 conditions in status.v1beta2.conditions
// or status.conditions, v1beta1 ones converted just enough to be mirrored (no reason → NoReasonReported).
import type { Condition, ConditionStatus } from './schema/meta';

/** Upstream NoReasonReported: a converted condition without a reason. */
export const NO_REASON_REPORTED = 'NoReasonReported';

interface Unstructured {
  kind?: string;
  status?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Upstream UnstructuredGetAll; throws (upstream returns an error) on a condition without type or a valid status. */
export function unstructuredGetAll(obj: Unstructured): Condition[] {
  const status = isObject(obj.status) ? obj.status : {};
  const v1beta2 = isObject(status['v1beta2']) ? status['v1beta2']['conditions'] : undefined;
  if (Array.isArray(v1beta2)) return convert(v1beta2, `status.v1beta2.conditions from ${obj.kind ?? ''}`);
  const conditions = status['conditions'];
  if (Array.isArray(conditions)) return convert(conditions, `status.conditions from ${obj.kind ?? ''}`);
  return [];
}

/** Upstream UnstructuredGet. */
export function unstructuredGet(obj: Unstructured, type: string): Condition | undefined {
  return unstructuredGetAll(obj).find((c) => c.type === type);
}

function convert(list: readonly unknown[], what: string): Condition[] {
  const out: Condition[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    const c: Condition = {
      type: str(item['type']),
      status: str(item['status']) as ConditionStatus,
      lastTransitionTime: str(item['lastTransitionTime']),
      reason: str(item['reason']),
      ...(str(item['message']) ? { message: str(item['message']) } : {}),
      ...(typeof item['observedGeneration'] === 'number' ? { observedGeneration: item['observedGeneration'] } : {}),
    };
    const error = validateAndFix(c);
    if (error) throw new Error(`failed to convert ${what} to []metav1.Condition: ${error}`);
    out.push(c);
  }
  return out;
}

/** Upstream validateAndFixConvertedCondition. */
function validateAndFix(c: Condition): string | undefined {
  if (!c.type) return 'type must be set for all conditions';
  if (!c.status) return `status must be set for the ${c.type} condition`;
  if (c.status !== 'True' && c.status !== 'False' && c.status !== 'Unknown') {
    return `status for the ${c.type} condition must be one of True, False, Unknown`;
  }
  if (c.lastTransitionTime && Number.isNaN(Date.parse(c.lastTransitionTime))) {
    return `failed to unmarshal lastTransitionTime value: ${c.lastTransitionTime}`;
  }
  if (!c.reason) c.reason = NO_REASON_REPORTED;
  return undefined;
}

export interface MirrorFromUnstructuredOptions {
  targetType?: string;
  /** Used when the object does not report the condition. */
  fallback?: { status: ConditionStatus; reason: string; message?: string };
}

/**
 * Upstream NewMirrorConditionFromUnstructured: the object's condition under another type, else the fallback, else
 * Unknown NotYetReported. Throws what unstructuredGetAll throws.
 */
export function mirrorFromUnstructured(
  obj: Unstructured,
  sourceType: string,
  options: MirrorFromUnstructuredOptions = {},
): { type: string; status: ConditionStatus; reason: string; message?: string } {
  const type = options.targetType ?? sourceType;
  const c = unstructuredGet(obj, sourceType);
  if (c) return { type, status: c.status, reason: c.reason, ...(c.message ? { message: c.message } : {}) };
  if (options.fallback) return { type, ...options.fallback };
  return { type, status: 'Unknown', reason: 'NotYetReported', message: `Condition ${sourceType} not yet reported` };
}
