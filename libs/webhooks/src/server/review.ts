// AdmissionReview (admission.k8s.io/v1) handling as controller-runtime's pkg/webhook/admission: the defaulting
// handler (defaulter_custom.go: default a copy, answer a JSON patch from the request's object to it), the validating
// handler (validator_custom.go: by operation) and the responses of response.go (Allowed, Denied, Errored) completed
// as webhook.go's Response.Complete (uid echoed, status code 200 when unset, base64 JSONPatch).
import { compare } from 'fast-json-patch';
import type { KubeObject, Status } from '@capi/apimachinery';
import { AdmissionError } from '../admission/field-errors';
import type {
  AdmissionOperation,
  AdmissionRequestInfo,
  CustomDefaulter,
  CustomValidator,
  Warnings,
} from '../admission/types';

/** admission/v1 AdmissionRequest (the fields this server reads). */
export interface AdmissionRequest {
  uid: string;
  kind?: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation | string;
  userInfo?: { username?: string; groups?: string[] };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** The Status in a response: metav1.Status as Go encodes it (metadata always present). */
export type ResponseStatus = Partial<Status> & { metadata: Record<string, never>; code: number };

/** admission/v1 AdmissionResponse. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: ResponseStatus;
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion?: string;
  kind?: string;
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** A handler's answer before Complete: no uid yet, patch operations not yet encoded. */
export interface HandlerResponse {
  allowed: boolean;
  status?: ResponseStatus;
  patches?: ReturnType<typeof compare>;
  warnings?: string[];
}

export type AdmissionHandler = (req: AdmissionRequest) => Promise<HandlerResponse>;

const withWarnings = (r: HandlerResponse, warnings: Warnings | void): HandlerResponse =>
  warnings && warnings.length ? { ...r, warnings: [...(r.warnings ?? []), ...warnings] } : r;

/** response.go Allowed(""): code 200. */
export const allowed = (): HandlerResponse => ({ allowed: true, status: { metadata: {}, code: 200 } });

/** response.go Denied(message): 403 Forbidden. */
export const denied = (message: string): HandlerResponse => ({
  allowed: false,
  status: { metadata: {}, code: 403, reason: 'Forbidden', ...(message ? { message } : {}) },
});

/** response.go Errored(code, err). */
export const errored = (code: number, message: string): HandlerResponse => ({
  allowed: false,
  status: { metadata: {}, code, message },
});

/** validationResponseFromStatus: a webhook's own Status (an apierrors.APIStatus) as the denial. */
const fromStatus = (status: Status): HandlerResponse => ({
  allowed: false,
  status: { metadata: {}, ...status, code: status.code ?? 500 },
});

// JavaScript's programming errors stand for Go's panics, which webhook.go recovers as 500 "panic: ... [recovered]";
// any other thrown error is a returned error, answered Denied (403) as validator_custom.go does.
const PANICS = [TypeError, ReferenceError, RangeError, SyntaxError];

function fromThrown(e: unknown): HandlerResponse {
  if (e instanceof AdmissionError) return fromStatus(e.status);
  if (PANICS.some((t) => e instanceof t)) return errored(500, `panic: ${(e as Error).message} [recovered]`);
  return denied(e instanceof Error ? e.message : String(e));
}

/** The decoder's DecodeRaw: an object, else 400 as controller-runtime's decoder errors are answered. */
function decode(raw: unknown): { obj: KubeObject } | { error: HandlerResponse } {
  if (raw === undefined || raw === null) return { error: errored(400, 'there is no content to decode') };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const got = Array.isArray(raw) ? 'an array' : typeof raw;
    return { error: errored(400, `couldn't decode the object: expected a JSON object, got ${got}`) };
  }
  return { obj: raw as KubeObject };
}

const requestInfo = (req: AdmissionRequest): AdmissionRequestInfo => ({
  operation: req.operation as AdmissionOperation,
  ...(req.subResource ? { subResource: req.subResource } : {}),
  ...(req.dryRun !== undefined ? { dryRun: req.dryRun } : {}),
  ...(req.userInfo ? { userInfo: req.userInfo } : {}),
});

/** defaulter_custom.go defaulterForType.Handle. */
export function defaultingHandler(defaulter: CustomDefaulter): AdmissionHandler {
  return async (req) => {
    // Always skip DELETE in a custom mutation handler.
    if (req.operation === 'DELETE') return allowed();
    const decoded = decode(req.object);
    if ('error' in decoded) return decoded.error;
    const obj = decoded.obj;
    const defaulted = structuredClone(obj);
    try {
      await defaulter.default(defaulted, requestInfo(req));
    } catch (e) {
      return fromThrown(e);
    }
    const patches = compare(obj, defaulted);
    // An unchanged object: allowed without a patch (and, as upstream, without a status until Complete).
    return patches.length ? { allowed: true, patches } : { allowed: true };
  };
}

/** validator_custom.go validatorForType.Handle. */
export function validatingHandler(validator: CustomValidator): AdmissionHandler {
  return async (req) => {
    const info = requestInfo(req);
    let warnings: Warnings | void;
    try {
      switch (req.operation) {
        case 'CONNECT':
          return allowed(); // no validation for connect requests
        case 'CREATE': {
          const obj = decode(req.object);
          if ('error' in obj) return obj.error;
          warnings = await validator.validateCreate(obj.obj, info);
          break;
        }
        case 'UPDATE': {
          const obj = decode(req.object);
          if ('error' in obj) return obj.error;
          const old = decode(req.oldObject);
          if ('error' in old) return old.error;
          warnings = await validator.validateUpdate(old.obj, obj.obj, info);
          break;
        }
        case 'DELETE': {
          // The object being deleted is in oldObject (kubernetes/kubernetes#76346).
          const old = decode(req.oldObject);
          if ('error' in old) return old.error;
          warnings = await validator.validateDelete(old.obj, info);
          break;
        }
        default:
          return errored(400, `unknown operation ${JSON.stringify(req.operation)}`);
      }
    } catch (e) {
      return fromThrown(e);
    }
    return withWarnings(allowed(), warnings);
  };
}

/** webhook.go Response.Complete: the request's uid, code 200 when unset, the patch base64-encoded. */
export function complete(r: HandlerResponse, uid: string): AdmissionResponse {
  const status: ResponseStatus = r.status ?? { metadata: {}, code: 200 };
  const out: AdmissionResponse = { uid, allowed: r.allowed, status: status.code ? status : { ...status, code: 200 } };
  if (r.patches?.length) {
    out.patch = Buffer.from(JSON.stringify(r.patches)).toString('base64');
    out.patchType = 'JSONPatch';
  }
  if (r.warnings?.length) out.warnings = r.warnings;
  return out;
}
