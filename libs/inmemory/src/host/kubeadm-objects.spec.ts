import { unmarshalClusterConfiguration, type Cluster } from '@capi/api';
import { coreDnsVersionFor, kubeadmInitObjects } from './kubeadm-objects';

const cluster = (network: Cluster['spec']['clusterNetwork'] = {}): Cluster =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'c1', namespace: 'ns' },
    spec: { clusterNetwork: network, controlPlaneEndpoint: { host: '127.0.0.1', port: 40123 } },
  }) as Cluster;
const byName = (objs: ReturnType<typeof kubeadmInitObjects>) =>
  new Map(objs.map((o) => [`${o.kind}/${o.metadata.name}`, o as any]));

describe('kubeadmInitObjects (what kubeadm init leaves in kube-system)', () => {
  it('the kubeadm-config ClusterConfiguration for the version, with the Cluster network and endpoint', () => {
    const objs = byName(
      kubeadmInitObjects({
        cluster: cluster({
          services: { cidrBlocks: ['10.128.0.0/12'] },
          pods: { cidrBlocks: ['192.168.0.0/16'] },
          serviceDomain: 'example.local',
        }),
        version: 'v1.31.2',
        clusterConfiguration: { apiServer: { certSANs: ['x'] } },
      }),
    );
    const { config, data } = unmarshalClusterConfiguration(
      objs.get('ConfigMap/kubeadm-config').data.ClusterConfiguration,
    );
    expect(objs.get('ConfigMap/kubeadm-config').data.ClusterConfiguration).toContain(
      'apiVersion: kubeadm.k8s.io/v1beta4',
    );
    expect(config).toMatchObject({ apiServer: { certSANs: ['x'] }, controlPlaneEndpoint: '127.0.0.1:40123' });
    expect(data).toEqual({
      kubernetesVersion: 'v1.31.2',
      clusterName: 'c1',
      dnsDomain: 'example.local',
      serviceSubnet: '10.128.0.0/12',
      podSubnet: '192.168.0.0/16',
    });
    expect(objs.get('ConfigMap/coredns').data.Corefile).toContain('kubernetes example.local in-addr.arpa ip6.arpa');
  });

  it('images as kubeadm names them: default registry, coredns/coredns, the version as tag', () => {
    const objs = byName(kubeadmInitObjects({ cluster: cluster(), version: 'v1.30.0' }));
    expect(objs.get('DaemonSet/kube-proxy').spec.template.spec.containers[0].image).toBe(
      'registry.k8s.io/kube-proxy:v1.30.0',
    );
    expect(objs.get('Deployment/coredns').spec.template.spec.containers[0].image).toBe(
      'registry.k8s.io/coredns/coredns:v1.11.3',
    );
    expect(objs.get('ConfigMap/kubeadm-config').data.ClusterConfiguration).toContain(
      'apiVersion: kubeadm.k8s.io/v1beta3',
    );
  });

  it('a custom imageRepository (and DNS repository/tag) is used as kubeadm does', () => {
    const objs = byName(
      kubeadmInitObjects({
        cluster: cluster(),
        version: 'v1.32.0',
        clusterConfiguration: { imageRepository: 'example.com/k8s/' },
      }),
    );
    expect(objs.get('DaemonSet/kube-proxy').spec.template.spec.containers[0].image).toBe(
      'example.com/k8s/kube-proxy:v1.32.0',
    );
    expect(objs.get('Deployment/coredns').spec.template.spec.containers[0].image).toBe(
      'example.com/k8s/coredns:v1.11.3',
    );
    const dns = byName(
      kubeadmInitObjects({
        cluster: cluster(),
        version: 'v1.32.0',
        clusterConfiguration: { dns: { imageRepository: 'dns.example.com', imageTag: 'v1.12.0' } },
      }),
    );
    expect(dns.get('Deployment/coredns').spec.template.spec.containers[0].image).toBe(
      'dns.example.com/coredns:v1.12.0',
    );
  });

  it('the kubeadm RBAC', () => {
    expect(
      [...byName(kubeadmInitObjects({ cluster: cluster(), version: 'v1.30.0' })).keys()]
        .filter((k) => /Role/.test(k))
        .sort(),
    ).toEqual([
      'ClusterRole/kubeadm:get-nodes',
      'ClusterRoleBinding/kubeadm:cluster-admins',
      'ClusterRoleBinding/kubeadm:get-nodes',
      'ClusterRoleBinding/kubeadm:node-proxier',
      'Role/kubeadm:kubelet-config',
      'Role/kubeadm:nodes-kubeadm-config',
      'RoleBinding/kubeadm:kubelet-config',
      'RoleBinding/kubeadm:nodes-kubeadm-config',
    ]);
  });

  it.each([
    ['v1.29.4', 'v1.11.1'],
    ['v1.31.0', 'v1.11.3'],
    ['v1.33.1', 'v1.12.0'],
    ['v1.36.3', 'v1.13.1'],
    ['v1.40.0', 'v1.13.1'],
  ])('CoreDNS for %s is %s', (k8s, coredns) => expect(coreDnsVersionFor(k8s)).toBe(coredns));
});
