// The time source of everything that waits or stamps times, injectable so tests move time by hand
// (k8s.io/utils/clock/clock.go; the fake is in @capi/apimachinery/testing).

/** clock.PassiveClock: reads the time only. */
export interface PassiveClock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

export type TimerHandle = { readonly id: number };

/** clock.Clock: reads the time and runs timers. */
export interface Clock extends PassiveClock {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

let nextTimerId = 1;

/** Wall-clock time backed by Node timers. Timers are unref'd so they never keep the process alive. */
export class RealClock implements Clock {
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = nextTimerId++;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }
}

export const realClock: Clock = new RealClock();

/** Resolves after `ms` on the given clock; resolves early if the signal aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const h = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clock.clearTimeout(h);
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
