import { Global, Module } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Test } from '@nestjs/testing';
import { SECRET_CACHING_CLIENT } from '@capi/controller-runtime';
import { WorkloadClusterHealthProbeJob } from './health-probe.job';
import type { WorkloadClusterCache } from './workload-cluster-cache';
import { SHARED_WORKLOAD_CLUSTER_CACHE, WorkloadClusterCacheModule } from './workload-cluster-cache.module';

/** Stands in for ControllerRuntimeModule: the management client (never called here). */
@Global()
@Module({ providers: [{ provide: SECRET_CACHING_CLIENT, useValue: {} }], exports: [SECRET_CACHING_CLIENT] })
class FakeManagementClientModule {}

describe('WorkloadClusterHealthProbeJob', () => {
  it('the shared cache module schedules its probe at the default interval and unschedules it on close', async () => {
    const mod = await Test.createTestingModule({
      imports: [FakeManagementClientModule, WorkloadClusterCacheModule],
    }).compile();
    await mod.init();
    const registry = mod.get(SchedulerRegistry);
    expect(registry.getIntervals()).toHaveLength(1);
    expect(mod.get<WorkloadClusterCache>(SHARED_WORKLOAD_CLUSTER_CACHE).healthProbe.intervalMs).toBe(10_000);
    await mod.close();
    expect(registry.getIntervals()).toEqual([]);
  });

  it('does not start a probe round while the previous one runs', async () => {
    let finish = () => undefined as void;
    const probe = jest.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const job = new WorkloadClusterHealthProbeJob(new SchedulerRegistry(), {
      probe,
    } as unknown as WorkloadClusterCache);
    const first = job.tick();
    await job.tick();
    expect(probe).toHaveBeenCalledTimes(1);
    finish();
    await first;
    void job.tick();
    expect(probe).toHaveBeenCalledTimes(2);
    finish();
  });
});
