import { formatTime } from '@capi/api';

/** A clock tests move by hand (epoch milliseconds); pass it where code takes `{ now(): number }`. */
export class ManualClock {
  constructor(public t = Date.parse('2026-01-01T00:00:00Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  /** RFC 3339 time `offsetS` seconds from the clock's now. */
  at(offsetS = 0): string {
    return formatTime(new Date(this.t + offsetS * 1000));
  }
}
