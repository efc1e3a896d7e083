// How KCP reaches a workload cluster's etcd by default (upstream controlplane/kubeadm/pkg/cluster.go
// GetWorkloadCluster): through the workload API server of the `<cluster>-kubeconfig` Secret, with a client
// certificate signed by the etcd CA of the `<cluster>-etcd` Secret (cached per cluster); without the CA's key (an
// external etcd) the `<cluster>-apiserver-etcd-client` certificate is used instead.
import type { KubeObject } from '@capi/apimachinery';
import { APISERVER_ETCD_CLIENT, clusterSecretName, ETCD_CA, keyPairFromSecret } from '@capi/certs';
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

async function secret(client: Client, cluster: ClusterKey, purpose: string, what: string): Promise<KubeObject> {
  const name = clusterSecretName(cluster.name, purpose);
  const found = await client.tryGet<KubeObject>({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: cluster.namespace,
    name,
  });
  if (!found) throw new Error(`failed to get secret; ${what} ${cluster.namespace}/${name}: not found`);
  return found;
}

/** Upstream getEtcdCAKeyPair + generateClientCert / getAPIServerEtcdClientCert. */
export async function etcdClientTls(client: Client, cluster: ClusterKey, certs: EtcdClientCertCache): Promise<EtcdTls> {
  const ca = keyPairFromSecret(await secret(client, cluster, ETCD_CA, 'etcd CA bundle'));
  if (ca.key) return certs.tlsFor(cluster, ca);
  const own = keyPairFromSecret(await secret(client, cluster, APISERVER_ETCD_CLIENT, 'etcd apiserver-etcd-client'));
  if (!own.key) throw new Error(`etcd tls key does not exist for cluster ${cluster.namespace}/${cluster.name}`);
  return { ca: ca.cert, cert: own.cert, key: own.key };
}

/** The default: Secrets read through `managementClient`, one client certificate per cluster and etcd CA. */
export function etcdClientGeneratorFactory(
  managementClient: Client,
  opts: EtcdAccessOptions = {},
): EtcdClientGeneratorFactory {
  const certs = new EtcdClientCertCache();
  return async (cluster) => {
    const tls = await etcdClientTls(managementClient, cluster, certs);
    const { kubeConfig } = await kubeConfigFromSecret(managementClient, cluster);
    return EtcdClientGenerator.forWorkloadCluster({ kubeConfig, tls, ...opts });
  };
}
