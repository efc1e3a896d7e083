import { Registry } from 'prom-client';
import { FakeClock } from '@capi/apimachinery/testing';
import { WORKQUEUE_DURATION_BUCKETS } from './metrics';
import { WorkQueue } from './workqueue';

const take = async <T>(q: WorkQueue<T>) => {
  const item = await q.get();
  if (item === undefined) throw new Error('queue shut down');
  return item;
};

/** One series' value, looked up by metric name and labels, from the registry's JSON view. */
async function value(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  const match = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return match?.value;
}

const Q = { controller: 'test', name: 'test' };

describe('workqueue metrics (client-go util/workqueue/metrics_test.go)', () => {
  let registry: Registry;
  let clock: FakeClock;
  let q: WorkQueue<string>;
  beforeEach(() => {
    registry = new Registry();
    clock = new FakeClock();
    // client-go's test ticks every 1 ms; milliseconds here are its microseconds scaled by 1000.
    q = new WorkQueue<string>({ name: 'test', clock, registry, unfinishedWorkUpdatePeriodMs: 1000 });
  });
  afterEach(() => q.shutDown());

  it('creates every series of a named queue at zero, labelled with the queue name as name and controller', async () => {
    const text = await registry.metrics();
    for (const line of [
      'workqueue_depth{controller="test",name="test",priority=""} 0',
      'workqueue_adds_total{controller="test",name="test"} 0',
      'workqueue_retries_total{controller="test",name="test"} 0',
      'workqueue_queue_duration_seconds_count{controller="test",name="test"} 0',
      'workqueue_work_duration_seconds_count{controller="test",name="test"} 0',
      'workqueue_unfinished_work_seconds{controller="test",name="test"} 0',
      'workqueue_longest_running_processor_seconds{controller="test",name="test"} 0',
    ])
      expect(text).toContain(line);
    for (const [name, type] of [
      ['workqueue_depth', 'gauge'],
      ['workqueue_adds_total', 'counter'],
      ['workqueue_queue_duration_seconds', 'histogram'],
      ['workqueue_work_duration_seconds', 'histogram'],
      ['workqueue_unfinished_work_seconds', 'gauge'],
      ['workqueue_longest_running_processor_seconds', 'gauge'],
      ['workqueue_retries_total', 'counter'],
    ])
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
  });

  it('uses ExponentialBuckets(10e-9, 10, 12) for both durations', async () => {
    expect(WORKQUEUE_DURATION_BUCKETS).toEqual([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000]);
    const text = await registry.metrics();
    for (const name of ['workqueue_queue_duration_seconds', 'workqueue_work_duration_seconds']) {
      const les = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"`, 'gm'))].map((m) => m[1]);
      expect(les).toEqual([
        '1e-8',
        '1e-7',
        '0.000001',
        '0.00001',
        '0.0001',
        '0.001',
        '0.01',
        '0.1',
        '1',
        '10',
        '100',
        '1000',
        '+Inf',
      ]);
    }
  });

  it('TestMetrics: adds, depth, latency, work duration and the unfinished-work gauges', async () => {
    const latency = () => registry.getSingleMetric('workqueue_queue_duration_seconds')!.get();
    const duration = () => registry.getSingleMetric('workqueue_work_duration_seconds')!.get();
    const sumCount = async (m: Awaited<ReturnType<typeof latency>>) => ({
      sum: m.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_sum'))!.value,
      count: m.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count'))!.value,
    });

    q.add('foo');
    expect(await value(registry, 'workqueue_adds_total', Q)).toBe(1);
    expect(await value(registry, 'workqueue_depth', Q)).toBe(1);

    clock.advance(50);
    expect(await take(q)).toBe('foo');
    expect(await sumCount(await latency())).toEqual({ sum: 0.05, count: 1 });

    // Added back while processing; further adds of the same item are de-duplicated.
    for (let i = 0; i < 5; i++) q.add('foo');
    expect(await value(registry, 'workqueue_adds_total', Q)).toBe(2);
    expect(await value(registry, 'workqueue_depth', Q)).toBe(1); // one thing remains in the queue

    clock.advance(25);
    q.done('foo');
    expect(await sumCount(await duration())).toEqual({ sum: 0.025, count: 1 });
    expect(await value(registry, 'workqueue_depth', Q)).toBe(1);

    expect(await take(q)).toBe('foo'); // back on the queue
    expect(await value(registry, 'workqueue_depth', Q)).toBe(0);
    const l = await sumCount(await latency());
    expect(l.count).toBe(2);
    expect(l.sum).toBeCloseTo(0.05 + 0.025, 9);

    // The ticker runs in phase with the queue's creation: the first tick is at 1 s, foo in flight since 75 ms.
    clock.advance(924);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(0);
    clock.advance(1);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(0.925);
    expect(await value(registry, 'workqueue_longest_running_processor_seconds', Q)).toBe(0.925);

    q.done('foo');
    const d = await sumCount(await duration());
    expect(d.count).toBe(2);
    expect(d.sum).toBeCloseTo(0.025 + 0.925, 9);
  });

  it('sums the age of every item in flight and reports the oldest; back to zero once all are done', async () => {
    q.add('a');
    await take(q);
    clock.advance(3000); // ticks at 1 s, 2 s, 3 s
    q.add('b');
    await take(q);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(3);
    clock.advance(1000);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(4 + 1);
    expect(await value(registry, 'workqueue_longest_running_processor_seconds', Q)).toBe(4);
    q.done('a');
    q.done('b');
    // Like client-go, the gauges change on the next tick, not on done().
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(5);
    clock.advance(1000);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(0);
    expect(await value(registry, 'workqueue_longest_running_processor_seconds', Q)).toBe(0);
    expect(clock.pendingTimers()).toBe(0); // an idle queue keeps no ticker
  });

  it('TestMetricShutdown: no unfinished-work update after shutdown', async () => {
    q.add('a');
    await take(q);
    clock.advance(1000);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(1);
    q.shutDown();
    clock.advance(3_600_000);
    expect(await value(registry, 'workqueue_unfinished_work_seconds', Q)).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('counts a retry per delayed add: rate-limited, addAfter (even when an earlier schedule wins), not immediate adds', async () => {
    q.addRateLimited('a');
    expect(await value(registry, 'workqueue_retries_total', Q)).toBe(1);
    expect(await value(registry, 'workqueue_adds_total', Q)).toBe(0); // not ready yet
    q.addAfter('b', 100);
    q.addAfter('b', 200);
    expect(await value(registry, 'workqueue_retries_total', Q)).toBe(3);
    q.addAfter('c', 0);
    expect(await value(registry, 'workqueue_retries_total', Q)).toBe(3);
    expect(await value(registry, 'workqueue_adds_total', Q)).toBe(1);
    clock.advance(100);
    expect(await value(registry, 'workqueue_adds_total', Q)).toBe(3);
    expect(await value(registry, 'workqueue_depth', Q)).toBe(3);
  });

  it('dropping queued items on shutdown empties the depth', async () => {
    q.add('a');
    q.add('b');
    expect(await value(registry, 'workqueue_depth', Q)).toBe(2);
    q.shutDown();
    expect(await value(registry, 'workqueue_depth', Q)).toBe(0);
  });
});
