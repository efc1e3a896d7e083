import type { RequestRateLimiter } from '@capi/controller-runtime';

/** A rate limiter whose tokens the test hands out: closed, requests wait until release(). Counts the waits. */
export class GatedLimiter implements RequestRateLimiter {
  waits = 0;
  private open = true;
  private readonly parked: Array<() => void> = [];

  close(): void {
    this.open = false;
  }

  release(): void {
    this.open = true;
    this.parked.splice(0).forEach((r) => r());
  }

  async wait(): Promise<number> {
    this.waits++;
    if (!this.open) await new Promise<void>((r) => this.parked.push(r));
    return 0;
  }
}
