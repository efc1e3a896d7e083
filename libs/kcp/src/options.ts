import type { PassiveClock } from '@capi/apimachinery';
import type { ModuleMetadata } from '@nestjs/common';
import type { EtcdClientGeneratorFactory } from './etcd-access';
import type { WorkloadClusterProvider } from './workload-cluster';

export const KCP_CONTROLLER_OPTIONS = Symbol.for('capi.kcp.ControllerOptions');

export interface KcpControllerOptions {
  /** Modules providing RUNTIME_CLIENT (e.g. RuntimeClientModule.forRoot) for CanUpdateMachine. */
  imports?: ModuleMetadata['imports'];
  /** Replaces the default (kubeconfig Secret based) workload cluster provider. */
  workloadClusterProvider?: WorkloadClusterProvider;
  /**
   * etcd access of the default provider; default: each member through the workload API server's port-forward with a
   * client certificate of the cluster's etcd CA (etcd-access.ts).
   */
  etcdClientGeneratorFactory?: EtcdClientGeneratorFactory;
  /** Port-forward establishment timeout to an etcd member (upstream --etcd-dial-timeout-duration, default 10 s). */
  etcdDialTimeoutMs?: number;
  /** Timeout of each etcd call (upstream --etcd-call-timeout-duration, default 15 s). */
  etcdCallTimeoutMs?: number;
  /** Time source (ms since epoch) for conditions and rollout.after / certificate checks. */
  clock?: PassiveClock;
  /** Requeue delay while preflight checks fail (waiting for Nodes, deletions, in-place updates); default 5 s. */
  preflightRequeueMs?: number;
  /**
   * While preflight checks fail, the KCP's next reconcile starts no sooner than this, events or not (upstream
   * preflight.go DeferNextReconcileForObject); default 5 s. Needs the ReconcilerRateLimiting gate.
   */
  preflightDeferMs?: number;
  /**
   * How often a KCP whose rollout the InPlaceOnly policy holds back asks its updaters again (default 60 s): an updater
   * can change its answer without any watched object changing.
   */
  inPlaceOnlyRecheckMs?: number;
  maxConcurrentReconciles?: number;
}
