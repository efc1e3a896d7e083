// A clock tests move by hand (k8s.io/utils/clock/testing/fake_clock.go): pass it wherever a PassiveClock or Clock
// is taken; timers fire when advance() reaches them.
import type { Clock, TimerHandle } from '../clock/clock';
import { formatTime } from '../time';

/** The default start: a fixed instant, so times written by code under test are predictable. */
const DEFAULT_START = Date.parse('2026-01-01T00:00:00Z');

interface Timer {
  at: number;
  fn: () => void;
  seq: number;
}

export class FakeClock implements Clock {
  private current: number;
  private readonly timers = new Map<number, Timer>();
  private nextId = 1;
  private seq = 0;

  /** `start`: epoch milliseconds, 2026-01-01T00:00:00Z by default. */
  constructor(start = DEFAULT_START) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** RFC 3339 time `offsetS` seconds from now (negative: in the past), as metav1.Time writes it. */
  at(offsetS = 0): string {
    return formatTime(this.current + offsetS * 1000);
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
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
      let next: [number, Timer] | undefined;
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
