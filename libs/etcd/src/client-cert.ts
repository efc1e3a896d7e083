// KCP's etcd client certificate (upstream controlplane/kubeadm/pkg/workload_cluster.go generateClientCert /
// newClientCert, cached as pkg/cluster.go does with a one-day TTL): CN cluster-api.x-k8s.io, clientAuth, signed by
// the cluster's etcd CA. Generating an RSA key takes a while, so one certificate serves a cluster until the CA changes.
import { createHash } from 'node:crypto';
import { LRUExpireCache } from '@capi/apimachinery';
import { signCertificate, type KeyPair } from '@capi/certs';
import type { EtcdTls } from './grpc-api';

export const ETCD_CLIENT_COMMON_NAME = 'cluster-api.x-k8s.io';
/** Upstream ClientCertCache TTL (controlplane/kubeadm/reconcilers/kubeadmcontrolplane controller SetupWithManager). */
export const CLIENT_CERT_CACHE_TTL_MS = 24 * 3600 * 1000;
const MAX_CLUSTERS = 10_000;

/** A new client certificate signed by the etcd CA (upstream generateClientCert). */
export function generateEtcdClientCert(etcdCa: KeyPair): Promise<KeyPair> {
  return signCertificate(etcdCa, { commonName: ETCD_CLIENT_COMMON_NAME, usage: 'client' });
}

/** Client TLS per cluster and etcd CA: generated on first use, then reused for a day. */
export class EtcdClientCertCache {
  private readonly cache = new LRUExpireCache<Promise<KeyPair>>({ max: MAX_CLUSTERS });

  /** TLS for `cluster`'s etcd: trusting `etcdCa`'s certificate, with a client certificate it signed. */
  async tlsFor(cluster: { namespace: string; name: string }, etcdCa: KeyPair): Promise<EtcdTls> {
    // Keyed by the CA too: a cluster re-created under the same name, or a new CA, gets a new certificate.
    const fingerprint = createHash('sha256').update(etcdCa.cert).digest('hex').slice(0, 16);
    const key = `${cluster.namespace}/${cluster.name}/${fingerprint}`;
    let pending = this.cache.get(key);
    if (!pending) {
      pending = generateEtcdClientCert(etcdCa);
      this.cache.add(key, pending, CLIENT_CERT_CACHE_TTL_MS);
      // A failed generation is not kept.
      pending.catch(() => this.cache.remove(key));
    }
    const client = await pending;
    return { ca: etcdCa.cert, cert: client.cert, key: client.key };
  }
}
