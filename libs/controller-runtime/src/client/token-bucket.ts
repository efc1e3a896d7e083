// Client-side request throttling as client-go's flowcontrol.NewTokenBucketRateLimiter(qps, burst): the bucket holds up
// to `burst` tokens and refills at `qps` per second; every request takes one, waiting its turn when the bucket is
// empty. Waiters are served in arrival order (each reserves the next token, like x/time/rate's Reserve), so a burst of
// 100 requests at qps 20 / burst 30 sends 30 at once and the rest at 20 per second.
import { type Clock, realClock, sleep } from '@capi/apimachinery';

export interface ClientRateLimit {
  /** Sustained requests per second; a value <= 0 means no limit (as client-go with a negative QPS). */
  qps: number;
  /** Requests allowed at once before the qps rate applies; at least 1. */
  burst: number;
}

/** Something a request waits on before it is sent. */
export interface RequestRateLimiter {
  /** Resolves when the request may be sent; resolves at once when the signal aborts. Returns the time waited (ms). */
  wait(signal?: AbortSignal): Promise<number>;
}

export class TokenBucketRateLimiter implements RequestRateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (!(qps > 0) || !Number.isFinite(qps)) throw new Error(`token bucket qps must be a positive number, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1)
      throw new Error(`token bucket burst must be an integer >= 1, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes a token now if one is there (no waiting). */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  async wait(signal?: AbortSignal): Promise<number> {
    const delay = this.reserve();
    if (delay <= 0) return 0;
    await sleep(this.clock, delay, signal);
    return delay;
  }

  /** Takes the next token, possibly one not yet refilled (tokens go negative), and returns how long until it is. */
  private reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }
}

/**
 * One token bucket per key, made on first use. controller-runtime's client builds a REST client per GroupVersionKind
 * (pkg/client/client_rest_resources.go), and client-go gives each REST client its own bucket from rest.Config's
 * QPS/Burst (rest.RESTClientForConfigAndClient); discovery and the event recorder have theirs. So upstream's
 * --kube-api-qps=100 is 100 per second for Machines, 100 for MachineSets, and so on, not 100 in all.
 */
export class TokenBucketsByResource {
  private readonly buckets = new Map<string, TokenBucketRateLimiter>();

  constructor(
    readonly limit: ClientRateLimit,
    private readonly clock?: Clock,
  ) {}

  for(key: string): TokenBucketRateLimiter {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = rateLimiterFor(this.limit, this.clock)!));
    return bucket;
  }
}

/** The limiter for a client-side limit, or undefined when the limit is off. */
export function rateLimiterFor(limit: ClientRateLimit | undefined, clock?: Clock): TokenBucketRateLimiter | undefined {
  if (!limit || !(limit.qps > 0)) return undefined;
  return new TokenBucketRateLimiter(limit.qps, Math.max(1, Math.floor(limit.burst)), clock);
}
