// Upstream controlplane/kubeadm/pkg/workload_cluster_test.go (the decisions; the ConfigMap writes are in
// test/workload-upkeep.envtest.spec.ts) and workload_cluster_rbac_test.go (which objects, by version).
import type { KubeadmControlPlane } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  clusterConfigurationMutators,
  desiredKubeProxyImage,
  kubeadmPermissions,
  parsedKcpVersion,
  replaceField,
  SKIP_KUBE_PROXY_ANNOTATION,
  updatedClusterConfiguration,
  updateFeatureGates,
  updateImageRepository,
  type ClusterConfigurationMutator,
} from './workload-upkeep';
import { kcp as kcpFixture } from './testing/fixtures';
import YAML from 'yaml';

/** utilyaml.Raw: the indented literal without its common indentation. */
const raw = (s: string) => {
  const lines = s
    .replace(/^\n/, '')
    .replace(/\n\s*$/, '\n')
    .split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
};
const configMap = (clusterConfiguration?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kubeadm-config', namespace: 'kube-system' },
  data: clusterConfiguration === undefined ? {} : { ClusterConfiguration: clusterConfiguration },
});
const kcpWith = (spec: Partial<KubeadmControlPlane['spec']>, annotations?: Record<string, string>) => {
  const k = kcpFixture(spec);
  if (annotations) k.metadata.annotations = annotations;
  return k;
};
const kubeProxyDS = (image = 'k8s.gcr.io/kube-proxy:v1.16.2'): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'kube-proxy', namespace: 'kube-system' },
    spec: { template: { spec: { containers: [{ name: 'kube-proxy', image }] } } },
  }) as KubeObject;

describe('TestUpdateKubeProxyImageInfo (desiredKubeProxyImage)', () => {
  const cases: [string, KubeObject, KubeadmControlPlane, string | undefined | Error][] = [
    ['succeeds if patch correctly', kubeProxyDS(), kcpWith({ version: 'v1.16.3' }), 'k8s.gcr.io/kube-proxy:v1.16.3'],
    [
      'returns error if image in kube-proxy ds was in digest format',
      kubeProxyDS('k8s.gcr.io/kube-proxy@sha256:47bfd'),
      kcpWith({ version: 'v1.16.3' }),
      new Error(),
    ],
    [
      'expects OCI compatible format of tag',
      kubeProxyDS(),
      kcpWith({ version: 'v1.16.3+build1' }),
      'k8s.gcr.io/kube-proxy:v1.16.3_build1',
    ],
    [
      'returns error if image in kube-proxy ds was in wrong format',
      kubeProxyDS(''),
      kcpWith({ version: 'v1.16.3' }),
      new Error(),
    ],
    [
      'updates image repository if one has been set on the control plane',
      kubeProxyDS(),
      kcpWith({
        version: 'v1.16.3',
        kubeadmConfigSpec: { clusterConfiguration: { imageRepository: 'foo.bar.example/baz/qux' } },
      }),
      'foo.bar.example/baz/qux/kube-proxy:v1.16.3',
    ],
    [
      'does not update image repository if it is blank',
      kubeProxyDS(),
      kcpWith({ version: 'v1.16.3', kubeadmConfigSpec: { clusterConfiguration: { imageRepository: '' } } }),
      'k8s.gcr.io/kube-proxy:v1.16.3',
    ],
    [
      'returns error if image repository is invalid',
      kubeProxyDS(),
      kcpWith({ version: 'v1.16.3', kubeadmConfigSpec: { clusterConfiguration: { imageRepository: '%%%' } } }),
      new Error(),
    ],
  ];
  it.each(cases)('%s', (_, ds, k, want) => {
    if (want instanceof Error) expect(() => desiredKubeProxyImage(k, ds)).toThrow();
    else expect(desiredKubeProxyImage(k, ds)).toBe(want);
  });

  it('no change when the image is already the desired one; no kube-proxy container: nothing to do', () => {
    expect(desiredKubeProxyImage(kcpWith({ version: 'v1.16.2' }), kubeProxyDS())).toBeUndefined();
    const other = kubeProxyDS();
    (other as any).spec.template.spec.containers[0].name = 'other';
    expect(desiredKubeProxyImage(kcpWith({ version: 'v1.16.3' }), other)).toBeUndefined();
  });

  // "does not update image repository when no kube-proxy update is requested" (the skip annotation) is decided by
  // WorkloadUpkeep.updateKubeProxyImageInfo before reading the DaemonSet: test/workload-upkeep.envtest.spec.ts.
  it('the skip annotation name is upstream SkipKubeProxyAnnotation', () =>
    expect(SKIP_KUBE_PROXY_ANNOTATION).toBe('controlplane.cluster.x-k8s.io/skip-kube-proxy'));
});

