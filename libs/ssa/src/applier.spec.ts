import { METRICS_REGISTRY } from '@capi/controller-runtime';
import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Registry } from 'prom-client';
import { ServerSideApplier, SsaModule } from './applier';

describe('SsaModule', () => {
  it("registers cache metrics on the manager's METRICS_REGISTRY when no registry is given", async () => {
    const registry = new Registry();
    // Like ControllerRuntimeModule.forRoot: a global module exporting METRICS_REGISTRY.
    @Global()
    @Module({ providers: [{ provide: METRICS_REGISTRY, useValue: registry }], exports: [METRICS_REGISTRY] })
    class MetricsModule {}
    const mod = await Test.createTestingModule({ imports: [MetricsModule, SsaModule.forRoot()] }).compile();
    const cache = mod.get(ServerSideApplier).cacheFor('capi-machine');
    cache.has('k', 'Machine');
    const misses = await registry.getSingleMetric('capi_ssa_cache_misses_total')!.get();
    expect(misses.values).toEqual([{ labels: { kind: 'Machine', controller: 'capi-machine' }, value: 1 }]);
    await mod.close();
  });

  it('works without any registry (no metrics)', async () => {
    const mod = await Test.createTestingModule({ imports: [SsaModule.forRoot({ maxEntries: 1 })] }).compile();
    const cache = mod.get(ServerSideApplier).cacheFor('capi-machine');
    cache.add('a');
    cache.add('b');
    expect(cache.size).toBe(1);
    await mod.close();
  });
});
