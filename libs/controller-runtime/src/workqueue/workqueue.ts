import { Registry } from 'prom-client';
import { type Clock, type TimerHandle, realClock } from '@capi/apimachinery';
import { counter, gauge, histogram } from '../util/metrics';
import { ItemExponentialFailureRateLimiter, RateLimiter, defaultKeyOf } from './rate-limiter';

export interface WorkQueueOptions<T> {
  /** Queue name, used as the metrics label. */
  name?: string;
  clock?: Clock;
  rateLimiter?: RateLimiter<T>;
  /** Identity of an item for dedup; default: strings as-is, other values by JSON. */
  keyOf?: (item: T) => string;
  /** Registry for workqueue_* metrics; none when omitted. */
  registry?: Registry;
}

interface Waiter<T> {
  resolve: (item: T | undefined) => void;
}

/**
 * client-go's rate-limited, delaying work queue:
 * - an item added several times before it is taken is processed once (dirty set);
 * - an item being processed is never handed to a second worker; if re-added meanwhile it is queued again on done();
 * - addAfter / addRateLimited schedule future adds (the earliest pending schedule wins).
 */
export class WorkQueue<T> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<T>;
  private readonly keyOf: (item: T) => string;
  private readonly queue: string[] = [];
  private readonly items = new Map<string, T>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addedAt = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: TimerHandle }>();
  private readonly waiters: Waiter<T>[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  private shuttingDownFlag = false;
  private readonly metrics?: {
    depth: ReturnType<typeof gauge>;
    adds: ReturnType<typeof counter>;
    retries: ReturnType<typeof counter>;
    queueDuration: ReturnType<typeof histogram>;
  };

  constructor(opts: WorkQueueOptions<T> = {}) {
    this.name = opts.name ?? 'queue';
    this.clock = opts.clock ?? realClock;
    this.keyOf = opts.keyOf ?? defaultKeyOf;
    this.rateLimiter = opts.rateLimiter ?? new ItemExponentialFailureRateLimiter<T>({}, this.keyOf);
    if (opts.registry) {
      const r = opts.registry;
      this.metrics = {
        depth: gauge(r, 'workqueue_depth', 'Current depth of workqueue', ['name']),
        adds: counter(r, 'workqueue_adds_total', 'Total number of adds handled by workqueue', ['name']),
        retries: counter(r, 'workqueue_retries_total', 'Total number of retries handled by workqueue', ['name']),
        queueDuration: histogram(
          r,
          'workqueue_queue_duration_seconds',
          'How long in seconds an item stays in workqueue before being requested',
          ['name'],
          [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000],
        ),
      };
      this.metrics.depth.set({ name: this.name }, 0);
    }
  }

  /** Queues the item unless it is already waiting; ignored after shutdown. */
  add(item: T): void {
    if (this.shuttingDownFlag) return;
    const key = this.keyOf(item);
    if (this.dirty.has(key)) return;
    this.metrics?.adds.inc({ name: this.name });
    this.dirty.add(key);
    this.items.set(key, item);
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return; // re-queued by done()
    this.push(key);
  }

  /** Adds the item after `ms`; an earlier pending schedule for the same item is kept. */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDownFlag) return;
    if (ms <= 0) return this.add(item);
    const key = this.keyOf(item);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.clock.clearTimeout(pending.timer);
    const timer = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(item);
    }, ms);
    this.delayed.set(key, { at, timer });
  }

  /** Adds the item after its rate-limited backoff (counts a retry). */
  addRateLimited(item: T): void {
    this.metrics?.retries.inc({ name: this.name });
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears the item's backoff history (call after a successful reconcile). */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Waits for the next item; undefined once the queue is shut down (and, with drain, empty). */
  get(): Promise<T | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.take());
    if (this.shuttingDownFlag) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push({ resolve }));
  }

  /** Marks processing finished; an item re-added meanwhile is queued again. */
  done(item: T): void {
    const key = this.keyOf(item);
    if (!this.processing.delete(key)) return;
    if (this.dirty.has(key)) this.push(key);
    else this.items.delete(key);
    if (this.processing.size === 0) this.drainWaiters.splice(0).forEach((w) => w());
  }

  /** Items waiting to be taken. */
  len(): number {
    return this.queue.length;
  }

  /** Items currently handed to workers. */
  processingCount(): number {
    return this.processing.size;
  }

  isShuttingDown(): boolean {
    return this.shuttingDownFlag;
  }

  /** Stops intake; waiting workers get undefined at once, queued items are dropped. */
  shutDown(): void {
    this.shuttingDownFlag = true;
    this.cancelDelayed();
    this.queue.length = 0;
    this.dirty.clear();
    this.waiters.splice(0).forEach((w) => w.resolve(undefined));
  }

  /** Stops intake and resolves once every item being processed is done. Queued items are dropped. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private cancelDelayed(): void {
    for (const { timer } of this.delayed.values()) this.clock.clearTimeout(timer);
    this.delayed.clear();
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.queue.push(key);
      waiter.resolve(this.take());
      return;
    }
    this.queue.push(key);
    this.metrics?.depth.set({ name: this.name }, this.queue.length);
  }

  private take(): T {
    const key = this.queue.shift()!;
    this.metrics?.depth.set({ name: this.name }, this.queue.length);
    this.dirty.delete(key);
    this.processing.add(key);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined)
      this.metrics?.queueDuration.observe({ name: this.name }, (this.clock.now() - added) / 1000);
    return this.items.get(key)!;
  }
}
