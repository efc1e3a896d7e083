// Small value checks upstream's webhooks call from k8s.io/apimachinery, with its wording: validation.IsValidPortNum,
// intstr.GetScaledValueFromIntOrPercent's errors, and the JSON Go prints for a metav1.LabelSelector in a field error.
import type { LabelSelector } from '@capi/apimachinery';

/** validation.IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** strconv.Atoi's verdict on `s`: undefined when it is a (signed) decimal integer that fits 64 bits. */
function atoiError(s: string): string | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return `strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n)
    return `strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`;
  return undefined;
}

/**
 * The error intstr.GetScaledValueFromIntOrPercent returns for `value` (an int, or a string that must be a
 * percentage such as "10%"), or undefined when it scales. A string holding a bare number ("10") is no percentage.
 */
export function intOrPercentError(value: number | string): string | undefined {
  if (typeof value === 'number') return undefined;
  if (!value.endsWith('%')) return 'invalid value for IntOrString: invalid type: string is not a percentage';
  const err = atoiError(value.slice(0, -1));
  return err ? `invalid value for IntOrString: invalid value ${JSON.stringify(value)}: ${err}` : undefined;
}

/** IntOrString.String(). */
export const intOrStringText = (value: number | string): string => String(value);

/**
 * A LabelSelector as encoding/json prints metav1.LabelSelector: matchLabels (keys sorted) then matchExpressions, each
 * `key` and `operator` always present and `values` only when non-empty (omitempty).
 */
export function goLabelSelector(sel: LabelSelector): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const labels = sel.matchLabels ?? {};
  if (Object.keys(labels).length)
    out.matchLabels = Object.fromEntries(
      Object.keys(labels)
        .sort()
        .map((k) => [k, labels[k]]),
    );
  if (sel.matchExpressions?.length)
    out.matchExpressions = sel.matchExpressions.map((e) => ({
      key: e.key ?? '',
      operator: e.operator ?? '',
      ...(e.values?.length ? { values: e.values } : {}),
    }));
  return out;
}
