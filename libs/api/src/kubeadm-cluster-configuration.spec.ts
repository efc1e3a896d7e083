import {
  kubeadmApiVersionFor,
  marshalClusterConfigurationForVersion,
  unmarshalClusterConfiguration,
} from './kubeadm-cluster-configuration';

const raw = (s: string) => {
  const lines = s.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
};

describe('kubeadm ClusterConfiguration (upstream bootstrap/kubeadm/pkg/types utils.go)', () => {
  it.each([
    ['1.22.0', 'kubeadm.k8s.io/v1beta3'],
    ['v1.30.9', 'kubeadm.k8s.io/v1beta3'],
    ['v1.31.0-rc.1', 'kubeadm.k8s.io/v1beta4'], // WithoutPreReleases: 1.31.0-rc.1 counts as 1.31.0
    ['v1.31.0', 'kubeadm.k8s.io/v1beta4'],
    ['v1.36.3', 'kubeadm.k8s.io/v1beta4'],
  ])('KubeVersionToKubeadmAPIGroupVersion(%s) = %s', (v, gv) => expect(kubeadmApiVersionFor(v)).toBe(gv));

  it('refuses versions before v1.22.0 and non-versions', () => {
    expect(() => kubeadmApiVersionFor('v1.21.9')).toThrow(/lower than v1.22.0/);
    expect(() => kubeadmApiVersionFor('foo')).toThrow(/invalid Kubernetes version/);
  });

  it.each([
    ['not YAML of an object', 'foo'],
    ['an unknown apiVersion', 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\n'],
    ['another kind', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n'],
    ['broken YAML', 'apiVersion: [\n'],
  ])('unmarshal fails on %s', (_, yaml) => expect(() => unmarshalClusterConfiguration(yaml)).toThrow(/decode/));

  it('v1beta3 → Cluster API: extraArgs maps become sorted lists, timeoutForControlPlane and upstream-only data are kept aside', () => {
    const { config, data } = unmarshalClusterConfiguration(
      raw(`
        apiVersion: kubeadm.k8s.io/v1beta3
        kind: ClusterConfiguration
        kubernetesVersion: v1.30.1
        clusterName: mycluster
        controlPlaneEndpoint: myControlPlaneEndpoint:6443
        networking:
          dnsDomain: myDNSDomain
          podSubnet: myPodSubnet
          serviceSubnet: myServiceSubnet
        apiServer:
          timeoutForControlPlane: 4m0s
          extraArgs:
            someKey: someVal
            bar: baz
      `),
    );
    expect(config).toEqual({
      controlPlaneEndpoint: 'myControlPlaneEndpoint:6443',
      apiServer: {
        extraArgs: [
          { name: 'bar', value: 'baz' },
          { name: 'someKey', value: 'someVal' },
        ],
      },
    });
    expect(data).toEqual({
      kubernetesVersion: 'v1.30.1',
      clusterName: 'mycluster',
      dnsDomain: 'myDNSDomain',
      podSubnet: 'myPodSubnet',
      serviceSubnet: 'myServiceSubnet',
      controlPlaneComponentHealthCheckSeconds: 240,
    });
    // Back to v1beta3 for a 1.30 cluster: the same document, with kubeadm's always-written structs.
    expect(marshalClusterConfigurationForVersion(config, '1.30.1', data)).toBe(
      raw(`
        apiServer:
          extraArgs:
            bar: baz
            someKey: someVal
          timeoutForControlPlane: 4m0s
        apiVersion: kubeadm.k8s.io/v1beta3
        clusterName: mycluster
        controlPlaneEndpoint: myControlPlaneEndpoint:6443
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.30.1
        networking:
          dnsDomain: myDNSDomain
          podSubnet: myPodSubnet
          serviceSubnet: myServiceSubnet
        scheduler: {}
      `),
    );
  });

  it('Cluster API → v1beta4 (>= 1.31): extraArgs lists stay lists, proxy is written, the v1beta3 timeout is dropped', () => {
    const yaml = marshalClusterConfigurationForVersion(
      {
        apiServer: {
          extraArgs: [{ name: 'bar', value: 'baz' }],
          extraVolumes: [{ name: 'mount2', hostPath: '/bar/baz', mountPath: '/foo/bar' }],
        },
        certificateValidityPeriodDays: 100,
      },
      '1.31.1',
      { kubernetesVersion: 'v1.31.1', controlPlaneComponentHealthCheckSeconds: 240 },
    );
    expect(yaml).toBe(
      raw(`
        apiServer:
          extraArgs:
          - name: bar
            value: baz
          extraVolumes:
          - hostPath: /bar/baz
            mountPath: /foo/bar
            name: mount2
        apiVersion: kubeadm.k8s.io/v1beta4
        certificateValidityPeriod: 2400h0m0s
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.31.1
        networking: {}
        proxy: {}
        scheduler: {}
      `),
    );
    // v1beta4 → Cluster API keeps the lists and v1beta4-only fields.
    expect(unmarshalClusterConfiguration(yaml).config).toMatchObject({
      apiServer: { extraArgs: [{ name: 'bar', value: 'baz' }] },
      certificateValidityPeriodDays: 100,
    });
  });

  it('Cluster API → v1beta3 drops what v1beta3 cannot carry (extraEnvs, certificate validity, encryption algorithm)', () => {
    const yaml = marshalClusterConfigurationForVersion(
      {
        scheduler: { extraArgs: [{ name: 'v', value: '2' }], extraEnvs: [{ name: 'A', value: 'b' }] },
        certificateValidityPeriodDays: 100,
        caCertificateValidityPeriodDays: 1000,
        encryptionAlgorithm: 'ECDSA-P256',
      },
      '1.30.0',
    );
    expect(yaml).not.toMatch(/extraEnvs|ValidityPeriodDays|encryptionAlgorithm/);
    expect(yaml).toContain('scheduler:\n  extraArgs:\n    v: "2"\n');
  });
});
