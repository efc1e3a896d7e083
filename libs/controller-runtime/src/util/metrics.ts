import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// prom-client throws when a metric name is registered twice on one registry; several queues and controllers
// share one registry, so metrics are created once per registry and reused.

export function counter(registry: Registry, name: string, help: string, labelNames: string[]): Counter<string> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<string>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function gauge(registry: Registry, name: string, help: string, labelNames: string[]): Gauge<string> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Gauge<string>;
  return new Gauge({ name, help, labelNames, registers: [registry] });
}

export function histogram(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  buckets?: number[],
): Histogram<string> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<string>;
  return new Histogram({ name, help, labelNames, buckets, registers: [registry] });
}
