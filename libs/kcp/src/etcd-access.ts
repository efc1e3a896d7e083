// How KCP reaches a workload cluster's etcd by default (upstream controlplane/kubeadm/pkg/cluster.go
// GetWorkloadCluster): through the workload API server of the `<cluster>-kubeconfig` Secret, with a client
// certificate signed by the etcd CA of the `<cluster>-etcd` Secret (cached per cluster); without the CA's key (an
// external etcd) the `<cluster>-apiserver-etcd-client` certificate is used instead.
import type { KubeObject } from '@capi/apimachinery';
import {
  APISERVER_ETCD_CLIENT,
  clusterSecretRef,
  ETCD_CA,
  keyPairFromSecret,
  tryGetCachedSecret,
  type Purpose,
} from '@capi/certs';
import { kubeConfigFromSecret, type ClusterKey } from '@capi/clustercache';
import type { Client } from '@capi/controller-runtime';
import { EtcdClientCertCache, EtcdClientGenerator, type EtcdTls } from '@capi/etcd';
import type { EtcdClientFor } from './workload-etcd';

/** etcd access per workload cluster; swap it (KcpControllerOptions.etcdClientGeneratorFactory) to reach etcd elsewise. */
export type EtcdClientGeneratorFactory = (cluster: ClusterKey) => Promise<EtcdClientFor>;

export interface EtcdAccessOptions {
  /** Port-forward establishment timeout (upstream --etcd-dial-timeout-duration, default 10 s). */
  dialTimeoutMs?: number;
  /** Per-call timeout (upstream --etcd-call-timeout-duration, default 15 s). */
  callTimeoutMs?: number;
}

/** The Secret `<cluster>-<purpose>`, from `cachingClient` first when given (tryGetCachedSecret). */
async function secret(
  client: Client,
  cluster: ClusterKey,
  purpose: Purpose,
  what: string,
  cachingClient?: Client,
): Promise<KubeObject> {
  const ref = clusterSecretRef(cluster, purpose);
  const found = await tryGetCachedSecret(client, ref, cachingClient);
  if (!found) throw new Error(`failed to get secret; ${what} ${ref.namespace}/${ref.name}: not found`);
  return found;
}

/**
 * Upstream getEtcdCAKeyPair + generateClientCert / getAPIServerEtcdClientCert: the etcd CA from `cachingClient` (the
 * secret-caching client) and else from `client`, the apiserver-etcd-client certificate from `client`.
 */
export async function etcdClientTls(
  client: Client,
  cluster: ClusterKey,
  certs: EtcdClientCertCache,
  cachingClient?: Client,
): Promise<EtcdTls> {
  const ca = keyPairFromSecret(await secret(client, cluster, ETCD_CA, 'etcd CA bundle', cachingClient));
  if (ca.key) return certs.tlsFor(cluster, ca);
  const own = keyPairFromSecret(await secret(client, cluster, APISERVER_ETCD_CLIENT, 'etcd apiserver-etcd-client'));
  if (!own.key) throw new Error(`etcd tls key does not exist for cluster ${cluster.namespace}/${cluster.name}`);
  return { ca: ca.cert, cert: own.cert, key: own.key };
}

/**
 * The default: Secrets read through `managementClient` (and `cachingClient`, the secret-caching client, where upstream
 * reads through it: the etcd CA and the kubeconfig), one client certificate per cluster and etcd CA.
 */
export function etcdClientGeneratorFactory(
  managementClient: Client,
  opts: EtcdAccessOptions = {},
  cachingClient: Client = managementClient,
): EtcdClientGeneratorFactory {
  const certs = new EtcdClientCertCache();
  return async (cluster) => {
    const tls = await etcdClientTls(managementClient, cluster, certs, cachingClient);
    const { kubeConfig } = await kubeConfigFromSecret(cachingClient, cluster);
    return EtcdClientGenerator.forWorkloadCluster({ kubeConfig, tls, ...opts });
  };
}