describe('TestUpdateUpdateClusterConfigurationInKubeadmConfigMap (updatedClusterConfiguration)', () => {
  const certificatesDir =
    (dir: string): ClusterConfigurationMutator =>
    (c) => {
      c.certificatesDir = dir;
    };
  it('fails if config map without ClusterConfiguration data', () =>
    expect(() => updatedClusterConfiguration(configMap(), '1.17.2', [])).toThrow(
      /unable to find "ClusterConfiguration"/,
    ));
  it('fail if config map with invalid ClusterConfiguration data', () =>
    expect(() => updatedClusterConfiguration(configMap('foo'), '1.17.2', [])).toThrow(/unable to decode/));
  it('no op if mutator does not apply changes and Kubernetes version is up-to-date', () =>
    expect(
      updatedClusterConfiguration(
        configMap(
          raw(`
          apiVersion: kubeadm.k8s.io/v1beta3
          kind: ClusterConfiguration
          kubernetesVersion: v1.23.2
        `),
        ),
        '1.23.2',
        [() => undefined],
      ),
    ).toBeUndefined());
  it('update if mutator does not apply changes and Kubernetes version is outdated', () =>
    expect(
      updatedClusterConfiguration(
        configMap(
          raw(`
          apiVersion: kubeadm.k8s.io/v1beta3
          kind: ClusterConfiguration
          kubernetesVersion: v1.16.1
        `),
        ),
        '1.23.2',
        [() => undefined],
      ),
    ).toBe(
      raw(`
        apiServer: {}
        apiVersion: kubeadm.k8s.io/v1beta3
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.23.2
        networking: {}
        scheduler: {}
      `),
    ));
  it('apply changes', () =>
    expect(
      updatedClusterConfiguration(
        configMap(
          raw(`
          apiVersion: kubeadm.k8s.io/v1beta3
          kind: ClusterConfiguration
          kubernetesVersion: v1.16.1
          certificatesDir: bar
        `),
        ),
        '1.23.2',
        [certificatesDir('foo')],
      ),
    ).toBe(
      raw(`
        apiServer: {}
        apiVersion: kubeadm.k8s.io/v1beta3
        certificatesDir: foo
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.23.2
        networking: {}
        scheduler: {}
      `),
    ));
  it('converts kubeadm api version during mutation if required while preserving upstream only data', () =>
    expect(
      updatedClusterConfiguration(
        configMap(
          raw(`
          apiVersion: kubeadm.k8s.io/v1beta3
          kind: ClusterConfiguration
          certificatesDir: bar
          clusterName: mycluster
          controlPlaneEndpoint: myControlPlaneEndpoint:6443
          kubernetesVersion: v1.23.1
          networking:
            dnsDomain: myDNSDomain
            podSubnet: myPodSubnet
            serviceSubnet: myServiceSubnet
        `),
        ),
        '1.32.0',
        [certificatesDir('foo')],
      ),
    ).toBe(
      raw(`
        apiServer: {}
        apiVersion: kubeadm.k8s.io/v1beta4
        certificatesDir: foo
        clusterName: mycluster
        controlPlaneEndpoint: myControlPlaneEndpoint:6443
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.32.0
        networking:
          dnsDomain: myDNSDomain
          podSubnet: myPodSubnet
          serviceSubnet: myServiceSubnet
        proxy: {}
        scheduler: {}
      `),
    ));
});

