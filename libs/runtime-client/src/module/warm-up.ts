// Registry warm-up policy and readiness, as pure pieces the Nest module wires together (upstream:
// exp/runtime/internal/controllers/warmup.go retries every 2 s for 60 s once this process leads).
import type { ExtensionRegistry } from '../registry';

export interface WarmUpPolicy {
  /** Delay between attempts when listing ExtensionConfigs fails. Default 2 s (upstream). */
  retryIntervalMs?: number;
  /** Give up after this long; the readiness check then reports the last error. Default 60 s (upstream). */
  timeoutMs?: number;
}

export interface WarmUpSleep {
  (ms: number): Promise<void>;
}

export type WarmUpOutcome =
  | { ok: true; attempts: number; extensionErrors: Error[] }
  | { ok: false; attempts: number; error: Error };

/**
 * Runs `attempt` until it resolves, retrying after `retryIntervalMs` while the elapsed time stays under `timeoutMs`
 * and `cancelled()` is false. `attempt` is the reconciler's warmUp(): it throws when it cannot list ExtensionConfigs
 * or, before the `final` attempt, when a discovery failed; on the final attempt per-extension discovery failures come
 * back as `errors` (normal reconciles retry those).
 */
export async function runWarmUp(
  attempt: (final: boolean) => Promise<{ errors: Error[] }>,
  opts: WarmUpPolicy & { sleep: WarmUpSleep; now: () => number; cancelled?: () => boolean },
): Promise<WarmUpOutcome> {
  const interval = opts.retryIntervalMs ?? 2_000;
  const timeout = opts.timeoutMs ?? 60_000;
  const start = opts.now();
  let attempts = 0;
  for (;;) {
    attempts++;
    // The last attempt the time budget allows may settle for what it can (the reconciler retries the rest).
    const final = opts.now() - start + interval >= timeout;
    try {
      const { errors } = await attempt(final);
      return { ok: true, attempts, extensionErrors: errors };
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      if (opts.cancelled?.() || opts.now() - start + interval >= timeout) {
        return { ok: false, attempts, error: new Error(`ExtensionConfig registry warm-up timed out after ${timeout}ms: ${error.message}`) };
      }
      await opts.sleep(interval);
      if (opts.cancelled?.()) return { ok: false, attempts, error: new Error('ExtensionConfig registry warm-up cancelled') };
    }
  }
}

/** What the readiness check looks at. */
export interface RegistryReadinessState {
  registry: Pick<ExtensionRegistry, 'isReady'>;
  /** Only the leader warms up; a standby replica must still report ready (or a rolling update would deadlock). */
  isLeader: () => boolean;
  /** Set when warm-up gave up. */
  failure?: () => Error | undefined;
}

/** Readiness: true, or a reason string (the manager's CheckRegistry convention). */
export function registryReadiness(state: RegistryReadinessState): true | string {
  if (!state.isLeader()) return true;
  if (state.registry.isReady()) return true;
  const failure = state.failure?.();
  return failure ? failure.message : 'ExtensionConfig registry is not warmed up yet';
}
