import { hostname } from 'os';
import { Logger } from '@nestjs/common';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors';
import { Client } from '../client/types';
import { type Clock, realClock, sleep } from '@capi/apimachinery';
import { decideLease, Lease, microTime } from './lease';

// controller-runtime's defaults: defaultLeaseDuration, defaultRenewDeadline, defaultRetryPeriod (pkg/manager/manager.go).
const DEFAULT_LEASE_DURATION_MS = 15_000;
const DEFAULT_RENEW_DEADLINE_MS = 10_000;
const DEFAULT_RETRY_PERIOD_MS = 2_000;

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  /** Unique per candidate; default: hostname + random suffix. */
  identity?: string;
  leaseDurationMs?: number;
  /** A leader that cannot renew for this long steps down. */
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Give the lease up on stop (so another candidate takes over at once). Default true. */
  releaseOnCancel?: boolean;
}

export interface LeaderCallbacks {
  onStartedLeading(): void | Promise<void>;
  onStoppedLeading(): void | Promise<void>;
  onNewLeader?(identity: string): void;
}

/** Leader election on a coordination.k8s.io/v1 Lease with optimistic concurrency on its resourceVersion. */
export class LeaderElector {
  readonly identity: string;
  private readonly clock: Clock;
  private readonly log = new Logger('LeaderElector');
  private readonly abort = new AbortController();
  private leading = false;
  private running?: Promise<void>;
  private observed?: { holder: string; renewTime?: string; at: number };
  private lastLease?: Lease;
  /** When this candidate last acquired or renewed the lease (clock ms); undefined before it ever did. */
  private lastRenewAt?: number;
  /** Stepped down because renewals failed (not stopped): refuse work until the lease is acquired again. */
  private lost = false;

  constructor(
    private readonly client: Client,
    private readonly opts: LeaderElectionOptions,
    private readonly callbacks: LeaderCallbacks,
    clock?: Clock,
  ) {
    this.clock = clock ?? realClock;
    this.identity = opts.identity ?? `${hostname()}_${Math.random().toString(36).slice(2, 10)}`;
    const d = this.durations();
    if (!(d.lease > d.renewDeadline && d.renewDeadline > d.retry)) {
      throw new Error('leader election needs leaseDuration > renewDeadline > retryPeriod');
    }
  }

  /**
   * False once this candidate led and its last successful acquire/renew is older than the renew deadline (see
   * LeadershipFence), even before the renew loop noticed, and after it stepped down for failed renewals; true before
   * it ever led.
   */
  mayAct(): boolean {
    if (this.lastRenewAt === undefined) return true;
    if (this.lost) return false;
    return this.clock.now() - this.lastRenewAt < this.durations().renewDeadline;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Runs the acquire/renew loop in the background. */
  start(): void {
    if (!this.running) this.running = this.run();
  }

  /** Stops campaigning; a leader steps down (callbacks fire) and releases the lease unless disabled. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /**
   * One acquire-or-renew attempt; true when this candidate holds the lease afterwards. With `writeDeadline` (epoch ms)
   * no write is sent from then on: client-go runs each renew round under a RenewDeadline context, so a renewal whose
   * read came back after a pause fails without a request (leaderelection.go renew) instead of writing a Lease another
   * candidate may hold by now.
   */
  async tryAcquireOrRenew(writeDeadline?: number): Promise<boolean> {
    const ref = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: this.opts.namespace,
      name: this.opts.name,
    };
    const now = this.clock.now();
    const lease = await this.client.tryGet<Lease>(ref);
    if (lease) this.observe(lease, now);
    const decision = decideLease({
      lease,
      identity: this.identity,
      now,
      leaseDurationSeconds: Math.ceil(this.durations().lease / 1000),
      observedAt: this.observed?.at ?? now,
    });
    if (decision.action === 'wait') return false;
    if (writeDeadline !== undefined && this.clock.now() >= writeDeadline) return false;
    try {
      if (decision.action === 'create') {
        this.lastLease = await this.client.create<Lease>({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: ref.name, namespace: ref.namespace },
          spec: decision.spec,
        });
      } else {
        this.lastLease = await this.client.update<Lease>({ ...lease!, spec: decision.spec });
      }
    } catch (e) {
      if (isConflict(e) || isAlreadyExists(e) || isNotFound(e)) return false; // someone else wrote first
      throw e;
    }
    this.observe(this.lastLease, now);
    this.lastRenewAt = now;
    return true;
  }

  private durations() {
    return {
      lease: this.opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
      renewDeadline: this.opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
      retry: this.opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    };
  }

  private observe(lease: Lease, now: number): void {
    const holder = lease.spec?.holderIdentity ?? '';
    const renewTime = lease.spec?.renewTime;
    if (!this.observed || this.observed.holder !== holder || this.observed.renewTime !== renewTime) {
      if (this.observed?.holder !== holder && holder && holder !== this.identity) this.callbacks.onNewLeader?.(holder);
      this.observed = { holder, renewTime, at: now };
    }
  }

  private async attempt(writeDeadline?: number): Promise<boolean> {
    try {
      return await this.tryAcquireOrRenew(writeDeadline);
    } catch (e) {
      this.log.warn(`lease ${this.opts.namespace}/${this.opts.name}: ${(e as Error).message}`);
      return false;
    }
  }

  private async run(): Promise<void> {
    const d = this.durations();
    const signal = this.abort.signal;
    while (!signal.aborted) {
      // Campaign until acquired.
      while (!signal.aborted && !(await this.attempt())) await sleep(this.clock, d.retry, signal);
      if (signal.aborted) break;
      this.leading = true;
      this.lost = false;
      this.log.log(`${this.identity} became leader of ${this.opts.namespace}/${this.opts.name}`);
      await this.callbacks.onStartedLeading();
      // Renew every retry period; step down if no renewal succeeds within the renew deadline.
      let lastRenew = this.clock.now();
      while (!signal.aborted) {
        await sleep(this.clock, d.retry, signal);
        if (signal.aborted) break;
        if (await this.attempt(lastRenew + d.renewDeadline)) lastRenew = this.clock.now();
        else if (this.clock.now() - lastRenew >= d.renewDeadline) break;
      }
      this.leading = false;
      if (!signal.aborted) {
        this.lost = true;
        this.log.warn(`${this.identity} lost the lease ${this.opts.namespace}/${this.opts.name}`);
      }
      await this.callbacks.onStoppedLeading();
    }
    if (this.opts.releaseOnCancel !== false) await this.release();
  }

  /** Gives the lease up if this candidate holds it (holderIdentity cleared, duration 1s). */
  private async release(): Promise<void> {
    // A leader that lost the lease (or is past its renew deadline) holds nothing to give up: another candidate may
    // hold it now, and upstream's release writes only while the Lease it reads still names this candidate.
    if (!this.mayAct()) return;
    if (!this.lastLease || this.lastLease.spec?.holderIdentity !== this.identity) return;
    try {
      const now = this.clock.now();
      await this.client.update<Lease>({
        ...this.lastLease,
        spec: {
          ...this.lastLease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: microTime(now),
          acquireTime: microTime(now),
        },
      });
    } catch (e) {
      this.log.warn(`releasing lease failed: ${(e as Error).message}`);
    }
    this.lastLease = undefined;
  }
}
