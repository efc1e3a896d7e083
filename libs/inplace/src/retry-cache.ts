// UpdateMachine retry cache (upstream hookCache in core/reconcilers/machine/machine_controller_inplace_update.go,
// util/cache/cache.go HookEntry): while an extension said "call me again in N seconds", reconciles
// before that time return the remaining delay and the last message without calling the extension.
import { LRUExpireCache, realClock, type PassiveClock } from '@capi/apimachinery';

export interface HookRetryEntry {
  /** Milliseconds until the extension should be called again (> 0). */
  remainingMs: number;
  message: string;
}

interface MachineIdentity {
  metadata: { uid?: string; name?: string; namespace?: string };
}

/**
 * Machines whose extension asked to be called again later, at most: they are the Machines being updated in place at
 * the same time. Beyond it the entry added longest ago goes, and that Machine's extension is called before its time.
 */
export const HOOK_RETRY_CACHE_MAX_ENTRIES = 10_000;

export class HookRetryCache {
  private readonly entries: LRUExpireCache<{ retryAt: number; message: string }>;

  constructor(private readonly clock: PassiveClock = realClock) {
    this.entries = new LRUExpireCache({ max: HOOK_RETRY_CACHE_MAX_ENTRIES, clock });
  }

  /** Keyed by uid when known (a recreated Machine with the same name must not inherit the entry), else ns/name. */
  static key(machine: MachineIdentity, hook: string): string {
    const m = machine.metadata;
    return `${m.uid ? `uid:${m.uid}` : `name:${m.namespace ?? ''}/${m.name ?? ''}`}|${hook}`;
  }

  /** The pending retry, or undefined when there is none or its time has come (the entry is then dropped). */
  get(machine: MachineIdentity, hook: string): HookRetryEntry | undefined {
    const key = HookRetryCache.key(machine, hook);
    const e = this.entries.get(key);
    const remainingMs = e ? e.retryAt - this.clock.now() : 0;
    // The clock may have moved since the cache's own expiry check.
    if (!e || remainingMs <= 0) {
      this.entries.remove(key);
      return undefined;
    }
    return { remainingMs, message: e.message };
  }

  /** Records "retry after `retryAfterSeconds`"; 0 or less removes the entry (the update is done). */
  set(machine: MachineIdentity, hook: string, retryAfterSeconds: number, message = ''): void {
    const key = HookRetryCache.key(machine, hook);
    if (!(retryAfterSeconds > 0)) {
      this.entries.remove(key);
      return;
    }
    const ttlMs = retryAfterSeconds * 1000;
    this.entries.add(key, { retryAt: this.clock.now() + ttlMs, message }, ttlMs);
  }

  delete(machine: MachineIdentity, hook: string): void {
    this.entries.remove(HookRetryCache.key(machine, hook));
  }

  /** Drops entries whose retry time has passed (set() drops the oldest ones already). */
  purgeExpired(): void {
    this.entries.purgeExpired();
  }

  get size(): number {
    return this.entries.size;
  }
}
