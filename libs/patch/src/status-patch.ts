// Status writes as upstream's patch helper (util/patch: patchStatusConditions, patchStatus) makes them: a merge patch of
// what changed; only a conditions change is guarded by a resourceVersion (other controllers own other entries of the
// list), and a conflict re-applies the same change onto the latest object after a short backoff instead of failing the
// reconcile (upstream: 5 tries, 100 ms with jitter 1.0). A change without conditions is never guarded, so a concurrent
// metadata/spec write cannot make it fail.
import { isConflict, type Client, type ObjectRef } from '@capi/controller-runtime';
import type { Condition } from '@capi/api';
import { changedConditionTypes, rebaseConditions } from './conditions-rebase';
import { createMergePatch, type KubeObject } from '@capi/apimachinery';

type Status = { conditions?: Condition[] } & Record<string, unknown>;

export interface StatusPatchOptions {
  /** Tries of the guarded conditions patch (upstream's backoff Steps). */
  attempts?: number;
  /** Sleep between tries; default 100 ms × (1 + random), upstream's Duration 100 ms with Jitter 1.0. */
  backoff?: (attempt: number) => Promise<void>;
}

export const CONDITIONS_PATCH_ATTEMPTS = 5;
/** upstream's retry Duration (100 ms), with Jitter 1.0. */
const CONDITIONS_PATCH_BACKOFF_MS = 100;
const defaultBackoff = () =>
  new Promise<void>((resolve) => setTimeout(resolve, CONDITIONS_PATCH_BACKOFF_MS * (1 + Math.random())));

/**
 * Writes `after` over `before` on the status subresource of `ref`; no request when nothing changed. `client.get` gives
 * the latest copy the conditions are rebased on (the informer cache, as upstream's client); `client.patch` must accept
 * a PatchBuilder. Returns the written object.
 */
export async function patchStatus<T extends KubeObject>(
  client: Client,
  ref: ObjectRef,
  before: object | undefined,
  after: object | undefined,
  opts: StatusPatchOptions = {},
): Promise<T | undefined> {
  const from = (before ?? {}) as Status;
  const to = (after ?? {}) as Status;
  const patch = createMergePatch(from, to) as Record<string, unknown> | undefined;
  if (patch === undefined) return undefined;
  if (!('conditions' in patch)) return client.patch<T>(ref, 'merge', { status: patch }, { subresource: 'status' });

  const changed = changedConditionTypes(from.conditions, to.conditions);
  const attempts = opts.attempts ?? CONDITIONS_PATCH_ATTEMPTS;
  const backoff = opts.backoff ?? defaultBackoff;
  // The latest copy is read when the client is about to send (after its rate limiter's wait, see Client.patch): read
  // before the wait, its resourceVersion is seconds old under a saturated --kube-api-qps and the patch is refused.
  const rebased = async () => {
    const latest = await client.get<KubeObject & { status?: Status }>(ref);
    const conditions = rebaseConditions(latest.status?.conditions ?? [], to.conditions, changed);
    return { metadata: { resourceVersion: latest.metadata.resourceVersion }, status: { ...patch, conditions } };
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.patch<T>(ref, 'merge', rebased, { subresource: 'status' });
    } catch (e) {
      if (!isConflict(e)) throw e;
      if (attempt >= attempts) {
        // As upstream, the rest of the status is still written (unguarded) when the conditions could not be.
        const rest = { ...patch };
        delete rest.conditions;
        if (Object.keys(rest).length > 0)
          await client.patch<T>(ref, 'merge', { status: rest }, { subresource: 'status' });
        throw e;
      }
      await backoff(attempt);
    }
  }
}
