import { FakeClock } from '@capi/apimachinery/testing';
import { ReconcileRateLimit } from './rate-limit';
import { ItemExponentialFailureRateLimiter } from '../workqueue/rate-limiter';

describe('ReconcileRateLimit (upstream util/controller reconcilerWrapper)', () => {
  it('admits a request once per interval and says how long the next must wait', () => {
    const clock = new FakeClock();
    const limit = new ReconcileRateLimit(1000, clock);
    expect(limit.admit('ns/a')).toBe(0);
    expect(limit.admit('ns/b')).toBe(0);
    clock.advance(300);
    expect(limit.admit('ns/a')).toBe(700);
    // A skipped admission does not push the time further out.
    clock.advance(699);
    expect(limit.admit('ns/a')).toBe(1);
    clock.advance(1);
    expect(limit.admit('ns/a')).toBe(0);
    expect(limit.admit('ns/a')).toBe(1000);
  });

  it('raises a shorter RequeueAfter to the time left, or to one interval once that passed', () => {
    const clock = new FakeClock();
    const limit = new ReconcileRateLimit(1000, clock);
    limit.admit('ns/a');
    clock.advance(200);
    expect(limit.requeueAfter('ns/a', 100)).toBe(800);
    expect(limit.requeueAfter('ns/a', 5000)).toBe(5000);
    clock.advance(2000);
    expect(limit.requeueAfter('ns/a', 100)).toBe(1000);
    expect(limit.requeueAfter('ns/never-admitted', 0)).toBe(1000);
  });

  it('drops entries whose time has passed, so deleted objects do not accumulate', () => {
    const clock = new FakeClock();
    const limit = new ReconcileRateLimit(1000, clock);
    for (let i = 0; i < 1023; i++) limit.admit(`ns/m${i}`);
    expect(limit.size()).toBe(1023);
    clock.advance(1000);
    limit.admit('ns/new');
    expect(limit.size()).toBe(1);
  });
});

describe('failure backoff of rate-limited reconcilers', () => {
  it('adds the interval to the exponential backoff, capped (upstream typedItemExponentialFailureRateLimiter)', () => {
    const r = new ItemExponentialFailureRateLimiter<string>({ offsetMs: 1000, maxDelayMs: 1030 });
    expect([r.when('a'), r.when('a'), r.when('a'), r.when('a'), r.when('a')]).toEqual([1005, 1010, 1020, 1030, 1030]);
    r.forget('a');
    expect(r.when('a')).toBe(1005);
  });
});
