import type { Status } from '@capi/apimachinery';

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  500: 'InternalError',
};

type Details = NonNullable<Status['details']>;

/**
 * A metav1.Status as kube-apiserver writes it: Go's field order (kind, apiVersion, metadata, status, message, reason,
 * details, code), `metadata: {}` always (ListMeta is a struct, so omitempty keeps it), empty strings and empty
 * details fields left out (their `omitempty`), as staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go.
 */
export function statusObject(s: {
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: Details;
  code?: number;
}): Status {
  const out: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: s.status };
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details) {
    const d = s.details;
    const details: Record<string, unknown> = {};
    for (const k of ['name', 'group', 'kind', 'uid'] as const) if (d[k]) details[k] = d[k];
    if (d.causes?.length)
      details.causes = d.causes.map((c) => ({
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.message ? { message: c.message } : {}),
        ...(c.field ? { field: c.field } : {}),
      }));
    if (d.retryAfterSeconds) details.retryAfterSeconds = d.retryAfterSeconds;
    out.details = details;
  }
  if (s.code) out.code = s.code;
  return out as Status;
}

/** An error that becomes a metav1.Status response. `reason` '' writes none (kube's answer to a plain Go error). */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason = REASONS[code] ?? 'Unknown',
    readonly details?: Status['details'],
  ) {
    super(message);
  }
  toStatus(): Status {
    return statusObject({
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      details: this.details,
      code: this.code,
    });
  }
}

const gr = (group: string, plural: string) => (group ? `${plural}.${group}` : plural);

export const notFound = (group: string, plural: string, name: string) =>
  new StatusError(404, `${gr(group, plural)} "${name}" not found`, 'NotFound', { name, group, kind: plural });

export const alreadyExists = (group: string, plural: string, name: string) =>
  new StatusError(409, `${gr(group, plural)} "${name}" already exists`, 'AlreadyExists', { name, group, kind: plural });

export const conflict = (group: string, plural: string, name: string, why: string) =>
  new StatusError(409, `Operation cannot be fulfilled on ${gr(group, plural)} "${name}": ${why}`, 'Conflict', {
    name,
    group,
    kind: plural,
  });

export const badRequest = (msg: string) => new StatusError(400, msg, 'BadRequest');

export interface Cause {
  type: string;
  field: string;
  message: string;
}

/** field.ErrorList.ToAggregate().Error(): one error as is, several bracketed, duplicates once. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

export const invalid = (group: string, kind: string, name: string, causes: Cause[]) =>
  new StatusError(
    422,
    `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${aggregate(causes.map((c) => `${c.field}: ${c.message}`))}`,
    'Invalid',
    { name, group, kind, causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })) },
  );

export const gone = (msg: string) => new StatusError(410, msg, 'Expired');

export function successStatus(details?: Status['details']): Status {
  return statusObject({ status: 'Success', details });
}
