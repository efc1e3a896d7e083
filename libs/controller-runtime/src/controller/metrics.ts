import { Registry } from 'prom-client';
import { counter, gauge, histogram } from '../util/metrics';
import { clientMetrics } from '../client/client-metrics';
import { workqueueMetrics } from '../workqueue/metrics';

// controller-runtime's controller metrics (pkg/internal/controller/metrics/metrics.go), updated as
// pkg/internal/controller/controller.go does.

/** controller_runtime_reconcile_time_seconds buckets, as upstream. */
export const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** The `result` label values of controller_runtime_reconcile_total. */
export const RECONCILE_RESULTS = ['error', 'requeue_after', 'requeue', 'success'] as const;
export type ReconcileResultLabel = (typeof RECONCILE_RESULTS)[number];

const C = ['controller'];

/** Registers (or finds) the controller_runtime_* metrics on a registry. */
export function controllerMetrics(registry: Registry) {
  return {
    total: counter(registry, 'controller_runtime_reconcile_total', 'Total number of reconciliations per controller', [
      'controller',
      'result',
    ]),
    errors: counter(
      registry,
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      C,
    ),
    terminalErrors: counter(
      registry,
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      C,
    ),
    panics: counter(
      registry,
      'controller_runtime_reconcile_panics_total',
      'Total number of reconciliation panics per controller',
      C,
    ),
    time: histogram(
      registry,
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      C,
      RECONCILE_TIME_BUCKETS,
    ),
    maxConcurrent: gauge(
      registry,
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      C,
    ),
    activeWorkers: gauge(
      registry,
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
      C,
    ),
    timeouts: counter(
      registry,
      'controller_runtime_reconcile_timeouts_total',
      'Total number of reconciliation timeouts per controller',
      C,
    ),
    // Cluster API's own (util/controller/metrics.go).
    staleCacheSkips: counter(
      registry,
      'capi_reconcile_stale_cache_skips_total',
      'Total number of reconciles skipped due to a stale watch cache.',
      ['controller', 'cached_kind'],
    ),
  };
}

/**
 * Registers every metric controller-runtime puts on its registry at init (controller, workqueue and REST client
 * metrics), so /metrics lists their names before any controller or client exists. Idempotent.
 */
export function registerControllerRuntimeMetrics(registry: Registry): void {
  controllerMetrics(registry);
  workqueueMetrics(registry);
  clientMetrics(registry);
}

/**
 * A JavaScript engine error (TypeError on an undefined property, RangeError on a stack overflow, ReferenceError …) is
 * what a Go reconciler would panic on; upstream recovers the panic into an error (RecoverPanic defaults to true) and
 * counts it in controller_runtime_reconcile_panics_total as well as in the error counters.
 */
export function isPanic(error: unknown): boolean {
  return (
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError ||
    error instanceof EvalError ||
    error instanceof URIError
  );
}

/** The controller_runtime_* series of one controller. */
export class ReconcileMetrics {
  private readonly m: ReturnType<typeof controllerMetrics>;
  private readonly labels: { controller: string };

  /** Creates every series at zero, as upstream's initMetrics when the controller starts. */
  constructor(registry: Registry, controller: string) {
    this.m = controllerMetrics(registry);
    this.labels = { controller };
    for (const result of RECONCILE_RESULTS) this.m.total.inc({ controller, result }, 0);
    for (const c of [this.m.errors, this.m.terminalErrors, this.m.panics, this.m.timeouts]) c.inc(this.labels, 0);
    this.m.time.zero(this.labels);
    this.m.activeWorkers.set(this.labels, 0);
  }

  /** The worker count (controller_runtime_max_concurrent_reconciles). */
  started(workers: number): void {
    this.m.maxConcurrent.set(this.labels, workers);
    this.m.activeWorkers.set(this.labels, 0);
  }

  /** A worker took an item (processNextWorkItem: +1 before reconcileHandler, -1 after). */
  workerBusy(): void {
    this.m.activeWorkers.inc(this.labels);
  }

  workerIdle(): void {
    this.m.activeWorkers.dec(this.labels);
  }

  /** A reconcile skipped because the informer of `kind` had not yet seen this controller's write. */
  staleCacheSkipped(kind: string): void {
    this.m.staleCacheSkips.inc({ controller: this.labels.controller, cached_kind: kind });
  }

  /** One reconcile's outcome and duration (reconcileHandler and updateMetrics). */
  reconciled(result: ReconcileResultLabel, seconds: number, error?: unknown): void {
    if (result === 'error') {
      if (isPanic(error)) this.m.panics.inc(this.labels);
      this.m.errors.inc(this.labels);
    }
    this.m.total.inc({ controller: this.labels.controller, result });
    this.m.time.observe(this.labels, seconds);
  }
}
