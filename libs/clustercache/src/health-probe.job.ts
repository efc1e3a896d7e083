// The workload cluster health probe as a periodic job (upstream runs it from the ClusterCache reconciler, requeued
// every HealthProbe.Interval): an interval registered with @nestjs/schedule's SchedulerRegistry, so it is listed with
// the app's other jobs, started when the module initializes and stopped when it is destroyed (before the cache's own
// shutdown closes the informers).
import { Logger, type OnModuleDestroy, type OnModuleInit, type Provider } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { addIntervalJob } from '@capi/controller-runtime';
import type { WorkloadClusterCache } from './workload-cluster-cache';

let jobs = 0;

export class WorkloadClusterHealthProbeJob implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('WorkloadClusterHealthProbeJob');
  /** The job's name in the SchedulerRegistry (one per cache). */
  readonly name = `workload-cluster-health-probe-${++jobs}`;
  private running = false;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly cache: WorkloadClusterCache,
  ) {}

  onModuleInit(): void {
    addIntervalJob(this.registry, this.name, this.cache.healthProbe.intervalMs, () => void this.tick());
  }

  onModuleDestroy(): void {
    if (this.registry.doesExist('interval', this.name)) this.registry.deleteInterval(this.name);
  }

  /** One probe round; a round still running (probes wait up to their timeout) is not overlapped. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.cache.probe();
    } catch (e) {
      this.log.warn(`workload cluster health probe: ${(e as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}

/** A provider running the health probe of the WorkloadClusterCache under `cacheToken` (needs ScheduleModule). */
export function workloadClusterHealthProbeJob(cacheToken: symbol): Provider {
  return {
    provide: Symbol.for(`capi.WorkloadClusterHealthProbeJob(${cacheToken.description})`),
    inject: [SchedulerRegistry, cacheToken],
    useFactory: (registry: SchedulerRegistry, cache: WorkloadClusterCache) =>
      new WorkloadClusterHealthProbeJob(registry, cache),
  };
}
