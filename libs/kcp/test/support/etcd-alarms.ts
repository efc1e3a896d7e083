// Raising and clearing etcd alarms on a workload cluster's member the way an operator (or a full disk) would, and
// listing its members: etcd's own API, reached like KCP reaches etcd (port-forward to the etcd Pod through the workload API server,
// TLS with a client certificate of the cluster's etcd CA read from the management cluster).
import { generateEtcdClientCert, LoopbackBridge, PortForwardDialer } from '@capi/etcd';
import { keyPairFromSecret } from '@capi/certs';
import type { KubeClient } from '@capi/controller-runtime';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import { KubeConfig } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import type { KcpHarness } from './harness';

type ClusterKey = { namespace: string; name: string };

/** Runs `fn` with an etcd3 client of the member on `nodeName`, closed afterwards. */
async function withEtcd<T>(h: KcpHarness, cluster: ClusterKey, nodeName: string, fn: (etcd: Etcd3) => Promise<T>) {
  const running = h.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get(cluster);
  if (!running) throw new Error(`workload cluster ${cluster.namespace}/${cluster.name} is not running`);
  const kc = new KubeConfig();
  kc.loadFromString(running.kubeconfig);
  const secret = await (h.client as KubeClient).get({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: cluster.namespace,
    name: `${cluster.name}-etcd`,
  });
  const ca = keyPairFromSecret(secret);
  const cert = await generateEtcdClientCert(ca);
  const dialer = new PortForwardDialer(kc, { namespace: 'kube-system', port: 2379 });
  const bridge = await LoopbackBridge.listen(() => dialer.dial(`etcd-${nodeName}`));
  const etcd = new Etcd3({
    hosts: `https://${bridge.address}`,
    credentials: {
      rootCertificate: Buffer.from(ca.cert),
      certChain: Buffer.from(cert.cert),
      privateKey: Buffer.from(cert.key),
    },
    dialTimeout: 5000,
  });
  try {
    return await fn(etcd);
  } finally {
    etcd.close();
    await bridge.close();
  }
}

/** Activates or deactivates `alarm` on the etcd member of `nodeName`. */
export async function setEtcdAlarm(
  h: KcpHarness,
  cluster: ClusterKey,
  nodeName: string,
  alarm: 'Nospace' | 'Corrupt',
  active = true,
): Promise<void> {
  await withEtcd(h, cluster, nodeName, async (etcd) => {
    const member = (await etcd.cluster.memberList({})).members.find((m) => m.name === nodeName);
    if (!member) throw new Error(`no etcd member named ${nodeName}`);
    await etcd.maintenance.alarm({ action: active ? 'Activate' : 'Deactivate', memberID: member.ID, alarm });
  });
}

/** The names of the etcd members, as the member on `nodeName` lists them. */
export function etcdMemberNames(h: KcpHarness, cluster: ClusterKey, nodeName: string): Promise<string[]> {
  return withEtcd(h, cluster, nodeName, async (etcd) => (await etcd.cluster.memberList({})).members.map((m) => m.name));
}