describe('the single-field mutators (TestUpdate*InKubeadmConfigMap)', () => {
  const v1beta3 = configMap('apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n');
  const v1beta4 = configMap('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n');
  const args = {
    extraArgs: [
      { name: 'bar', value: 'baz' },
      { name: 'someKey', value: 'someVal' },
    ],
    extraVolumes: [{ name: 'mount2', hostPath: '/bar/baz', mountPath: '/foo/bar' }],
  };
  const parsed = (s: string | undefined) => YAML.parse(s!);

  it('TestUpdateImageRepositoryInKubeadmConfigMap: sets it; an empty value keeps the existing one', () => {
    expect(
      parsed(updatedClusterConfiguration(v1beta3, '1.23.1', [updateImageRepository('example.com/k8s')]))
        .imageRepository,
    ).toBe('example.com/k8s');
    const existing = configMap(
      'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nimageRepository: foo.bar/baz.io\n',
    );
    expect(updatedClusterConfiguration(existing, '1.23.1', [updateImageRepository('')])).toContain('foo.bar/baz.io');
  });

  it('TestUpdateApiServerInKubeadmConfigMap: it should set the api server config (< 1.31)', () =>
    expect(updatedClusterConfiguration(v1beta3, '1.23.1', [replaceField('apiServer', args)])).toBe(
      raw(`
        apiServer:
          extraArgs:
            bar: baz
            someKey: someVal
          extraVolumes:
          - hostPath: /bar/baz
            mountPath: /foo/bar
            name: mount2
        apiVersion: kubeadm.k8s.io/v1beta3
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.23.1
        networking: {}
        scheduler: {}
      `),
    ));

  it('TestUpdateApiServerInKubeadmConfigMap: it should set the api server config (>=1.31)', () =>
    expect(updatedClusterConfiguration(v1beta4, '1.31.1', [replaceField('apiServer', args)])).toBe(
      raw(`
        apiServer:
          extraArgs:
          - name: bar
            value: baz
          - name: someKey
            value: someVal
          extraVolumes:
          - hostPath: /bar/baz
            mountPath: /foo/bar
            name: mount2
        apiVersion: kubeadm.k8s.io/v1beta4
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.31.1
        networking: {}
        proxy: {}
        scheduler: {}
      `),
    ));

  it.each(['controllerManager', 'scheduler'])('TestUpdate%sInKubeadmConfigMap: it should set the config', (field) => {
    const out = parsed(updatedClusterConfiguration(v1beta3, '1.23.1', [replaceField(field, args)]));
    expect(out[field]).toEqual({
      extraArgs: { bar: 'baz', someKey: 'someVal' },
      extraVolumes: [{ hostPath: '/bar/baz', mountPath: '/foo/bar', name: 'mount2' }],
    });
    expect(out.apiServer).toEqual({});
  });

  it('TestUpdateCertificateValidityPeriodDaysInKubeadmConfigMap: it should set the certificateValidityDays in config', () =>
    expect(updatedClusterConfiguration(v1beta3, '1.33.1', [replaceField('certificateValidityPeriodDays', 5)])).toBe(
      raw(`
        apiServer: {}
        apiVersion: kubeadm.k8s.io/v1beta4
        certificateValidityPeriod: 120h0m0s
        controllerManager: {}
        dns: {}
        etcd: {}
        kind: ClusterConfiguration
        kubernetesVersion: v1.33.1
        networking: {}
        proxy: {}
        scheduler: {}
      `),
    ));

  const LOCAL_MODE = 'ControlPlaneKubeletLocalMode';
  it.each<
    [
      string,
      ReturnType<typeof configMap>,
      string,
      Record<string, boolean> | undefined,
      Record<string, boolean> | undefined,
    ]
  >([
    ['it updates feature gates', v1beta3, '1.23.1', { EtcdLearnerMode: true }, { EtcdLearnerMode: true }],
    [
      'it should override feature gates even if new value is nil',
      configMap(
        'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nfeatureGates:\n  EtcdLearnerMode: true\n',
      ),
      '1.23.1',
      undefined,
      undefined,
    ],
    ['it should not add ControlPlaneKubeletLocalMode feature gate for 1.30', v1beta3, '1.30.0', undefined, undefined],
    [
      'it should add ControlPlaneKubeletLocalMode feature gate for 1.31.0',
      v1beta4,
      '1.31.0',
      undefined,
      { [LOCAL_MODE]: true },
    ],
    [
      'it should add ControlPlaneKubeletLocalMode feature gate for 1.31.0 if other feature gate is set',
      v1beta4,
      '1.31.0',
      { EtcdLearnerMode: true },
      { [LOCAL_MODE]: true, EtcdLearnerMode: true },
    ],
    [
      'it should preserve ControlPlaneKubeletLocalMode false feature gate for 1.31.0',
      v1beta4,
      '1.31.0',
      { EtcdLearnerMode: true, [LOCAL_MODE]: false },
      { [LOCAL_MODE]: false, EtcdLearnerMode: true },
    ],
    [
      'it should not add ControlPlaneKubeletLocalMode feature gate for 1.36.0 (GA)',
      v1beta4,
      '1.36.0',
      undefined,
      undefined,
    ],
    [
      'it should not add ControlPlaneKubeletLocalMode feature gate for 1.36.0 even with other feature gates',
      v1beta4,
      '1.36.0',
      { EtcdLearnerMode: true },
      { EtcdLearnerMode: true },
    ],
  ])('TestUpdateFeatureGatesInKubeadmConfigMap: %s', (_, cm, version, gates, want) => {
    const out = updatedClusterConfiguration(cm, version, [updateFeatureGates({ featureGates: gates }, version)]);
    expect(parsed(out).featureGates).toEqual(want);
  });
});

