// UpdateMachine retry cache (upstream hookCache in core/reconcilers/machine/machine_controller_inplace_update.go,
// util/cache/cache.go HookEntry): while an extension said "call me again in N seconds", reconciles
// before that time return the remaining delay and the last message without calling the extension.
import type { NowClock } from '@capi/ssa';

export interface HookRetryEntry {
  /** Milliseconds until the extension should be called again (> 0). */
  remainingMs: number;
  message: string;
}

interface MachineIdentity {
  metadata: { uid?: string; name?: string; namespace?: string };
}

export class HookRetryCache {
  private readonly entries = new Map<string, { retryAt: number; message: string }>();

  constructor(private readonly clock: NowClock = { now: () => Date.now() }) {}

  /** Keyed by uid when known (a recreated Machine with the same name must not inherit the entry), else ns/name. */
  static key(machine: MachineIdentity, hook: string): string {
    const m = machine.metadata;
    return `${m.uid ? `uid:${m.uid}` : `name:${m.namespace ?? ''}/${m.name ?? ''}`}|${hook}`;
  }

  /** The pending retry, or undefined when there is none or its time has come (the entry is then dropped). */
  get(machine: MachineIdentity, hook: string): HookRetryEntry | undefined {
    const key = HookRetryCache.key(machine, hook);
    const e = this.entries.get(key);
    if (!e) return undefined;
    const remainingMs = e.retryAt - this.clock.now();
    if (remainingMs <= 0) {
      this.entries.delete(key);
      return undefined;
    }
    return { remainingMs, message: e.message };
  }

  /** Records "retry after `retryAfterSeconds`"; 0 or less removes the entry (the update is done). */
  set(machine: MachineIdentity, hook: string, retryAfterSeconds: number, message = ''): void {
    const key = HookRetryCache.key(machine, hook);
    if (!(retryAfterSeconds > 0)) {
      this.entries.delete(key);
      return;
    }
    this.purgeExpired();
    this.entries.set(key, { retryAt: this.clock.now() + retryAfterSeconds * 1000, message });
  }

  delete(machine: MachineIdentity, hook: string): void {
    this.entries.delete(HookRetryCache.key(machine, hook));
  }

  /** Drops entries whose retry time has passed (called on every set, so the map stays small). */
  purgeExpired(): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) if (e.retryAt <= now) this.entries.delete(k);
  }

  get size(): number {
    return this.entries.size;
  }
}
