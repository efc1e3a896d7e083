import { FakeClock } from '@capi/apimachinery/testing';
import { rateLimiterFor, TokenBucketRateLimiter } from './token-bucket';

/** Starts `n` waits and returns, per wait, whether it has resolved (updated as the fake clock advances). */
function startWaits(
  limiter: TokenBucketRateLimiter,
  n: number,
  signal?: AbortSignal,
): { done: boolean[]; waited: number[] } {
  const done = Array.from({ length: n }, () => false);
  const waited: number[] = [];
  for (let i = 0; i < n; i++) void limiter.wait(signal).then((ms) => ((done[i] = true), (waited[i] = ms)));
  return { done, waited };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('TokenBucketRateLimiter (client-go token bucket: qps refill, burst capacity)', () => {
  it('lets a burst through at once, then one request per 1/qps, in arrival order', async () => {
    const clock = new FakeClock(1_000);
    const limiter = new TokenBucketRateLimiter(10, 3, clock);
    const { done, waited } = startWaits(limiter, 6);
    await flush();
    expect(done).toEqual([true, true, true, false, false, false]);
    clock.advance(99);
    await flush();
    expect(done.filter(Boolean)).toHaveLength(3);
    clock.advance(1); // 100 ms: one token refilled at 10 qps
    await flush();
    expect(done).toEqual([true, true, true, true, false, false]);
    clock.advance(200);
    await flush();
    expect(done.every(Boolean)).toBe(true);
    expect(waited).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('refills up to burst only, however long it sat idle', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(5, 2, clock);
    expect([limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept()]).toEqual([true, true, false]);
    clock.advance(60_000);
    expect([limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept()]).toEqual([true, true, false]);
    clock.advance(200); // one token at 5 qps
    expect([limiter.tryAccept(), limiter.tryAccept()]).toEqual([true, false]);
  });

  it('an aborted wait resolves at once', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(1, 1, clock);
    const abort = new AbortController();
    const { done } = startWaits(limiter, 2, abort.signal);
    await flush();
    expect(done).toEqual([true, false]);
    abort.abort();
    await flush();
    expect(done).toEqual([true, true]);
  });

  it('rejects nonsense limits; rateLimiterFor turns a limit <= 0 into no limiter', () => {
    expect(() => new TokenBucketRateLimiter(0, 1)).toThrow(/qps must be a positive number/);
    expect(() => new TokenBucketRateLimiter(1, 0)).toThrow(/burst must be an integer >= 1/);
    expect(rateLimiterFor(undefined)).toBeUndefined();
    expect(rateLimiterFor({ qps: -1, burst: 30 })).toBeUndefined();
    expect(rateLimiterFor({ qps: 20, burst: 30 })).toMatchObject({ qps: 20, burst: 30 });
  });
});
