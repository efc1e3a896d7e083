import type { KubeObject } from '@capi/apimachinery';
import { Controller } from '../controller/controller';
import type { Request } from '../controller/types';
import { eventually } from '../testing/eventually';
import { listOnlyClient } from '../testing/list-only-client';
import { InformerCache } from './cache';
import { SharedInformer } from './informer';
import { jitteredResyncPeriod } from './resync';

const widget = (name: string, rv: string): KubeObject => ({
  apiVersion: 'test.capi.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

describe('jitteredResyncPeriod', () => {
  it('draws a period in [0.9, 1.1) of the sync period, as controller-runtime does per informer', () => {
    expect(jitteredResyncPeriod(600_000, () => 0)).toBe(540_000);
    expect(jitteredResyncPeriod(600_000, () => 0.5)).toBe(600_000);
    expect(jitteredResyncPeriod(600_000, () => 0.999999)).toBeLessThan(660_000);
    for (let i = 0; i < 100; i++) {
      const p = jitteredResyncPeriod(600_000);
      expect(p).toBeGreaterThanOrEqual(540_000);
      expect(p).toBeLessThan(660_000);
    }
  });
});

describe('SharedInformer.resync', () => {
  it('re-delivers every stored object as an update with the same object old and new; nothing before sync or after stop', async () => {
    const informer = new SharedInformer(
      listOnlyClient([widget('a', '1'), widget('b', '2')]),
      'test.capi.io/v1',
      'Widget',
    );
    const updates: [KubeObject, KubeObject][] = [];
    informer.addEventHandler({ onUpdate: (o, n) => updates.push([o, n]) });
    expect(informer.resync()).toBe(0);
    informer.start();
    expect(await informer.waitForSync(5000)).toBe(true);
    expect(updates).toEqual([]);

    expect(informer.resync()).toBe(2);
    expect(updates.map(([o, n]) => [o.metadata.name, o === n])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(informer.stats.resyncs).toBe(1);

    await informer.stop();
    expect(informer.resync()).toBe(0);
    expect(updates).toHaveLength(2);
  });
});

describe('a resync reconciles every cached object again', () => {
  it('through the controllers watching the kind', async () => {
    const cache = new InformerCache(listOnlyClient([widget('a', '1'), widget('b', '2')]));
    const reconciled: string[] = [];
    const controller = new Controller(
      { name: 'widgets', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' } },
      { reconcile: async (req: Request) => void reconciled.push(req.name) },
      { cache },
    );
    cache.informerFor('test.capi.io/v1', 'Widget');
    cache.start();
    await cache.waitForSync(5000);
    controller.start();
    await eventually(() => reconciled.length === 2, 'the initial reconciles');

    reconciled.splice(0);
    for (const informer of cache.informerList()) informer.resync();
    // Each object at least once more (the controller enqueues an update's old and new object, here the same one).
    await eventually(() => reconciled.includes('a') && reconciled.includes('b'), 'the reconciles of the resync');
    await controller.stop();
    await cache.stop();
  });
});
