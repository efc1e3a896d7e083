import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { listen, pathOf, reply, type Endpoint, type EndpointFlag } from './http-endpoint';

export const METRICS_ENDPOINT: EndpointFlag = { what: 'metrics', flag: '--metrics-bind-address' };

/** controller-runtime's reconcile metric names and labels (pkg/internal/controller/metrics). */
export const CONTROLLER_METRICS = {
  reconcileTotal: {
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'],
  },
  reconcileErrors: {
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
  },
  reconcileTime: {
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
  },
  activeWorkers: {
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'],
  },
  maxConcurrentReconciles: {
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'],
  },
  workqueueDepth: { name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'] },
} as const;

const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * A registry with process metrics and controller-runtime's reconcile metrics pre-registered (zero series), so
 * /metrics lists them from the start; controllers that look a metric up by name on this registry reuse these.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const m = CONTROLLER_METRICS;
  new Counter({ ...m.reconcileTotal, labelNames: [...m.reconcileTotal.labelNames], registers: [registry] });
  new Counter({ ...m.reconcileErrors, labelNames: [...m.reconcileErrors.labelNames], registers: [registry] });
  new Histogram({
    ...m.reconcileTime,
    labelNames: [...m.reconcileTime.labelNames],
    buckets: RECONCILE_BUCKETS,
    registers: [registry],
  });
  new Gauge({ ...m.activeWorkers, labelNames: [...m.activeWorkers.labelNames], registers: [registry] });
  new Gauge({
    ...m.maxConcurrentReconciles,
    labelNames: [...m.maxConcurrentReconciles.labelNames],
    registers: [registry],
  });
  new Gauge({ ...m.workqueueDepth, labelNames: [...m.workqueueDepth.labelNames], registers: [registry] });
  return registry;
}

/** Serves GET /metrics in Prometheus text format from `registry`. */
export function serveMetrics(bindAddress: string, registry: Registry): Promise<Endpoint> {
  return listen(
    bindAddress,
    (req, res) => {
      const { path } = pathOf(req);
      if (path !== '/metrics') return reply(res, 404, 'not found\n');
      if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed\n');
      registry.metrics().then(
        (body) => reply(res, 200, body, registry.contentType),
        (e: Error) => reply(res, 500, `collecting metrics failed: ${e.message}\n`),
      );
    },
    METRICS_ENDPOINT,
  );
}
