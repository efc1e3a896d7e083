// The cache's periodic resync as @nestjs/schedule jobs: one interval per informer (its period jittered once, as
// controller-runtime draws one per informer), registered in the SchedulerRegistry of the module that owns the cache;
// ScheduleModule clears them on shutdown.
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DEFAULT_SYNC_PERIOD_MS, jitteredResyncPeriod } from '../cache/resync';
import type { InformerCache } from '../cache/cache';
import type { SharedInformer } from '../cache/informer';
import type { Manager } from '../manager/manager';
import { addIntervalJob } from './schedule';
import { CONTROLLER_RUNTIME_OPTIONS, MANAGER } from './tokens';

/** The SchedulerRegistry name of a kind's resync job (in the cache named `cacheName`, for a cache added to the manager). */
export const resyncJobName = (apiVersion: string, kind: string, cacheName?: string): string =>
  `cache-resync${cacheName ? `(${cacheName})` : ''}:${apiVersion}/${kind}`;

@Injectable()
export class CacheResync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly jobs = new Set<string>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    @Inject(MANAGER) private readonly manager: Manager,
    private readonly scheduler: SchedulerRegistry,
    @Inject(CONTROLLER_RUNTIME_OPTIONS) private readonly options: { syncPeriodMs?: number },
  ) {}

  /**
   * Schedules the informers of the manager's caches and each one they create later (a read of a new kind starts one),
   * of caches added later too: a cache added to the manager resyncs with its period, as upstream gives its
   * partialSecretCache the manager's SyncPeriod.
   */
  onApplicationBootstrap(): void {
    const period = this.options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
    if (!(period > 0)) return; // as client-go: a resync period of 0 never resyncs
    let unnamed = 0;
    const follow = (cache: InformerCache) => {
      const label = cache === this.manager.cache ? undefined : (cache.name ?? `cache-${++unnamed}`);
      for (const informer of cache.informerList()) this.schedule(informer, period, label);
      this.unsubscribe.push(cache.onInformerCreated((informer) => this.schedule(informer, period, label)));
    };
    this.manager.caches().forEach(follow);
    this.unsubscribe.push(this.manager.onCacheAdded(follow));
  }

  onApplicationShutdown(): void {
    this.unsubscribe.splice(0).forEach((u) => u());
    for (const name of this.jobs) if (this.scheduler.doesExist('interval', name)) this.scheduler.deleteInterval(name);
    this.jobs.clear();
  }

  private schedule(informer: SharedInformer, period: number, cacheName: string | undefined): void {
    const name = resyncJobName(informer.apiVersion, informer.kind, cacheName);
    if (this.jobs.has(name)) return;
    addIntervalJob(this.scheduler, name, jitteredResyncPeriod(period), () => informer.resync());
    this.jobs.add(name);
  }
}
