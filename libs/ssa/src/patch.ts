// Server-side apply with a request cache (upstream internal/util/ssa/patch.go Patch). Beyond upstream: the cache entry
// for the resourceVersion the apply produced is written straight from the apply response, so one effective change costs
// exactly one apply. Also beyond upstream: a second entry keyed by what our field manager owns (fields and values, see
// owned-values.ts), so writes by other managers (a new resourceVersion) do not make us re-apply an intent that is
// already in place.
import { cloneJson, type KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import type { SsaCache } from './cache';
import { hashObject, requestIdentifier } from './identifier';
import { ownedValuesDigest } from './owned-values';
import { prepareModified } from './prepare';

export interface SsaPatchOptions {
  /** Field manager of the apply (e.g. "capi-machineset"). */
  fieldOwner: string;
  /**
   * The object as the caller last read it (typically from the informer cache). With a cache, its resourceVersion
   * keys the lookup; on a hit it is copied into `modified`. Without it (e.g. on create) the cache is not
   * consulted, but it is still filled from the apply response.
   */
  original?: KubeObject;
  cache?: SsaCache;
  /** Server dry-run (dryRun=All): nothing is persisted and the cache is neither read nor filled. */
  dryRun?: boolean;
}

export interface SsaPatchResult {
  /** True when the cache proved the apply a no-op and no request was sent. */
  cacheHit: boolean;
  /** On a hit, the request-cache key that proved it (see IntentMemo). */
  requestId?: string;
}

function withoutUid(obj: KubeObject): KubeObject {
  if (obj.metadata?.uid === undefined) return obj;
  const { uid: _uid, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * Replaces the content of `target` with a deep copy of `source` (callers hold references to `target`). cloneJson, not
 * structuredClone: every no-op apply of a large MachineSet's Machines lands here (most of its cost in the rollout bench profile).
 */
function overwrite(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, cloneJson(source));
}

/**
 * Applies `modified` (force ownership) and writes the server's answer back into it.
 * Errors from the server are rethrown as is (ApiError keeps the Status for isInvalid/isForbidden checks).
 */
export async function patch(client: Client, modified: KubeObject, opts: SsaPatchOptions): Promise<SsaPatchResult> {
  if (!opts.fieldOwner) throw new Error('ssa patch: fieldOwner is required');
  const intent = prepareModified(modified);
  const useCache = !!opts.cache && !opts.dryRun;
  const originalRv = opts.original?.metadata?.resourceVersion ?? '';
  // metadata.uid is only a precondition, and both cache keys already pin the object (a resourceVersion, or the digest
  // that includes its uid): hashing the intent without it lets a creation intent (no uid yet) answer for the same
  // intent sent later with the uid.
  const hashed = withoutUid(intent);

  const sameObject = !intent.metadata?.uid || intent.metadata.uid === opts.original?.metadata?.uid;
  if (useCache && opts.original && originalRv !== '' && sameObject) {
    const owned = ownedValuesDigest(opts.original, opts.fieldOwner);
    const hash = hashObject(hashed); // once for both keys
    const ids = [
      requestIdentifier(originalRv, hashed, hash),
      ...(owned ? [requestIdentifier(`owned:${owned}`, hashed, hash)] : []),
    ];
    const id = ids.find((k) => opts.cache!.peek(k));
    // One hit or miss per call, whichever key answered.
    if (opts.cache!.has(id ?? ids[0], intent.kind)) {
      opts.cache!.add(id!); // refresh TTL / recency
      overwrite(modified, { ...opts.original!, apiVersion: intent.apiVersion, kind: intent.kind });
      return { cacheHit: true, requestId: id };
    }
  }

  // apply() sends the intent; a copy keeps `intent` untouched for hashing below.
  const applied = await client.apply<KubeObject>(structuredClone(intent), {
    fieldManager: opts.fieldOwner,
    force: true,
    ...(opts.dryRun ? { dryRun: true } : {}),
  });
  overwrite(modified, {
    ...applied,
    apiVersion: applied.apiVersion || intent.apiVersion,
    kind: applied.kind || intent.kind,
  });

  if (useCache) {
    // The server now holds exactly this intent at the returned resourceVersion (changed or not): re-applying the
    // same intent to that resourceVersion is known to be a no-op.
    const newRv = applied.metadata?.resourceVersion;
    const hash = hashObject(hashed);
    if (newRv) opts.cache!.add(requestIdentifier(newRv, hashed, hash));
    const owned = ownedValuesDigest(applied, opts.fieldOwner);
    if (owned) opts.cache!.add(requestIdentifier(`owned:${owned}`, hashed, hash));
  }
  return { cacheHit: false };
}
