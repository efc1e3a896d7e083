import { Registry } from 'prom-client';
import { Controller, InformerCache, type Client } from '@capi/controller-runtime';
import { reconcileDelta, reconcileRows, reconcileSnapshot } from './reconciles';

describe('reconcile counts for the rollout bench', () => {
  it('reads reconciles and summed durations per controller from the text of the controller-runtime metrics', async () => {
    const registry = new Registry();
    // Two controllers registering their metrics on one registry, as in the manager.
    const cache = new InformerCache({} as Client);
    for (const name of ['machine', 'machineset'])
      new Controller(
        { name, for: { apiVersion: 'v1', kind: 'ConfigMap' } },
        { reconcile: async () => undefined },
        { cache, registry },
      );
    const total = registry.getSingleMetric('controller_runtime_reconcile_total') as unknown as {
      inc(l: object, v?: number): void;
    };
    const time = registry.getSingleMetric('controller_runtime_reconcile_time_seconds') as unknown as {
      observe(l: object, v: number): void;
    };
    const before = reconcileSnapshot(await registry.metrics());
    total.inc({ controller: 'machine', result: 'success' }, 3);
    total.inc({ controller: 'machine', result: 'requeue_after' }, 2);
    time.observe({ controller: 'machine' }, 0.5);
    time.observe({ controller: 'machine' }, 0.25);
    const after = reconcileSnapshot(await registry.metrics());
    expect(after.machine).toEqual({ reconciles: 5, seconds: 0.75 });
    expect(reconcileDelta(before, after)).toEqual({ machine: { reconciles: 5, seconds: 0.75 } });
  });

  it('one row per controller, most reconciles first, per phase count, per Machine and seconds', () => {
    const rows = reconcileRows(
      [
        { reconciles: { machineset: { reconciles: 10, seconds: 1 }, machine: { reconciles: 40, seconds: 2 } } },
        { reconciles: { machine: { reconciles: 20, seconds: 1.5 } } },
      ],
      10,
    );
    expect(rows).toEqual([
      ['machine', 40, 4, 2, 20, 2, 1.5],
      ['machineset', 10, 1, 1, 0, 0, 0],
    ]);
  });
});
