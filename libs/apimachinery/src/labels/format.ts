// Label values derived from object names (upstream util/labels/format/helpers.go): a name that is not a valid label
// value (e.g. longer than 63 characters) is replaced by a stable hash, so that the label can still select the objects.
import { fnv32a } from '../hash/fnv';
import { isLabelValue } from '../validation/content';

/**
 * `value` itself when it is a valid label value, else `hash_<base64url(fnv32a(value)) without padding>_z`
 * (upstream MustFormatValue).
 */
export function mustFormatLabelValue(value: string): string {
  if (isLabelValue(value).length === 0) return value;
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(fnv32a(value));
  return `hash_${sum.toString('base64url')}_z`;
}

/** Whether `labelValue` is what mustFormatLabelValue makes of `value` (upstream MustEqualValue). */
export const mustEqualLabelValue = (value: string, labelValue: string): boolean =>
  labelValue === mustFormatLabelValue(value);
