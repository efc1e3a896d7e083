// Optional response cache for callExtension (upstream CallExtension's Cache option, internal/runtime/client/client.go),
// entries expire after a TTL on an injectable clock.
import type { CommonResponse } from '@capi/api';

export interface ResponseCache {
  get(key: string): CommonResponse | undefined;
  set(key: string, value: CommonResponse): void;
}

export type CacheKeyFunc = (extensionName: string, extensionConfigResourceVersion: string, request: unknown) => string;

/** Default key: extension name + ExtensionConfig resourceVersion + canonical request JSON. */
export const defaultCacheKey: CacheKeyFunc = (name, rv, request) =>
  `${name}\u0000${rv}\u0000${JSON.stringify(request)}`;

export class TtlResponseCache implements ResponseCache {
  private readonly entries = new Map<string, { value: CommonResponse; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): CommonResponse | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return structuredClone(e.value);
  }

  set(key: string, value: CommonResponse): void {
    this.entries.set(key, { value: structuredClone(value), expiresAt: this.now() + this.ttlMs });
  }
}
