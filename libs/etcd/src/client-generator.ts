// Etcd clients for the members of a workload cluster (upstream controlplane/kubeadm/pkg/etcd_client_generator.go): a
// member is reached as the etcd static Pod of its Node (`etcd-<node>`, port 2379 in kube-system) through the API
// server's port-forward, over TLS with a client certificate of the cluster's etcd CA.
import type { KubeConfig } from '@kubernetes/client-node';
import { aggregateErrors, wrapError } from './errors';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_DIAL_TIMEOUT_MS, EtcdClient } from './etcd-client';
import { grpcEtcdApi, type EtcdTls } from './grpc-api';
import { LoopbackBridge } from './loopback-bridge';
import { PortForwardDialer } from './portforward-dialer';

/** The etcd client port of a kubeadm etcd static Pod. */
export const ETCD_CLIENT_PORT = 2379;
const NAMESPACE_SYSTEM = 'kube-system';

/** Name of a kubeadm static Pod: `<component>-<node>`. */
export const staticPodName = (component: string, nodeName: string): string => `${component}-${nodeName}`;

/** Creates a client for an endpoint (an etcd Pod name); swapped by fakes in tests (upstream clientCreator). */
export type ClientCreator = (endpoint: string) => Promise<EtcdClient>;

export interface WorkloadEtcdOptions {
  /** The workload cluster's kubeconfig (its API server proxies the port-forward). */
  kubeConfig: KubeConfig;
  tls: EtcdTls;
  /** Port-forward establishment timeout (default DEFAULT_DIAL_TIMEOUT_MS). */
  dialTimeoutMs?: number;
  /** Per-call timeout (default DEFAULT_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number;
}

/** A client for etcd Pod `endpoint`: one loopback bridge of port-forwards, one gRPC channel; close() closes both. */
export async function portForwardedEtcdClient(endpoint: string, opts: WorkloadEtcdOptions): Promise<EtcdClient> {
  const dialer = new PortForwardDialer(opts.kubeConfig, {
    namespace: NAMESPACE_SYSTEM,
    port: ETCD_CLIENT_PORT,
    timeoutMs: opts.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS,
  });
  const bridge = await LoopbackBridge.listen(() => dialer.dial(endpoint));
  const api = grpcEtcdApi({
    endpoint,
    address: bridge.address,
    tls: opts.tls,
    // grpc-js only knows the connection dropped; the port-forward knows why.
    describeError: (err) =>
      bridge.lastDialError ? new Error(`${err.message}; ${bridge.lastDialError.message}`, { cause: err }) : err,
    onClose: () => bridge.close(),
  });
  try {
    return await EtcdClient.create(api, opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
  } catch (e) {
    await api.close();
    throw e;
  }
}

export class EtcdClientGenerator {
  constructor(readonly createClient: ClientCreator) {}

  /** Clients reaching the workload cluster's members through its API server. */
  static forWorkloadCluster(opts: WorkloadEtcdOptions): EtcdClientGenerator {
    return new EtcdClientGenerator((endpoint) => portForwardedEtcdClient(endpoint, opts));
  }

  /** A client for the first of the Nodes' etcd members that connects (upstream forFirstAvailableNode). */
  async forFirstAvailableNode(nodeNames: readonly string[]): Promise<EtcdClient> {
    // A safeguard against returning no client and no error.
    if (nodeNames.length === 0)
      throw new Error("invalid argument: forFirstAvailableNode can't be called with an empty list of nodes");
    const errors: unknown[] = [];
    for (const name of nodeNames) {
      try {
        return await this.createClient(staticPodName('etcd', name));
      } catch (e) {
        errors.push(e);
      }
    }
    throw wrapError(
      aggregateErrors(errors),
      `could not establish a connection to etcd members hosted on ${nodeNames.join(',')}`,
    );
  }
}
