// Field errors and the Status a denied admission answers with, worded as k8s.io/apimachinery prints them
// (pkg/util/validation/field/errors.go ErrorBody, pkg/api/errors NewInvalid / NewForbidden / NewBadRequest), so a
// webhook denial reads as kube-apiserver's own validation would.
import type { Status } from '@capi/apimachinery';

/** field.ErrorType values (their CauseType strings). */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the value (ErrorBody's first cases). */
const OMIT_VALUE = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

export interface FieldError {
  type: FieldErrorType;
  /** The field path as field.Path.String() prints it, e.g. `spec.template.spec.version`. */
  field: string;
  badValue?: unknown;
  detail?: string;
}

/** The constructors of k8s.io/apimachinery/pkg/util/validation/field. */
export const fieldError = {
  invalid: (field: string, badValue: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    badValue,
    detail,
  }),
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail }),
  duplicate: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue }),
  notFound: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueNotFound', field, badValue }),
  notSupported: (field: string, badValue: unknown, supported: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    badValue,
    detail: supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '',
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
  internal: (field: string, err: Error | string): FieldError => ({
    type: 'InternalError',
    field,
    detail: typeof err === 'string' ? err : err.message,
  }),
};

/** A badValue that is not printed (field.OmitValueType). */
export const OMIT = Symbol('omitValue');

/** Go's %q of a string (JSON quoting matches it for printable text). */
const quote = (s: string): string => JSON.stringify(s);

/** field.Error.ErrorBody(): the message without the field path. */
export function errorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  if (!OMIT_VALUE.has(e.type) && e.badValue !== OMIT) {
    const v = e.badValue;
    if (v === undefined || v === null) s += `: ${quote('null')}`;
    else if (typeof v === 'string') s += `: ${quote(v)}`;
    else if (typeof v === 'number' || typeof v === 'boolean') s += `: ${String(v)}`;
    else s += `: ${JSON.stringify(v)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** field.Error.Error(): `<field>: <body>`. */
export const fieldErrorText = (e: FieldError): string => `${e.field}: ${errorBody(e)}`;

/** ErrorList.ToAggregate().Error(): one message alone, several in brackets, duplicates once. */
export function aggregateFieldErrors(errs: readonly FieldError[]): string {
  const unique = [...new Set(errs.map(fieldErrorText))];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** A denial: the Status the webhook answers with (and kube-apiserver returns to the client). */
export class AdmissionError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
    this.name = 'AdmissionError';
  }
}

const status = (code: number, reason: string, message: string, details?: Status['details']): Status => ({
  apiVersion: 'v1',
  kind: 'Status',
  status: 'Failure',
  message,
  reason,
  ...(details ? { details } : {}),
  code,
});

/** apierrors.NewInvalid(GroupKind, name, errs): 422 Invalid with one cause per field error. */
export function invalidError(group: string, kind: string, name: string, errs: readonly FieldError[]): AdmissionError {
  const qualified = group ? `${kind}.${group}` : kind;
  return new AdmissionError(
    status(422, 'Invalid', `${qualified} ${quote(name)} is invalid: ${aggregateFieldErrors(errs)}`, {
      name,
      group,
      kind,
      causes: errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field })),
    }),
  );
}

/** apierrors.NewForbidden(GroupResource, name, err): 403. */
export function forbiddenError(group: string, resource: string, name: string, err: string): AdmissionError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new AdmissionError(
    status(403, 'Forbidden', `${qualified} ${quote(name)} is forbidden: ${err}`, { name, group, kind: resource }),
  );
}

/** apierrors.NewBadRequest(message): 400. */
export const badRequestError = (message: string): AdmissionError =>
  new AdmissionError(status(400, 'BadRequest', message));

/**
 * controller-runtime's admission.Denied(message): how a defaulter's or validator's plain error is answered (403
 * Forbidden with the error's text as the message, no details).
 */
export const deniedError = (message: string): AdmissionError => new AdmissionError(status(403, 'Forbidden', message));
