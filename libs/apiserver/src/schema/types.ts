// Shared types and kube-style field error constructors (k8s.io/apimachinery/pkg/util/validation/field).

/** Structural OpenAPI v3 schema (the shape of a CRD's openAPIV3Schema). */
export type OpenApiSchema = Record<string, any>;

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden';

/** One validation failure: `field` like "spec.items[0].name", `message` like kube's ErrorBody(). */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  message: string;
}

export const isPlainObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's %#v of a decoded JSON value, which kube prints for compound bad values. */
function goRepr(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goRepr).join(', ')}}`;
  if (isPlainObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goRepr(v[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** Renders a bad value the way kube's field errors do: strings quoted, scalars bare, compounds as Go %#v. */
export function renderValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  return goRepr(v);
}

const withDetail = (head: string, detail?: string) => (detail ? `${head}: ${detail}` : head);

export const fieldErrors = {
  required: (field: string, detail?: string): FieldError => ({
    type: 'FieldValueRequired',
    field,
    message: withDetail('Required value', detail),
  }),
  invalid: (field: string, value: unknown, detail?: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    message: withDetail(`Invalid value: ${renderValue(value)}`, detail),
  }),
  typeInvalid: (field: string, value: unknown, detail?: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field,
    message: withDetail(`Invalid value: ${renderValue(value)}`, detail),
  }),
  notSupported: (field: string, value: unknown, supported: unknown[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${renderValue(value)}${supported.length ? `: supported values: ${supported.map((v) => JSON.stringify(typeof v === 'string' ? v : goRepr(v))).join(', ')}` : ''}`,
  }),
  // kube 1.32 wording of field.TooLong (the value itself is never echoed)
  tooLong: (field: string, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    message: `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`,
  }),
  tooMany: (field: string, actual: number, max: number, unit = 'items'): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    message: `Too many: ${actual}: must have at most ${max} ${unit}`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueDuplicate',
    field,
    message: `Duplicate value: ${renderValue(value)}`,
  }),
  forbidden: (field: string, detail: string): FieldError => ({
    type: 'FieldValueForbidden',
    field,
    message: withDetail('Forbidden', detail),
  }),
};

/** Field path helpers: "spec" + "replicas" → "spec.replicas"; index → "spec.items[2]"; map key → "spec.m[key]". */
export const child = (path: string, name: string) => (path ? `${path}.${name}` : name);
export const index = (path: string, i: number) => `${path}[${i}]`;
export const key = (path: string, k: string) => `${path}[${k}]`;
