// Registry warm-up policy and readiness, as pure pieces the Nest module wires together (upstream:
// exp/runtime/internal/controllers/warmup.go retries every 2 s for 60 s once this process leads).
import type { ExtensionRegistry } from '../registry';

// Upstream's defaultWarmupInterval (2 s) and defaultWarmupTimeout (60 s), internal/controllers/extensionconfig/warmup.go.
const DEFAULT_RETRY_INTERVAL_MS = 2_000;
const DEFAULT_TIMEOUT_MS = 60_000;

export interface WarmUpPolicy {
  /** Delay between attempts (listing or a discovery failed). Default 2 s (upstream). */
  retryIntervalMs?: number;
  /** Give up after this long; the manager then exits (upstream). Default 60 s (upstream). */
  timeoutMs?: number;
  /**
   * Deliberate deviation, off by default: let the last attempt the time budget allows declare the registry ready
   * without the ExtensionConfigs whose discovery failed (the controller retries them later). Upstream never does: a
   * partial registry makes callers decide without an updater that is only briefly unreachable (e.g. a rollout instead
   * of an in-place update).
   */
  allowPartial?: boolean;
}

export interface WarmUpSleep {
  (ms: number): Promise<void>;
}

export type WarmUpOutcome =
  { ok: true; attempts: number; extensionErrors: Error[] } | { ok: false; attempts: number; error: Error };

/**
 * Runs `attempt` until it resolves, retrying after `retryIntervalMs` while the elapsed time stays under `timeoutMs`
 * and `cancelled()` is false. `attempt` is the reconciler's warmUp(): it throws when it cannot list ExtensionConfigs
 * or when a discovery failed, unless `partial` is true (only on the last attempt, and only with `allowPartial`):
 * then per-extension discovery failures come back as `errors` (normal reconciles retry those).
 */
export async function runWarmUp(
  attempt: (partial: boolean) => Promise<{ errors: Error[] }>,
  opts: WarmUpPolicy & { sleep: WarmUpSleep; now: () => number; cancelled?: () => boolean },
): Promise<WarmUpOutcome> {
  const interval = opts.retryIntervalMs ?? DEFAULT_RETRY_INTERVAL_MS;
  const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const start = opts.now();
  /** No time left for another interval: the attempt starting now is the last one. */
  const lastChance = () => opts.now() - start + interval >= timeout;
  let attempts = 0;
  for (;;) {
    attempts++;
    // Only with allowPartial may the last attempt the time budget allows settle for what it can.
    const partial = opts.allowPartial === true && lastChance();
    try {
      const { errors } = await attempt(partial);
      return { ok: true, attempts, extensionErrors: errors };
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      const outOfTime = lastChance();
      // A slow attempt can use up the budget it started with: allowPartial still gets its settling attempt.
      if (outOfTime && !partial && opts.allowPartial === true && !opts.cancelled?.()) continue;
      if (opts.cancelled?.() || outOfTime) {
        return { ok: false, attempts, error: new WarmUpTimeoutError(timeout, error) };
      }
      await opts.sleep(interval);
      if (opts.cancelled?.())
        return { ok: false, attempts, error: new Error('ExtensionConfig registry warm-up cancelled') };
    }
  }
}

/** Discovery failed for these ExtensionConfigs (thrown by the reconciler's warmUp with requireAll). */
export class WarmUpDiscoveryError extends Error {
  constructor(
    readonly extensionConfigs: string[],
    readonly causes: Error[],
  ) {
    super(
      `discovery failed for ${extensionConfigs.length} ExtensionConfig(s) (${extensionConfigs.join(', ')}): ${causes.map((e) => e.message).join('; ')}`,
    );
    this.name = 'WarmUpDiscoveryError';
  }
}

/** The warm-up gave up; `extensionConfigs` names those not discovered in the last attempt (empty if listing failed). */
export class WarmUpTimeoutError extends Error {
  readonly extensionConfigs: string[];
  constructor(
    readonly timeoutMs: number,
    readonly lastError: Error,
  ) {
    super(`ExtensionConfig registry warm-up timed out after ${timeoutMs}ms: ${lastError.message}`);
    this.name = 'WarmUpTimeoutError';
    this.extensionConfigs = lastError instanceof WarmUpDiscoveryError ? lastError.extensionConfigs : [];
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
