import { Registry } from 'prom-client';
import { FakeClock } from '@capi/apimachinery/testing';
import { ItemExponentialFailureRateLimiter } from './rate-limiter';
import { WorkQueue } from './workqueue';

const take = async <T>(q: WorkQueue<T>) => {
  const item = await q.get();
  if (item === undefined) throw new Error('queue shut down');
  return item;
};

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles the delay per failure from 5ms, capped at the max, and resets on forget', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>({ maxDelayMs: 100 });
    expect([1, 2, 3, 4, 5, 6].map(() => rl.when('a'))).toEqual([5, 10, 20, 40, 80, 100]);
    expect(rl.numRequeues('a')).toBe(6);
    expect(rl.when('b')).toBe(5);
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.when('a')).toBe(5);
  });

  it('defaults to a 1000s cap and never overflows', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>();
    let last = 0;
    for (let i = 0; i < 2000; i++) last = rl.when('x');
    expect(last).toBe(1_000_000);
  });
});

describe('WorkQueue', () => {
  it('dedups an item added several times before it is taken', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await take(q)).toBe('a');
    expect(await take(q)).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('dedups object items by value', async () => {
    const q = new WorkQueue<{ namespace?: string; name: string }>();
    q.add({ namespace: 'ns', name: 'x' });
    q.add({ namespace: 'ns', name: 'x' });
    q.add({ namespace: 'other', name: 'x' });
    expect(q.len()).toBe(2);
  });

  it('never hands an item being processed to a second worker; a re-add runs again after done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const first = await take(q);
    q.add('a'); // arrives while processing
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((i) => (second = i));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done(first);
    await Promise.resolve();
    expect(second).toBe('a');
  });

  it('runs distinct keys concurrently while serialising one key', async () => {
    const q = new WorkQueue<string>();
    const active = new Set<string>();
    let maxParallel = 0;
    let overlapSameKey = false;
    const runs: string[] = [];
    const worker = async () => {
      for (;;) {
        const item = await q.get();
        if (item === undefined) return;
        if (active.has(item)) overlapSameKey = true;
        active.add(item);
        maxParallel = Math.max(maxParallel, active.size);
        await new Promise((r) => setImmediate(r));
        if (runs.filter((r) => r === item).length === 0 && item === 'a') q.add('a');
        runs.push(item);
        active.delete(item);
        q.done(item);
      }
    };
    q.add('a');
    q.add('b');
    q.add('c');
    const workers = [worker(), worker(), worker()];
    while (runs.length < 4) await new Promise((r) => setImmediate(r));
    q.shutDown();
    await Promise.all(workers);
    expect(overlapSameKey).toBe(false);
    expect(maxParallel).toBe(3);
    expect(runs.filter((r) => r === 'a')).toHaveLength(2);
  });

  it('addAfter delays by the clock and keeps the earliest schedule', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 200);
    clock.advance(49);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    clock.advance(1000);
    expect(q.len()).toBe(1);
  });

  it('addRateLimited backs off exponentially per item until forget', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = clock.now();
      q.addRateLimited('a');
      while (q.len() === 0) clock.advance(1);
      delays.push(clock.now() - start);
      q.done(await take(q));
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues('a')).toBe(4);
    q.forget('a');
    const start = clock.now();
    q.addRateLimited('a');
    while (q.len() === 0) clock.advance(1);
    expect(clock.now() - start).toBe(5);
  });

  it('shutDown releases waiting workers and ignores later adds', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    const waiting = q.get();
    q.addAfter('later', 10);
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('x');
    clock.advance(100);
    expect(q.len()).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('shutDownWithDrain waits for in-flight items to be done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const item = await take(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done(item);
    await drain;
    expect(drained).toBe(true);
  });

  it('records workqueue metrics on the injected registry', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ name: 'machine', clock, registry });
    q.add('a');
    q.add('b');
    clock.advance(2000);
    q.addRateLimited('c');
    const text = await registry.metrics();
    expect(text).toContain('workqueue_depth{controller="machine",name="machine",priority=""} 2');
    expect(text).toContain('workqueue_adds_total{controller="machine",name="machine"} 2');
    expect(text).toContain('workqueue_retries_total{controller="machine",name="machine"} 1');
    await take(q);
    expect(await registry.metrics()).toMatch(
      /workqueue_queue_duration_seconds_sum\{controller="machine",name="machine"\} 2\b/,
    );
  });
});
