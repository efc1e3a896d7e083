// reconcileClusterCertificates against a real API server (envtest, either target), ported from upstream
// kubeadmcontrolplane_controller_test.go TestReconcileClusterCertificates.
import type { Cluster, KubeadmControlPlane } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import type { KubeClient } from '@capi/controller-runtime';
import { reconcileClusterCertificates } from '../src/certificates';
import { kcp as kcpFixture } from '../src/testing/fixtures';

jest.setTimeout(60_000);

const PURPOSES = ['ca', 'proxy', 'sa', 'etcd'];

describe('reconcileClusterCertificates (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let kcp: KubeadmControlPlane;
  const cluster = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'certs', namespace: 'default' },
  } as Cluster;
  const getSecret = (purpose: string) =>
    client.tryGet<KubeObject>({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: `certs-${purpose}` });

  beforeAll(async () => {
    env = await startEnvtest();
    client = clientFor(env);
    // A stored KCP, so its uid is real (the embedded server's garbage collector removes Secrets of missing owners).
    const fixture = kcpFixture();
    delete fixture.metadata.uid;
    kcp = await client.create({ ...fixture, metadata: { ...fixture.metadata, name: 'certs' } });
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });

  const assertCertificates = async () => {
    for (const purpose of PURPOSES) {
      const s = await getSecret(purpose);
      expect(s?.type).toBe('cluster.x-k8s.io/secret');
      expect(s?.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
          kind: 'KubeadmControlPlane',
          name: 'certs',
          uid: kcp.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
  };
  const available = { type: 'CertificatesAvailable', status: 'True', reason: 'Available' };

  it('creates certificates if missing', async () => {
    const out = await reconcileClusterCertificates(client, kcp, cluster);
    expect(out.error).toBeUndefined();
    expect(out.condition).toEqual(available);
    await assertCertificates();
  });

  it('no-op if certificates exist', async () => {
    const before = await getSecret('etcd');
    const out = await reconcileClusterCertificates(client, kcp, cluster);
    expect(out.condition).toEqual(available);
    expect((await getSecret('etcd'))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    await assertCertificates();
  });

  const initialized = (): KubeadmControlPlane => ({
    ...kcp,
    status: {
      conditions: [
        { type: 'Initialized', status: 'True', reason: 'Initialized', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    },
  });

  it('no-op after control plane is initialized', async () => {
    const out = await reconcileClusterCertificates(client, initialized(), cluster);
    expect(out.condition).toEqual(available);
    await assertCertificates();
  });

  it('does not recreate certificates deleted after the control plane is initialized', async () => {
    await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'certs-ca' });
    const out = await reconcileClusterCertificates(client, initialized(), cluster);
    expect(out.error).toBeUndefined();
    expect(out.condition).toEqual({
      type: 'CertificatesAvailable',
      status: 'False',
      reason: 'NotAvailable',
      message: 'Cluster certificate for ca is not available, please check cluster certificate secrets',
    });
    expect(await getSecret('ca')).toBeUndefined();
  });

  it('a malformed certificate Secret is an InternalError with the reason in the error', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'certs-ca', namespace: 'default' },
      data: { 'tls.key': Buffer.from('k').toString('base64') },
    });
    const out = await reconcileClusterCertificates(client, kcp, cluster);
    expect(out.condition).toMatchObject({ status: 'Unknown', reason: 'InternalError' });
    expect(out.error?.message).toBe(
      'error in look up or create cluster certificates: Secret default/certs-ca has no tls.crt',
    );
  });
});
