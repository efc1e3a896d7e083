// Bounded real-time polling for tests: wait for a condition, or for controllers' work queues to go quiet.
export type Falsy = undefined | null | false | 0 | '';

export interface EventuallyOptions {
  /** Names what is awaited; the timeout error reads "timed out waiting for <message>". */
  message: string;
  /** Give up after this long (default EVENTUALLY_TIMEOUT_MS, 20 s). */
  timeoutMs?: number;
  /** Pause between attempts (default EVENTUALLY_INTERVAL_MS, 20 ms). */
  intervalMs?: number;
}

// Generous default: CI has 2 cores shared by two jest processes, and some steps start servers (TLS keys); a correct
// controller converges well within it, a broken one only takes longer to report. (Not gomega's Eventually defaults,
// 1 s / 10 ms: those suit one fast process.)
const EVENTUALLY_TIMEOUT_MS = 20_000;
const EVENTUALLY_INTERVAL_MS = 20;
/** settle(): how long queues must stay idle, how long it may take, and how often they are looked at. */
const SETTLE_QUIET_MS = 150;
const SETTLE_TIMEOUT_MS = 10_000;
const SETTLE_POLL_INTERVAL_MS = 10;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const describeError = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Calls `check` until it returns a truthy value (which is returned) or the timeout passes. A throwing check counts as
 * "not yet"; the last error is appended to the timeout error so a failing test says why. `opts` may be just the message.
 */
export async function eventually<T>(
  check: () => T | Falsy | Promise<T | Falsy>,
  opts: EventuallyOptions | string,
): Promise<T> {
  const {
    message,
    timeoutMs = EVENTUALLY_TIMEOUT_MS,
    intervalMs = EVENTUALLY_INTERVAL_MS,
  } = typeof opts === 'string' ? { message: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as T;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${message}${lastError ? `: ${describeError(lastError)}` : ''}`);
    await sleep(intervalMs);
  }
}

export interface SettleOptions {
  /** How long every queue must stay empty with nothing processing (default SETTLE_QUIET_MS, 150 ms). */
  quietMs?: number;
  /** Give up after this long (default SETTLE_TIMEOUT_MS, 10 s). */
  timeoutMs?: number;
}

/**
 * Waits until the named controllers of `manager` exist and have had empty queues and no reconcile running for
 * `quietMs` (bounded by `timeoutMs`): "the controllers have nothing left to do" for assertions about steady state.
 */
/** The part of a controller-runtime Manager settle looks at. */
export interface ControllerQueues {
  controller(name: string): { queue: { len(): number; processingCount(): number } } | undefined;
}

export async function settle(
  manager: ControllerQueues,
  controllers: string[],
  opts: SettleOptions = {},
): Promise<void> {
  const { quietMs = SETTLE_QUIET_MS, timeoutMs = SETTLE_TIMEOUT_MS } = opts;
  const deadline = Date.now() + timeoutMs;
  let quietSince = Date.now();
  for (;;) {
    const busy = controllers.some((name) => {
      const c = manager.controller(name);
      return !c || c.queue.len() > 0 || c.queue.processingCount() > 0;
    });
    if (busy) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    if (Date.now() > deadline)
      throw new Error(`controller(s) ${controllers.join(', ')} did not settle within ${timeoutMs} ms`);
    await sleep(SETTLE_POLL_INTERVAL_MS);
  }
}
