import { Registry } from 'prom-client';
import { type Clock, type TimerHandle, realClock } from '@capi/apimachinery';
import { QueueMetrics } from './metrics';
import { ItemExponentialFailureRateLimiter, RateLimiter, defaultKeyOf } from './rate-limiter';

export interface WorkQueueOptions<T> {
  /** Queue name, the metrics' `name` and `controller` labels. */
  name?: string;
  clock?: Clock;
  rateLimiter?: RateLimiter<T>;
  /** Identity of an item for dedup; default: strings as-is, other values by JSON. */
  keyOf?: (item: T) => string;
  /** Registry for workqueue_* metrics; none when omitted. */
  registry?: Registry;
  /** How often the unfinished-work gauges are refreshed while items are processing (client-go: 500 ms). */
  unfinishedWorkUpdatePeriodMs?: number;
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
  private readonly delayed = new Map<string, { at: number; timer: TimerHandle }>();
  private readonly waiters: Waiter<T>[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  private shuttingDownFlag = false;
  private readonly metrics?: QueueMetrics;

  constructor(opts: WorkQueueOptions<T> = {}) {
    this.name = opts.name ?? 'queue';
    this.clock = opts.clock ?? realClock;
    this.keyOf = opts.keyOf ?? defaultKeyOf;
    this.rateLimiter = opts.rateLimiter ?? new ItemExponentialFailureRateLimiter<T>({}, this.keyOf);
    if (opts.registry)
      this.metrics = new QueueMetrics(opts.registry, this.name, this.clock, opts.unfinishedWorkUpdatePeriodMs);
  }

  /** Queues the item unless it is already waiting; ignored after shutdown. */
  add(item: T): void {
    if (this.shuttingDownFlag) return;
    const key = this.keyOf(item);
    if (this.dirty.has(key)) return;
    this.metrics?.add(key);
    this.dirty.add(key);
    this.items.set(key, item);
    if (this.processing.has(key)) return; // re-queued by done()
    this.push(key);
  }

  /**
   * Adds the item after `ms`; an earlier pending schedule for the same item is kept. A delayed add counts as a retry
   * (workqueue_retries_total), even when an earlier schedule wins, as controller-runtime's priority queue counts it.
   */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDownFlag) return;
    if (ms <= 0) return this.add(item);
    this.metrics?.retry();
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
    this.metrics?.done(key);
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
    this.metrics?.dropped(this.dirty);
    this.metrics?.stop();
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
  }

  private take(): T {
    const key = this.queue.shift()!;
    this.metrics?.get(key);
    this.dirty.delete(key);
    this.processing.add(key);
    return this.items.get(key)!;
  }
}
