import { FakeClock } from '@capi/apimachinery/testing';
import { ReconcileRateLimit } from './rate-limit';
import { ItemExponentialFailureRateLimiter } from '../workqueue/rate-limiter';

describe('ReconcileRateLimit (upstream util/controller reconcilerWrapper)', () => {
  const admit = (limit: ReconcileRateLimit, key: string) => {
    const wait = limit.waitMs(key);
    if (wait === 0) limit.started(key);
    return wait;
  };

  it('admits a request once per interval and says how long the next must wait', () => {
    const clock = new FakeClock();
    const limit = new ReconcileRateLimit(1000, clock);
    expect(admit(limit, 'ns/a')).toBe(0);
    expect(admit(limit, 'ns/b')).toBe(0);
    clock.advance(300);
    expect(admit(limit, 'ns/a')).toBe(700);
    // A skipped admission does not push the time further out.
    clock.advance(699);
    expect(admit(limit, 'ns/a')).toBe(1);
    clock.advance(1);
    expect(admit(limit, 'ns/a')).toBe(0);
    expect(admit(limit, 'ns/a')).toBe(1000);
  });

  it('a deferred request waits until the time asked for, later or sooner than the interval (upstream TestReconcile)', () => {
    const clock = new FakeClock();
    const limit = new ReconcileRateLimit(1000, clock);
    expect(admit(limit, 'default/cluster-1')).toBe(0);
    limit.deferNext('default/cluster-1', 11_000);
    expect(limit.waitMs('default/cluster-1')).toBe(11_000);
    clock.advance(4000);
    expect(limit.waitMs('default/cluster-1')).toBe(7000);
    clock.advance(7000);
    expect(admit(limit, 'default/cluster-1')).toBe(0);
    limit.deferNext('default/cluster-1', 200);
    expect(limit.waitMs('default/cluster-1')).toBe(200);
    // RequeueAfter is raised to the deferral, as a reconcile that defers itself and asks for 1 ms gets 5 s upstream.
    limit.deferNext('default/cluster-1', 5000);
    expect(limit.requeueAfter('default/cluster-1', 1)).toBe(5000);
  });

  it('raises a shorter RequeueAfter to the time left, or to one interval once that passed', () => {
    const clock = new FakeClock();
    const limit = new ReconcileRateLimit(1000, clock);
    admit(limit, 'ns/a');
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
    for (let i = 0; i < 1023; i++) admit(limit, `ns/m${i}`);
    expect(limit.size()).toBe(1023);
    clock.advance(1000);
    admit(limit, 'ns/new');
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