describe('clusterConfigurationMutators (update.go updateControlPlane)', () => {
  const cm = configMap(
    'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.31.0\nimageRepository: registry.k8s.io\netcd:\n  local:\n    dataDir: /var/lib/etcd\n',
  );
  it('without a KCP ClusterConfiguration only the Kubernetes version changes', () => {
    expect(
      clusterConfigurationMutators(kcpWith({ version: 'v1.32.0', kubeadmConfigSpec: {} }), '1.32.0', true),
    ).toEqual([]);
    const out = YAML.parse(updatedClusterConfiguration(cm, '1.32.0', [])!);
    expect(out).toMatchObject({
      kubernetesVersion: 'v1.32.0',
      imageRepository: 'registry.k8s.io',
      etcd: { local: { dataDir: '/var/lib/etcd' } },
    });
  });
  it("with one, the KCP's fields replace the ConfigMap's (etcd local for managed etcd, external removed)", () => {
    const k = kcpWith({
      version: 'v1.32.0',
      kubeadmConfigSpec: {
        clusterConfiguration: {
          imageRepository: 'example.com/k8s',
          apiServer: { certSANs: ['a.example.com'] },
          etcd: { local: { dataDir: '/data/etcd' } },
        },
      },
    });
    const out = YAML.parse(updatedClusterConfiguration(cm, '1.32.0', clusterConfigurationMutators(k, '1.32.0', true))!);
    expect(out).toMatchObject({
      imageRepository: 'example.com/k8s',
      apiServer: { certSANs: ['a.example.com'] },
      etcd: { local: { dataDir: '/data/etcd' } },
      featureGates: { ControlPlaneKubeletLocalMode: true },
      kubernetesVersion: 'v1.32.0',
    });
  });
  it('external etcd: the local section goes', () => {
    const k = kcpWith({
      version: 'v1.32.0',
      kubeadmConfigSpec: { clusterConfiguration: { etcd: { external: { endpoints: ['https://e:2379'] } } } },
    });
    const out = YAML.parse(
      updatedClusterConfiguration(cm, '1.32.0', clusterConfigurationMutators(k, '1.32.0', false))!,
    );
    expect(out.etcd).toEqual({ external: { endpoints: ['https://e:2379'] } });
  });
});

describe('TestEnsureKubeadmPermissions (which objects, by version)', () => {
  it.each([
    ['Add kubeadm:apiserver-kubelet-client ClusterRoleBinding for K8s <= 1.37', '1.37.0', 1],
    ['Add kubeadm:apiserver-kubelet-client ClusterRoleBindings for K8s < 1.29 (no lower bound)', '1.28.0', 1],
    ['Do not add kubeadm:apiserver-kubelet-client ClusterRoleBinding for K8s >= 1.38', '1.38.0', 0],
    [
      'Do not add it for K8s 1.38 pre-release (pre-releases are treated as >= 1.38 via WithoutPreReleases)',
      '1.38.0-alpha.0',
      0,
    ],
  ])('%s', (_, version, count) => {
    const objs = kubeadmPermissions(version);
    expect(objs).toHaveLength(count);
    if (count)
      expect(objs[0]).toEqual({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'kubeadm:apiserver-kubelet-client' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
        subjects: [{ kind: 'User', name: 'kube-apiserver-kubelet-client' }],
      });
  });
});

describe('version and equality details', () => {
  it('the kubeadm-config kubernetesVersion keeps build metadata, as semver String() does', () => {
    expect(parsedKcpVersion(kcpWith({ version: 'v1.31.0+build1' }))).toBe('1.31.0+build1');
    expect(() => parsedKcpVersion(kcpWith({ version: 'latest' }))).toThrow(
      /failed to parse Kubernetes version "latest"/,
    );
  });
  it('a feature gate set to false is a change (a map entry, not a zero value)', () => {
    const cm = configMap(
      'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.36.0\n',
    );
    const out = updatedClusterConfiguration(cm, '1.36.0', [
      updateFeatureGates({ featureGates: { SomeGate: false } }, '1.36.0'),
    ]);
    expect(YAML.parse(out!).featureGates).toEqual({ SomeGate: false });
  });
});
