// The InMemoryMachine controller hands the cluster's etcd CA (the `<cluster>-etcd` Secret) to the workload API server
// of a control-plane host, as upstream's reconcileNormalETCD: waiting, with the reason, while the Secret is missing;
// then KCP's way in — a port-forward to the etcd Pod, TLS with a client certificate signed by that CA — answers.
import type { InMemoryMachine, WorkloadClusters } from '@capi/inmemory';
import { INMEMORY_API_VERSION, WORKLOAD_CLUSTERS } from '@capi/inmemory';
import { generateCA, signCertificate } from '@capi/certs';
import { eventually } from '@capi/envtest';
import { createCluster, createMachine, NS, startProviderEnv, type ProviderEnv } from '../support/fixtures';
import { etcdClient, forwardToEtcdPod } from '../support/etcd';

jest.setTimeout(60_000);

let p: ProviderEnv;
beforeAll(async () => {
  p = await startProviderEnv({ provisioningDelayMs: 0 });
});
afterAll(async () => {
  await p?.stop();
});

const etcdProvisioned = async (name: string) =>
  (
    await p.client.get<InMemoryMachine>({
      apiVersion: INMEMORY_API_VERSION,
      kind: 'InMemoryMachine',
      namespace: NS,
      name,
    })
  ).status?.conditions?.find((c) => c.type === 'EtcdProvisioned');

it('a control-plane host waits for the etcd CA Secret with the reason, then its etcd member answers over TLS', async () => {
  await createCluster(p.client, 'ca1');
  await createMachine(p.client, 'ca1', 'ca1-cp', { controlPlane: true, dataSecretName: 'd' });
  await createMachine(p.client, 'ca1', 'ca1-worker', { dataSecretName: 'd' });
  const waiting = await eventually(async () => {
    const c = await etcdProvisioned('ca1-cp-infra');
    return c?.reason === 'InternalError' ? c : undefined;
  }, 'EtcdProvisioned False while the Secret is missing');
  expect(waiting).toMatchObject({
    status: 'False',
    message: `failed to get etcd CA: Secret ${NS}/ca1-etcd not found`,
  });
  // Workers run no etcd member.
  expect(await etcdProvisioned('ca1-worker-infra')).toBeUndefined();

  const ca = await generateCA('etcd-ca');
  await p.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ca1-etcd', namespace: NS },
    type: 'cluster.x-k8s.io/secret',
    data: { 'tls.crt': Buffer.from(ca.cert).toString('base64'), 'tls.key': Buffer.from(ca.key).toString('base64') },
  });
  await eventually(async () => (await etcdProvisioned('ca1-cp-infra'))?.status === 'True', 'EtcdProvisioned True');

  const running = p.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get({ namespace: NS, name: 'ca1' })!;
  const fwd = await forwardToEtcdPod(running.server, 'etcd-ca1-cp');
  const client = etcdClient(
    fwd.endpoint,
    ca,
    await signCertificate(ca, { commonName: 'cluster-api.x-k8s.io', usage: 'client' }),
  );
  try {
    const status = await client.maintenance.status({});
    const members = await client.cluster.memberList({});
    expect(members.members.map((m) => m.name)).toEqual(['ca1-cp']);
    expect(status.leader).toBe(members.members[0].ID);
  } finally {
    client.close();
    await fwd.close();
  }
});
