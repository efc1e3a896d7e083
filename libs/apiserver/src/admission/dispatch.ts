// kube's mutating and validating dispatchers (k8s.io/apiserver pkg/admission/plugin/webhook/{mutating,validating}/
// dispatcher.go): mutating webhooks one after the other, each seeing the previous one's result; validating webhooks
// all at once, any denial denying. reinvocationPolicy IfNeeded is not honoured: each mutating webhook is called once.
import * as jsonpatch from 'fast-json-patch';
import type { KubeObject } from '@capi/apimachinery';
import { StatusError } from '../server/status';
import { callWebhook, CallingWebhookError, checkDryRun, deniedError, internalError } from './call';
import type { AdmissionAttributes, AdmissionResponse, ConfiguredWebhook, Webhook } from './types';

export interface Dispatch {
  attrs: AdmissionAttributes;
  /** Warnings the webhooks return, sent to the client as Warning headers. */
  warnings: string[];
}

/** One call, with failurePolicy applied: undefined when a failed call is ignored. */
async function call(h: Webhook, d: Dispatch): Promise<AdmissionResponse | undefined> {
  checkDryRun(h, d.attrs.dryRun);
  let r: AdmissionResponse;
  try {
    r = await callWebhook(h, d.attrs);
  } catch (e) {
    if (!(e instanceof CallingWebhookError)) throw e;
    if (h.failurePolicy === 'Ignore') return undefined;
    throw internalError(e.message);
  }
  d.warnings.push(...(r.warnings ?? []));
  if (!r.allowed) throw deniedError(h.name, r.status);
  return r;
}

/** The object after every mutating webhook, and the JSON patches they returned (in order), replayable on a copy. */
export async function runMutating(
  hooks: ConfiguredWebhook[],
  d: Dispatch,
  /** Whether a webhook is called, asked with the object as the webhooks before it left it (ShouldCallHook). */
  calls: (h: ConfiguredWebhook, a: AdmissionAttributes) => boolean = () => true,
): Promise<{ object: KubeObject | undefined; patches: jsonpatch.Operation[][] }> {
  const patches: jsonpatch.Operation[][] = [];
  let object = d.attrs.object;
  for (const c of hooks) {
    const { webhook } = c;
    const attrs = { ...d.attrs, object };
    if (!calls(c, attrs)) continue;
    const r = await call(webhook, { ...d, attrs });
    if (!r?.patch) continue;
    let ops: jsonpatch.Operation[];
    try {
      ops = JSON.parse(Buffer.from(r.patch, 'base64').toString('utf8'));
      if (!Array.isArray(ops)) throw new Error('a JSON patch is a list of operations');
    } catch (e) {
      if (webhook.failurePolicy === 'Ignore') continue;
      throw internalError(
        `failed calling webhook ${JSON.stringify(webhook.name)}: received undecodable patch in webhook response: ${(e as Error).message}`,
      );
    }
    if (!ops.length) continue;
    if (!object)
      throw internalError(
        `admission webhook ${JSON.stringify(webhook.name)} attempted to modify the object, which is not supported for this operation`,
      );
    object = applyPatch(object, ops);
    patches.push(ops);
  }
  return { object, patches };
}

/** A webhook's JSON patch on the object; one that does not apply is an internal error, as in kube. */
export function applyPatch(object: KubeObject, ops: jsonpatch.Operation[]): KubeObject {
  try {
    return jsonpatch.applyPatch(structuredClone(object), ops, true, false).newDocument as KubeObject;
  } catch (e) {
    throw internalError((e as Error).message.split('\n')[0]);
  }
}

/** All validating webhooks, concurrently; the first denial or failure in webhook order is the answer. */
export async function runValidating(hooks: ConfiguredWebhook[], d: Dispatch): Promise<void> {
  const results = await Promise.allSettled(hooks.map(({ webhook }) => call(webhook, d)));
  for (const r of results)
    if (r.status === 'rejected') throw r.reason instanceof StatusError ? r.reason : internalError(String(r.reason));
}
