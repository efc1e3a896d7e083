// A real etcd (v3.6 from KUBEBUILDER_ASSETS) of N members serving clients over TLS with client-certificate auth, as
// kubeadm runs it, with its CA and a client certificate of that CA for the tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster, kubeAssetsDir } from '@capi/kube-control-plane';
import { generateEtcdClientCert } from '../client-cert';
import type { EtcdTls } from '../grpc-api';
import { generateCA, signCertificate, type KeyPair } from '@capi/certs';

export interface TlsEtcd {
  cluster: EtcdCluster;
  ca: KeyPair;
  /** CA + a client certificate KCP would use (CN cluster-api.x-k8s.io). */
  clientTls: EtcdTls;
  stop(): Promise<void>;
}

export async function startTlsEtcd(members: number): Promise<TlsEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-etcd-'));
  const ca = await generateCA('etcd-ca');
  // kubeadm's etcd serving certificate is for clients too (etcd's gateway dials the member with it).
  const server = await signCertificate(ca, { commonName: 'etcd', usage: 'client-server', ipAddresses: ['127.0.0.1'] });
  // The certificate KCP makes for itself.
  const client = await generateEtcdClientCert(ca);
  const cluster = new EtcdCluster({
    binary: join(kubeAssetsDir(), 'etcd'),
    dir,
    members,
    tls: {
      caCert: ca.cert,
      serverCert: server.cert,
      serverKey: server.key,
      clientCert: client.cert,
      clientKey: client.key,
    },
  });
  await cluster.start();
  return {
    cluster,
    ca,
    clientTls: { ca: ca.cert, cert: client.cert, key: client.key },
    async stop() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
