// Optional response cache for callExtension (upstream CallExtension's Cache option, internal/runtime/client/client.go),
// entries expire after a TTL on an injectable clock.
import type { CommonResponse } from '@capi/api';
import { LRUExpireCache } from '@capi/apimachinery';

export interface ResponseCache {
  get(key: string): CommonResponse | undefined;
  set(key: string, value: CommonResponse): void;
}

export type CacheKeyFunc = (extensionName: string, extensionConfigResourceVersion: string, request: unknown) => string;

/** Default key: extension name + ExtensionConfig resourceVersion + canonical request JSON. */
export const defaultCacheKey: CacheKeyFunc = (name, rv, request) =>
  `${name}\u0000${rv}\u0000${JSON.stringify(request)}`;

/** Responses kept by default; beyond it the response cached longest ago is dropped. */
export const DEFAULT_RESPONSE_CACHE_MAX_ENTRIES = 10_000;

/** Responses are copied in and out, so callers may modify what they get. */
export class TtlResponseCache implements ResponseCache {
  private readonly entries: LRUExpireCache<CommonResponse>;

  constructor(
    private readonly ttlMs: number,
    now?: () => number,
    maxEntries = DEFAULT_RESPONSE_CACHE_MAX_ENTRIES,
  ) {
    this.entries = new LRUExpireCache({ max: maxEntries, clock: now && { now } });
  }

  get(key: string): CommonResponse | undefined {
    const value = this.entries.get(key);
    return value && structuredClone(value);
  }

  set(key: string, value: CommonResponse): void {
    this.entries.add(key, structuredClone(value), this.ttlMs);
  }
}
