import type { PassiveClock } from '@capi/apimachinery';
import type { ModuleMetadata } from '@nestjs/common';
import type { EtcdClientFactory, WorkloadClusterProvider } from './workload-cluster';

export const KCP_CONTROLLER_OPTIONS = Symbol.for('capi.kcp.ControllerOptions');

export interface KcpControllerOptions {
  /** Modules providing RUNTIME_CLIENT (e.g. RuntimeClientModule.forRoot) for CanUpdateMachine. */
  imports?: ModuleMetadata['imports'];
  /** Replaces the default (kubeconfig Secret based) workload cluster provider. */
  workloadClusterProvider?: WorkloadClusterProvider;
  /**
   * etcd access of the default provider (e.g. a real etcd client through the workload cluster); default: the etcd
   * members a simulated workload cluster publishes (see @capi/api simulated-control-plane).
   */
  etcdClientFactory?: EtcdClientFactory;
  /** Time source (ms since epoch) for conditions and rollout.after / certificate checks. */
  clock?: PassiveClock;
  /** Requeue delay while preflight checks fail (waiting for Nodes, deletions, in-place updates); default 5 s. */
  preflightRequeueMs?: number;
  maxConcurrentReconciles?: number;
}
