import type { Status } from '@capi/controller-runtime';

const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  406: 'NotAcceptable', 409: 'Conflict', 410: 'Expired', 415: 'UnsupportedMediaType', 422: 'Invalid', 500: 'InternalError',
};

/** An error that becomes a metav1.Status response. */
export class StatusError extends Error {
  constructor(readonly code: number, message: string, readonly reason = REASONS[code] ?? 'Unknown', readonly details?: Status['details']) {
    super(message);
  }
  toStatus(): Status {
    return { apiVersion: 'v1', kind: 'Status', status: 'Failure', message: this.message, reason: this.reason as string, code: this.code, ...(this.details ? { details: this.details } : {}) } as Status;
  }
}

const gr = (group: string, plural: string) => (group ? `${plural}.${group}` : plural);

export const notFound = (group: string, plural: string, name: string) =>
  new StatusError(404, `${gr(group, plural)} "${name}" not found`, 'NotFound', { name, group, kind: plural });

export const alreadyExists = (group: string, plural: string, name: string) =>
  new StatusError(409, `${gr(group, plural)} "${name}" already exists`, 'AlreadyExists', { name, group, kind: plural });

export const conflict = (group: string, plural: string, name: string, why: string) =>
  new StatusError(409, `Operation cannot be fulfilled on ${gr(group, plural)} "${name}": ${why}`, 'Conflict', { name, group, kind: plural });

export const badRequest = (msg: string) => new StatusError(400, msg, 'BadRequest');

export interface Cause { type: string; field: string; message: string }

export const invalid = (group: string, kind: string, name: string, causes: Cause[]) =>
  new StatusError(
    422,
    `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
    'Invalid',
    { name, group, kind, causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })) },
  );

export const gone = (msg: string) => new StatusError(410, msg, 'Expired');

export function successStatus(details?: Status['details']): Status {
  return { apiVersion: 'v1', kind: 'Status', status: 'Success', ...(details ? { details } : {}) } as Status;
}
