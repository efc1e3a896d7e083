// The embedded API server's Event TTL as a periodic job: kube-apiserver's Events go when their etcd lease runs out
// (--event-ttl); the embedded server keeps the leases and deletes the expired Events when asked (expireEvents), and
// this job asks, through @nestjs/schedule so the interval is listed in the SchedulerRegistry and cleared on shutdown.
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { addIntervalJob } from '@capi/controller-runtime';
import type { JsonLogger } from '../logging/logger';
import type { EmbeddedEnvironment } from './embedded';

/** The job's name in the SchedulerRegistry. */
export const EVENT_TTL_JOB = 'embedded-apiserver-event-ttl';

/**
 * How often expired Events are deleted: kube's outlive their TTL by up to its etcd lease reuse window (60 s,
 * staging/src/k8s.io/apiserver/pkg/storage/etcd3/lease_manager.go), so a sweep a minute is as prompt; a shorter TTL
 * sweeps once per TTL.
 */
export const EVENT_SWEEP_INTERVAL_MS = 60_000;

/** Registers the sweep at bootstrap when the embedded default runs with a TTL (ttlMs 0: Events are kept, no job). */
export class EmbeddedEventTtl implements OnApplicationBootstrap {
  constructor(
    private readonly embedded: EmbeddedEnvironment,
    private readonly scheduler: SchedulerRegistry,
    private readonly log: JsonLogger,
    private readonly ttlMs: number,
  ) {}

  onApplicationBootstrap(): void {
    if (!(this.ttlMs > 0) || !this.embedded.expireEvents) return;
    addIntervalJob(this.scheduler, EVENT_TTL_JOB, Math.min(EVENT_SWEEP_INTERVAL_MS, this.ttlMs), () => this.sweep());
  }

  /** One sweep, what the job runs: the number of Events deleted (a failure is logged, never thrown). */
  sweep(): number {
    try {
      const deleted = this.embedded.expireEvents?.() ?? 0;
      if (deleted) this.log.debug('expired Events deleted', { count: deleted }, 'embedded-apiserver');
      return deleted;
    } catch (e) {
      this.log.error('deleting expired Events failed', e, 'embedded-apiserver');
      return 0;
    }
  }
}
