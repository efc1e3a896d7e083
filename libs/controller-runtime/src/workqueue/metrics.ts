import { Registry } from 'prom-client';
import { type Clock, type TimerHandle } from '@capi/apimachinery';
import { counter, gauge, histogram } from '../util/metrics';

// controller-runtime's workqueue metrics (pkg/internal/metrics/workqueue.go, names from pkg/metrics/workqueue.go):
// every series carries the queue name twice, as `name` and `controller`; depth also has a `priority` label, empty
// for a queue without priorities (WorkqueueMetricsProvider.NewDepthMetric). Updated as client-go's
// util/workqueue/metrics.go defaultQueueMetrics does.

/** ExponentialBuckets(10e-9, 10, 12): 10 ns … 1000 s. */
export const WORKQUEUE_DURATION_BUCKETS = Array.from({ length: 12 }, (_, i) => Number(`1e${i - 8}`));

/** client-go's defaultUnfinishedWorkUpdatePeriod (util/workqueue/queue.go). */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

const NAME_LABELS = ['controller', 'name'];

/** Registers (or finds) the workqueue_* metrics on a registry. */
export function workqueueMetrics(registry: Registry) {
  return {
    depth: gauge(registry, 'workqueue_depth', 'Current depth of workqueue by workqueue and priority', [
      ...NAME_LABELS,
      'priority',
    ]),
    adds: counter(registry, 'workqueue_adds_total', 'Total number of adds handled by workqueue', NAME_LABELS),
    latency: histogram(
      registry,
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      NAME_LABELS,
      WORKQUEUE_DURATION_BUCKETS,
    ),
    workDuration: histogram(
      registry,
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes.',
      NAME_LABELS,
      WORKQUEUE_DURATION_BUCKETS,
    ),
    unfinished: gauge(
      registry,
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at ' +
        'which this increases.',
      NAME_LABELS,
    ),
    longestRunning: gauge(
      registry,
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running.',
      NAME_LABELS,
    ),
    retries: counter(
      registry,
      'workqueue_retries_total',
      'Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit ' +
        'RequeueAfter or AddAfter calls)',
      NAME_LABELS,
    ),
  };
}

/**
 * The metrics of one named queue. Series exist (at zero) from construction, as client-go creates them with the
 * queue. Unfinished-work gauges are refreshed every `updatePeriodMs` while items are being processed. client-go ticks
 * for the queue's whole life; here the ticker stops after the tick that saw nothing in flight, so an idle queue keeps
 * no timer, and restarts in phase with the queue's creation, so the gauges hold client-go's values at every tick.
 */
export class QueueMetrics {
  private readonly m: ReturnType<typeof workqueueMetrics>;
  private readonly labels: { controller: string; name: string };
  private readonly addTimes = new Map<string, number>();
  private readonly processingStartTimes = new Map<string, number>();
  private ticker?: TimerHandle;
  private stopped = false;
  private readonly createdAt: number;

  constructor(
    registry: Registry,
    name: string,
    private readonly clock: Clock,
    private readonly updatePeriodMs = UNFINISHED_WORK_UPDATE_PERIOD_MS,
  ) {
    this.m = workqueueMetrics(registry);
    this.labels = { controller: name, name };
    this.createdAt = clock.now();
    this.m.depth.set(this.depthLabels(), 0);
    this.m.adds.inc(this.labels, 0);
    this.m.retries.inc(this.labels, 0);
    this.m.latency.zero(this.labels);
    this.m.workDuration.zero(this.labels);
    this.m.unfinished.set(this.labels, 0);
    this.m.longestRunning.set(this.labels, 0);
  }

  /** An item became dirty (not a duplicate): client-go counts it as added and queued even while it is processing. */
  add(key: string): void {
    this.m.adds.inc(this.labels);
    this.m.depth.inc(this.depthLabels());
    if (!this.addTimes.has(key)) this.addTimes.set(key, this.clock.now());
  }

  /** A worker took the item. */
  get(key: string): void {
    this.m.depth.dec(this.depthLabels());
    this.processingStartTimes.set(key, this.clock.now());
    const added = this.addTimes.get(key);
    if (added !== undefined) {
      this.m.latency.observe(this.labels, this.since(added));
      this.addTimes.delete(key);
    }
    if (!this.ticker && !this.stopped) this.scheduleTick();
  }

  /** The worker finished the item. */
  done(key: string): void {
    const started = this.processingStartTimes.get(key);
    if (started === undefined) return;
    this.m.workDuration.observe(this.labels, this.since(started));
    this.processingStartTimes.delete(key);
  }

  /** An add with a delay (AddAfter, AddRateLimited, RequeueAfter). */
  retry(): void {
    this.m.retries.inc(this.labels);
  }

  /** Queued items were dropped (shutdown): they are no longer waiting. */
  dropped(keys: Iterable<string>): void {
    for (const key of keys) {
      this.addTimes.delete(key);
      this.m.depth.dec(this.depthLabels());
    }
  }

  /** Stops the unfinished-work ticker; the gauges keep their last values (client-go: no update after ShutDown). */
  stop(): void {
    this.stopped = true;
    if (this.ticker) this.clock.clearTimeout(this.ticker);
    this.ticker = undefined;
  }

  /** Sets the unfinished-work gauges from the items in flight (client-go's updateUnfinishedWork). */
  updateUnfinishedWork(): void {
    let total = 0;
    let oldest = 0;
    for (const started of this.processingStartTimes.values()) {
      const age = this.since(started);
      total += age;
      if (age > oldest) oldest = age;
    }
    this.m.unfinished.set(this.labels, total);
    this.m.longestRunning.set(this.labels, oldest);
  }

  private scheduleTick(): void {
    const sinceCreation = this.clock.now() - this.createdAt;
    this.ticker = this.clock.setTimeout(
      () => {
        this.ticker = undefined;
        this.updateUnfinishedWork();
        if (this.processingStartTimes.size > 0 && !this.stopped) this.scheduleTick();
      },
      this.updatePeriodMs - (sinceCreation % this.updatePeriodMs),
    );
  }

  private depthLabels() {
    return { ...this.labels, priority: '' };
  }

  private since(startMs: number): number {
    return (this.clock.now() - startMs) / 1000;
  }
}
