// The cache's periodic resync as @nestjs/schedule jobs: one interval per informer (its period jittered once, as
// controller-runtime draws one per informer), registered in the SchedulerRegistry of the module that owns the cache;
// ScheduleModule clears them on shutdown.
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DEFAULT_SYNC_PERIOD_MS, jitteredResyncPeriod } from '../cache/resync';
import type { SharedInformer } from '../cache/informer';
import type { Manager } from '../manager/manager';
import { addIntervalJob } from './schedule';
import { CONTROLLER_RUNTIME_OPTIONS, MANAGER } from './tokens';

/** The SchedulerRegistry name of a kind's resync job. */
export const resyncJobName = (apiVersion: string, kind: string): string => `cache-resync:${apiVersion}/${kind}`;

@Injectable()
export class CacheResync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly jobs = new Set<string>();
  private unsubscribe?: () => void;

  constructor(
    @Inject(MANAGER) private readonly manager: Manager,
    private readonly scheduler: SchedulerRegistry,
    @Inject(CONTROLLER_RUNTIME_OPTIONS) private readonly options: { syncPeriodMs?: number },
  ) {}

  /** Schedules the informers the cache has and each one it creates later (a read of a new kind starts one). */
  onApplicationBootstrap(): void {
    const period = this.options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
    if (!(period > 0)) return; // as client-go: a resync period of 0 never resyncs
    const cache = this.manager.cache;
    for (const informer of cache.informerList()) this.schedule(informer, period);
    this.unsubscribe = cache.onInformerCreated((informer) => this.schedule(informer, period));
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
    for (const name of this.jobs) if (this.scheduler.doesExist('interval', name)) this.scheduler.deleteInterval(name);
    this.jobs.clear();
  }

  private schedule(informer: SharedInformer, period: number): void {
    const name = resyncJobName(informer.apiVersion, informer.kind);
    if (this.jobs.has(name)) return;
    addIntervalJob(this.scheduler, name, jitteredResyncPeriod(period), () => informer.resync());
    this.jobs.add(name);
  }
}
