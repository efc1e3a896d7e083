import { Registry } from 'prom-client';
import { isPanic, RECONCILE_TIME_BUCKETS, ReconcileMetrics, registerControllerRuntimeMetrics } from './metrics';

async function value(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const { values } = await registry.getSingleMetric(name)!.get();
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('controller-runtime registry (pkg/internal/controller/metrics/metrics.go)', () => {
  it('registers every controller, workqueue and REST client metric with its type and labels, idempotently', async () => {
    const registry = new Registry();
    registerControllerRuntimeMetrics(registry);
    registerControllerRuntimeMetrics(registry);
    const shapes = Object.fromEntries(
      (await registry.getMetricsAsJSON()).map((m) => [m.name, { type: String(m.type), help: m.help }]),
    );
    const labels = (name: string) => (registry.getSingleMetric(name) as unknown as { labelNames: string[] }).labelNames;
    expect(Object.keys(shapes).sort()).toEqual([
      'capi_reconcile_stale_cache_skips_total', // Cluster API's reconcilerWrapper registers it on the same registry
      'controller_runtime_active_workers',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_panics_total',
      'controller_runtime_reconcile_time_seconds',
      'controller_runtime_reconcile_timeouts_total',
      'controller_runtime_reconcile_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'rest_client_requests_total',
      'workqueue_adds_total',
      'workqueue_depth',
      'workqueue_longest_running_processor_seconds',
      'workqueue_queue_duration_seconds',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds',
      'workqueue_work_duration_seconds',
    ]);
    expect(shapes['controller_runtime_reconcile_time_seconds'].type).toBe('histogram');
    expect(shapes['controller_runtime_active_workers'].type).toBe('gauge');
    expect(shapes['controller_runtime_reconcile_panics_total']).toEqual({
      type: 'counter',
      help: 'Total number of reconciliation panics per controller',
    });
    expect(labels('controller_runtime_reconcile_total')).toEqual(['controller', 'result']);
    expect(labels('controller_runtime_active_workers')).toEqual(['controller']);
    expect(labels('workqueue_depth')).toEqual(['controller', 'name', 'priority']);
    expect(labels('workqueue_work_duration_seconds')).toEqual(['controller', 'name']);
    expect(labels('rest_client_requests_total')).toEqual(['code', 'host', 'method']);
    expect(labels('capi_reconcile_stale_cache_skips_total')).toEqual(['controller', 'cached_kind']);
    expect(shapes['rest_client_requests_total'].help).toBe(
      'Number of HTTP requests, partitioned by status code, method, and host.',
    );
  });
});

describe('ReconcileMetrics', () => {
  let registry: Registry;
  let m: ReconcileMetrics;
  beforeEach(() => {
    registry = new Registry();
    m = new ReconcileMetrics(registry, 'machine');
  });
  const c = { controller: 'machine' };

  it('creates every series of a controller at zero (initMetrics)', async () => {
    const text = await registry.metrics();
    for (const result of ['error', 'requeue_after', 'requeue', 'success'])
      expect(text).toContain(`controller_runtime_reconcile_total{controller="machine",result="${result}"} 0`);
    for (const name of [
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_reconcile_panics_total',
      'controller_runtime_reconcile_timeouts_total',
      'controller_runtime_active_workers',
      'controller_runtime_reconcile_time_seconds_count',
    ])
      expect(text).toContain(`${name}{controller="machine"} 0`);
  });

  it('uses upstream reconcile time buckets', async () => {
    expect(RECONCILE_TIME_BUCKETS).toHaveLength(40);
    m.reconciled('success', 0.32);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_time_seconds_bucket{le="0.3",controller="machine"} 0');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_bucket{le="0.35",controller="machine"} 1');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_bucket{le="60",controller="machine"} 1');
  });

  // Ported from pkg/internal/controller/controller_test.go "prometheus metric reconcile_total" and
  // "should update prometheus metrics".
  it.each([
    ['success', undefined, { success: 1, error: 0, requeue: 0, requeue_after: 0 }, 0],
    ['error', new Error('expected error: reconcile'), { success: 0, error: 1, requeue: 0, requeue_after: 0 }, 1],
    ['requeue', undefined, { success: 0, error: 0, requeue: 1, requeue_after: 0 }, 0],
    ['requeue_after', undefined, { success: 0, error: 0, requeue: 0, requeue_after: 1 }, 0],
  ] as const)('counts a %s reconcile', async (result, error, totals, errors) => {
    m.reconciled(result, 0.01, error);
    for (const [r, n] of Object.entries(totals))
      expect(await value(registry, 'controller_runtime_reconcile_total', { ...c, result: r })).toBe(n);
    expect(await value(registry, 'controller_runtime_reconcile_errors_total', c)).toBe(errors);
    expect(await value(registry, 'controller_runtime_reconcile_panics_total', c)).toBe(0);
    expect(await registry.metrics()).toContain(
      'controller_runtime_reconcile_time_seconds_bucket{le="0.01",controller="machine"} 1',
    );
  });

  it('counts an engine error (what Go panics on) as a panic and as an error', async () => {
    let thrown: unknown;
    const machine = undefined as unknown as { spec: { version: string } };
    try {
      thrown = machine.spec.version;
    } catch (e) {
      thrown = e;
    }
    expect(isPanic(thrown)).toBe(true);
    expect(isPanic(new Error('conflict'))).toBe(false);
    m.reconciled('error', 0.01, thrown);
    expect(await value(registry, 'controller_runtime_reconcile_panics_total', c)).toBe(1);
    expect(await value(registry, 'controller_runtime_reconcile_errors_total', c)).toBe(1);
    expect(await value(registry, 'controller_runtime_reconcile_total', { ...c, result: 'error' })).toBe(1);
  });

  it('tracks busy workers against the worker count', async () => {
    m.started(3);
    m.workerBusy();
    m.workerBusy();
    expect(await value(registry, 'controller_runtime_active_workers', c)).toBe(2);
    expect(await value(registry, 'controller_runtime_max_concurrent_reconciles', c)).toBe(3);
    m.workerIdle();
    expect(await value(registry, 'controller_runtime_active_workers', c)).toBe(1);
  });
});
