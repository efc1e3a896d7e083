// The first control-plane host of a workload cluster leaves what `kubeadm init` creates in kube-system (from its
// KubeadmConfig's clusterConfiguration and the Machine version); later hosts change none of it, nor do workers.
import { BOOTSTRAP_API_VERSION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import YAML from 'yaml';
import { NS, createCluster, createMachine, startProviderEnv, type ProviderEnv } from './support/fixtures';

jest.setTimeout(30_000);

let p: ProviderEnv;
beforeAll(async () => {
  p = await startProviderEnv({ provisioningDelayMs: 0 });
  await createCluster(p.client, 'k1');
});
afterAll(async () => p?.stop());

const workload = async () =>
  eventually(
    () => p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER)({ namespace: NS, name: 'k1' }),
    'workload client',
  );
const node = async (name: string) =>
  eventually(async () => (await workload()).tryGet({ apiVersion: 'v1', kind: 'Node', name }), `Node ${name}`);
const ks = async (apiVersion: string, kind: string, name: string) =>
  (await workload()).tryGet<any>({ apiVersion, kind, namespace: 'kube-system', name });

it('a worker host creates none of them', async () => {
  await createMachine(p.client, 'k1', 'w-0', { dataSecretName: 'w-0-data' });
  await node('w-0');
  expect(await ks('v1', 'ConfigMap', 'kubeadm-config')).toBeUndefined();
});

it('the first control-plane host creates kubeadm-config, kube-proxy, CoreDNS and the kubeadm RBAC; a joining one keeps them', async () => {
  // The KubeadmConfig exists before the host boots (as the bootstrap data it renders does).
  await p.client.create({
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfig',
    metadata: { name: 'cp-0-config', namespace: NS },
    spec: { clusterConfiguration: { imageRepository: 'example.com/k8s', apiServer: { certSANs: ['cp.example.com'] } } },
  });
  await createMachine(p.client, 'k1', 'cp-0', {
    controlPlane: true,
    dataSecretName: 'cp-0-data',
    bootstrapConfigName: 'cp-0-config',
    version: 'v1.32.1',
  });
  await node('cp-0');
  const config = YAML.parse((await ks('v1', 'ConfigMap', 'kubeadm-config')).data.ClusterConfiguration);
  expect(config).toMatchObject({
    apiVersion: 'kubeadm.k8s.io/v1beta4',
    kind: 'ClusterConfiguration',
    kubernetesVersion: 'v1.32.1',
    clusterName: 'k1',
    imageRepository: 'example.com/k8s',
    apiServer: { certSANs: ['cp.example.com'] },
  });
  const image = (o: any) => o.spec.template.spec.containers[0].image;
  expect(image(await ks('apps/v1', 'DaemonSet', 'kube-proxy'))).toBe('example.com/k8s/kube-proxy:v1.32.1');
  expect(image(await ks('apps/v1', 'Deployment', 'coredns'))).toBe('example.com/k8s/coredns:v1.11.3');
  expect((await ks('v1', 'ConfigMap', 'coredns')).data.Corefile).toContain(
    'kubernetes cluster.local in-addr.arpa ip6.arpa',
  );
  expect(
    await (
      await workload()
    ).tryGet({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: 'kubeadm:get-nodes' }),
  ).toBeDefined();

  // What the cluster (KCP) changes afterwards stays, when another control-plane host joins.
  const w = await workload();
  await w.patch({ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'kube-system', name: 'kube-proxy' }, 'merge', {
    spec: { template: { spec: { containers: [{ name: 'kube-proxy', image: 'example.com/k8s/kube-proxy:v1.32.2' }] } } },
  });
  await createMachine(p.client, 'k1', 'cp-1', { controlPlane: true, dataSecretName: 'cp-1-data', version: 'v1.32.2' });
  await node('cp-1');
  expect(image(await ks('apps/v1', 'DaemonSet', 'kube-proxy'))).toBe('example.com/k8s/kube-proxy:v1.32.2');
  expect(YAML.parse((await ks('v1', 'ConfigMap', 'kubeadm-config')).data.ClusterConfiguration).kubernetesVersion).toBe(
    'v1.32.1',
  );
  const rbac = (await w.list<KubeObject>('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding')).items.map(
    (o) => o.metadata.name,
  );
  expect(rbac).toEqual(expect.arrayContaining(['kubeadm:cluster-admins', 'kubeadm:get-nodes', 'kubeadm:node-proxier']));
});
