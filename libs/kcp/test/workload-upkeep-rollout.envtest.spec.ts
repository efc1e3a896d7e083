// A KCP version change on a real (in-memory provider) workload cluster: before rolling Machines out KCP brings the
// kubeadm-config ConfigMap and kubeadm's RBAC to the new version (upstream update.go updateControlPlane), and once the
// control plane is stable again the kube-proxy DaemonSet and CoreDNS follow (controller.go reconcile).
import { CONTROLPLANE_API_VERSION } from '@capi/api';
import type { Client } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import YAML from 'yaml';
import {
  createControlPlane,
  KCP_POLL,
  startKcpHarness,
  waitForStableControlPlane,
  CLUSTER,
  KCP_NAME,
  NS,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(150_000);

describe('KCP keeps the workload cluster kubeadm objects in line (envtest + in-memory provider)', () => {
  let h: KcpHarness;
  let workload: Client;
  const get = (apiVersion: string, kind: string, name: string) =>
    workload.get<any>({ apiVersion, kind, namespace: 'kube-system', name });
  const clusterConfiguration = async () =>
    YAML.parse((await get('v1', 'ConfigMap', 'kubeadm-config')).data.ClusterConfiguration);
  const image = async (kind: 'DaemonSet' | 'Deployment', name: string) =>
    (await get('apps/v1', kind, name)).spec.template.spec.containers[0].image as string;

  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 1, maxSurge: 1 });
    await waitForStableControlPlane(h, 1, 'v1.30.0');
    workload = h.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get({ namespace: NS, name: CLUSTER })!.client;
  });
  afterAll(async () => h?.close());

  it('the first control-plane host left what kubeadm init creates', async () => {
    expect(await clusterConfiguration()).toMatchObject({
      apiVersion: 'kubeadm.k8s.io/v1beta3',
      kubernetesVersion: 'v1.30.0',
      clusterName: CLUSTER,
      etcd: { local: { imageTag: '3.5.12' } },
    });
    expect(await image('DaemonSet', 'kube-proxy')).toBe('registry.k8s.io/kube-proxy:v1.30.0');
    expect(await image('Deployment', 'coredns')).toBe('registry.k8s.io/coredns/coredns:v1.11.3');
  });

  it('a version change (and a CoreDNS tag) reaches kubeadm-config, the kubeadm RBAC, kube-proxy and CoreDNS', async () => {
    const corefile = (await get('v1', 'ConfigMap', 'coredns')).data.Corefile;
    await h.client.patch(
      { apiVersion: CONTROLPLANE_API_VERSION, kind: 'KubeadmControlPlane', namespace: NS, name: KCP_NAME },
      'merge',
      {
        spec: {
          version: 'v1.31.0',
          kubeadmConfigSpec: {
            clusterConfiguration: { etcd: { local: { imageTag: '3.5.15' } }, dns: { imageTag: 'v1.12.0' } },
          },
        },
      },
    );
    // Before the new Machine exists, kubeadm-config is already at the new version, in kubeadm's v1beta4 API.
    await eventually(
      async () => {
        const c = await clusterConfiguration();
        return c.kubernetesVersion === 'v1.31.0' ? c : undefined;
      },
      { ...KCP_POLL, message: 'kubeadm-config at v1.31.0' },
    );
    expect(await clusterConfiguration()).toMatchObject({
      apiVersion: 'kubeadm.k8s.io/v1beta4',
      featureGates: { ControlPlaneKubeletLocalMode: true },
      etcd: { local: { imageTag: '3.5.15' } },
      proxy: {},
    });
    expect(
      await workload.get<any>({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        name: 'kubeadm:apiserver-kubelet-client',
      }),
    ).toMatchObject({ roleRef: { name: 'system:kubelet-api-admin' } });
    await waitForStableControlPlane(h, 1, 'v1.31.0');
    await eventually(
      async () =>
        (await image('DaemonSet', 'kube-proxy')) === 'registry.k8s.io/kube-proxy:v1.31.0' ? true : undefined,
      {
        ...KCP_POLL,
        message: 'kube-proxy at v1.31.0',
      },
    );
    await eventually(
      async () =>
        (await image('Deployment', 'coredns')) === 'registry.k8s.io/coredns/coredns:v1.12.0' ? true : undefined,
      { ...KCP_POLL, message: 'coredns at v1.12.0' },
    );
    expect((await clusterConfiguration()).dns).toEqual({ imageTag: 'v1.12.0' });
    // The Corefile went through the migration (content kept), the previous one is the backup.
    const coredns = (await get('v1', 'ConfigMap', 'coredns')).data;
    expect(coredns['Corefile-backup']).toBe(corefile);
    expect(coredns.Corefile.replace(/\s+/g, ' ')).toBe(corefile.replace(/\s+/g, ' '));
  });
});
