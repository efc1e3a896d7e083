// lookupOrGenerate against a real API server (envtest, either target): what is generated, what is read back, and
// how user-supplied (external etcd) certificates are treated (upstream util/secret/certificates.go).
import type { KubeObject } from '@capi/apimachinery';
import {
  CLUSTER_SECRET_TYPE,
  certificateSecret,
  certificatesForInitialControlPlane,
  ensureAllExist,
  generateCA,
  keyPairFromSecret,
  lookupOrGenerate,
} from '@capi/certs';
import { KubeClient } from '@capi/controller-runtime';
import { kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';

jest.setTimeout(60_000);

const owner = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  name: 'kcp',
  uid: '5f0f6f6e-0000-4000-8000-000000000001',
  controller: true,
  blockOwnerDeletion: true,
};

describe('cluster certificates (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let n = 0;
  const nextNamespace = async () => {
    const namespace = `certs-${++n}`;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    return namespace;
  };
  beforeAll(async () => {
    env = await startEnvtest({ installProjectCrds: false });
    client = new KubeClient(kubeConfigFor(env));
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });

  it('generates the missing certificates once, as owned cluster.x-k8s.io/secret Secrets, and reads them back', async () => {
    const namespace = await nextNamespace();
    const cluster = { namespace, name: 'c1' };
    const first = await lookupOrGenerate(client, cluster, certificatesForInitialControlPlane(false), owner);
    expect(first.map((c) => [c.purpose, c.generated])).toEqual([
      ['ca', true],
      ['sa', true],
      ['proxy', true],
      ['etcd', true],
    ]);
    ensureAllExist(first);
    const etcd = await client.get<KubeObject>({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'c1-etcd' });
    expect(etcd.type).toBe(CLUSTER_SECRET_TYPE);
    expect(etcd.metadata.labels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'c1' });
    expect(etcd.metadata.ownerReferences).toEqual([owner]);
    expect(keyPairFromSecret(etcd).cert).toBe(first[3].keyPair!.cert);

    const again = await lookupOrGenerate(client, cluster, certificatesForInitialControlPlane(false), owner);
    expect(again.every((c) => !c.generated)).toBe(true);
    expect(again.map((c) => c.keyPair!.cert)).toEqual(first.map((c) => c.keyPair!.cert));
  });

  it('keeps a Secret someone else created (no owner added) and generates only the rest', async () => {
    const namespace = await nextNamespace();
    const cluster = { namespace, name: 'c2' };
    const mine = { purpose: 'ca' as const, external: false, keyPair: await generateCA('user-ca') };
    await client.create(certificateSecret(cluster, mine, owner));
    const certs = await lookupOrGenerate(client, cluster, certificatesForInitialControlPlane(false), owner);
    expect(certs[0].generated).toBeFalsy();
    expect(certs[0].keyPair!.cert).toBe(mine.keyPair.cert);
    const ca = await client.get<KubeObject>({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'c2-ca' });
    expect(ca.metadata.ownerReferences).toBeUndefined();
  });

  it('external etcd: a missing user certificate is an error and nothing is generated for it', async () => {
    const namespace = await nextNamespace();
    const cluster = { namespace, name: 'c3' };
    await expect(lookupOrGenerate(client, cluster, certificatesForInitialControlPlane(true), owner)).rejects.toThrow(
      `external certificate not found: Secret ${namespace}/c3-apiserver-etcd-client`,
    );
    const etcd = await client.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'c3-etcd' });
    expect(etcd).toBeUndefined();
  });

  it('a Secret without tls.crt is a clear error', async () => {
    const namespace = await nextNamespace();
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace, name: 'c4-ca' },
      data: { 'tls.key': Buffer.from('k').toString('base64') },
    });
    await expect(
      lookupOrGenerate(client, { namespace, name: 'c4' }, certificatesForInitialControlPlane(false), owner),
    ).rejects.toThrow(`Secret ${namespace}/c4-ca has no tls.crt`);
  });
});
