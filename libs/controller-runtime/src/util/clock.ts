// Injectable time source so queues, informers and leader election can be tested without real waiting.

export type TimerHandle = { readonly id: number };

export interface Clock {
  now(): number;
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

/** Manually advanced clock for deterministic tests. */
export class FakeClock implements Clock {
  private current: number;
  private readonly timers = new Map<number, { at: number; fn: () => void; seq: number }>();
  private seq = 0;

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = nextTimerId++;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn, seq: this.seq++ });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /** Number of timers not yet fired. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing due timers in order (timers scheduled by fired timers included). */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void; seq: number }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at > target) continue;
        if (!next || entry[1].at < next[1].at || (entry[1].at === next[1].at && entry[1].seq < next[1].seq))
          next = entry;
      }
      if (!next) break;
      this.timers.delete(next[0]);
      this.current = Math.max(this.current, next[1].at);
      next[1].fn();
    }
    this.current = target;
  }
}

/** Resolves after `ms` on the given clock; rejects early if the signal aborts. */
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
