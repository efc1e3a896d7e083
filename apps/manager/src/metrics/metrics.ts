import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerControllerRuntimeMetrics } from '@capi/controller-runtime';
import { listen, pathOf, reply, type Endpoint, type EndpointFlag } from './http-endpoint';

export const METRICS_ENDPOINT: EndpointFlag = { what: 'metrics', flag: '--metrics-bind-address' };

/**
 * A registry with process metrics and every metric controller-runtime registers (controller_runtime_*, workqueue_*,
 * rest_client_requests_total; see registerControllerRuntimeMetrics), so /metrics lists them from the start; the
 * controllers, queues and API client the manager creates on this registry add their series to these.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerControllerRuntimeMetrics(registry);
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
