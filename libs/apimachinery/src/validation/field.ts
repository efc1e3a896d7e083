// Field errors worded as k8s.io/apimachinery/pkg/util/validation/field/errors.go prints them, and their aggregate
// (pkg/util/errors/errors.go): what kube-apiserver puts in a Status message.

/** A field path as field.Path.String() prints it; `undefined` is Go's nil *Path ("<nil>"). */
export type FieldPath = string | undefined;

const render = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : json(v);

// Go marshals a nil slice as null.
const json = (v: unknown): string => JSON.stringify(v ?? null);

/** field.Invalid(path, value, detail).Error(). */
export const invalid = (path: FieldPath, value: unknown, detail: string): string =>
  `${path ?? '<nil>'}: Invalid value: ${render(value)}: ${detail}`;

/** field.NotSupported(path, value, supported).Error(). */
export const notSupported = (path: FieldPath, value: unknown, supported: readonly string[]): string =>
  `${path ?? '<nil>'}: Unsupported value: ${render(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`;

/** ErrorList.ToAggregate().Error(): duplicates dropped, one message alone, several in brackets. */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
