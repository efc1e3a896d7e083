// Calling one admission webhook and reading its answer, as kube's mutating/validating dispatchers do
// (k8s.io/apiserver pkg/admission/plugin/webhook/{mutating,validating}/dispatcher.go, request/admissionreview.go,
// errors/statuserror.go).
import { randomUUID } from 'node:crypto';
import * as https from 'node:https';
import { EMBEDDED_ADMIN } from '../server/reviews';
import { StatusError } from '../server/status';
import type { AdmissionAttributes, AdmissionResponse, Webhook } from './types';

export const DEFAULT_TIMEOUT_SECONDS = 10;

/** webhookutil.ErrCallingWebhook: the webhook could not be asked; failurePolicy decides what that means. */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhook: string,
    reason: string,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`);
  }
}

/** apierrors.NewInternalError: what a failed call becomes under failurePolicy Fail. */
export function internalError(message: string): StatusError {
  return new StatusError(500, `Internal error occurred: ${message}`, 'InternalError', { causes: [{ message }] });
}

/** webhookerrors.ToStatusErr: a denial, with the webhook's Status made a failure of at least 400. */
export function deniedError(webhook: string, result: AdmissionResponse['status'] = {}): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = (result.code ?? 0) < 400 ? 400 : result.code!;
  const message = result.message
    ? `${deniedBy}: ${result.message}`
    : result.reason
      ? `${deniedBy}: ${result.reason}`
      : `${deniedBy} without explanation`;
  return new StatusError(code, message, result.reason ?? '', result.details as Record<string, unknown> | undefined);
}

/** A dry run reaches only webhooks that declare they have no side effects (callHook in both dispatchers). */
export function checkDryRun(h: Webhook, dryRun: boolean): void {
  if (!dryRun || h.sideEffects === 'None' || h.sideEffects === 'NoneOnDryRun') return;
  throw new StatusError(400, `admission webhook ${JSON.stringify(h.name)} does not support dry run`, 'BadRequest');
}

/** CreateV1AdmissionReview: the request kube sends, on behalf of the server's one identity. */
export function admissionReview(uid: string, a: AdmissionAttributes): Record<string, unknown> {
  const kind = { group: a.group, version: a.version, kind: a.kind };
  const resource = { group: a.group, version: a.version, resource: a.resource };
  return {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid,
      kind,
      resource,
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: kind,
      requestResource: resource,
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
      ...(a.name ? { name: a.name } : {}),
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: { username: EMBEDDED_ADMIN.username, groups: [...EMBEDDED_ADMIN.groups] },
      object: a.object ?? null,
      oldObject: a.oldObject ?? null,
      dryRun: a.dryRun,
      options: a.options,
    },
  };
}

/** Go's wording of the transport errors kube reports (net/http, net.Dial, context). */
function goError(e: NodeJS.ErrnoException, url: URL, timedOut: boolean): string {
  if (timedOut) return 'context deadline exceeded';
  const addr = `${url.hostname}:${url.port || 443}`;
  if (e.code === 'ECONNREFUSED') return `dial tcp ${addr}: connect: connection refused`;
  if (e.code === 'ENOTFOUND') return `dial tcp: lookup ${url.hostname}: no such host`;
  return e.message;
}

/** POSTs the review and returns its `response`; every failure is a CallingWebhookError. */
export async function callWebhook(h: Webhook, a: AdmissionAttributes): Promise<AdmissionResponse> {
  const cc = h.clientConfig ?? {};
  if (!cc.url) {
    const s = cc.service;
    throw new CallingWebhookError(
      h.name,
      `could not get REST client: clientConfig.service (${s?.namespace}/${s?.name}) cannot be resolved by the embedded API server; use clientConfig.url`,
    );
  }
  const timeout = h.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const url = new URL(cc.url);
  url.searchParams.set('timeout', `${timeout}s`); // client-go's Request.Timeout, as kube sends it
  const uid = randomUUID();
  const body = JSON.stringify(admissionReview(uid, a));
  const text = await new Promise<string>((resolve, reject) => {
    let timedOut = false;
    const req = https.request(
      url,
      {
        method: 'POST',
        ...(cc.caBundle ? { ca: Buffer.from(cc.caBundle, 'base64') } : {}),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) return resolve(out);
          reject(
            new CallingWebhookError(
              h.name,
              `failed to call webhook: an error on the server (${JSON.stringify(out.slice(0, 200))}) has prevented the request from succeeding`,
            ),
          );
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, timeout * 1000);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        new CallingWebhookError(h.name, `failed to call webhook: Post "${url.href}": ${goError(e, url, timedOut)}`),
      ),
    );
    req.end(body);
  });
  return verifyResponse(h.name, uid, text);
}

/** VerifyAdmissionResponse. */
function verifyResponse(webhook: string, uid: string, text: string): AdmissionResponse {
  const bad = (why: string) => new CallingWebhookError(webhook, `received invalid webhook response: ${why}`);
  let review: any;
  try {
    review = JSON.parse(text);
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (review?.apiVersion !== 'admission.k8s.io/v1' || review?.kind !== 'AdmissionReview')
    throw bad(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${review?.apiVersion}, Kind=${review?.kind}`,
    );
  const r = review.response as AdmissionResponse | undefined;
  if (!r) throw bad('response was absent');
  if (r.uid !== uid) throw bad(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? '')}`);
  if (r.patch && r.patchType !== 'JSONPatch')
    throw bad(
      r.patchType
        ? `unsupported patch type ${JSON.stringify(r.patchType)}`
        : 'webhook returned response.patch but not response.patchType',
    );
  return r;
}
