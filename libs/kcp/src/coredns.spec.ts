// Upstream controlplane/kubeadm/pkg/workload_cluster_coredns_test.go: TestValidateCoreDNSImageTag, TestGetCoreDNSInfo
// (the cases on the objects; the not-found ones are UpdateCoreDNS cases in test/workload-upkeep.envtest.spec.ts),
// TestUpdateCoreDNSImageInfoInKubeadmConfigMap and the Deployment edits of TestUpdateCoreDNSDeployment.
import type { KubeObject } from '@capi/apimachinery';
import {
  COREFILE_BACKUP_KEY,
  COREFILE_KEY,
  coreDnsInfo,
  validateCoreDnsImageTag,
  withCorefileVolumeKey,
  withCoreDnsImage,
} from './coredns';
import { updateDnsImage, updatedClusterConfiguration } from './workload-upkeep';

const deployment = (image: string, volumeKey = COREFILE_KEY): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'coredns', namespace: 'kube-system' },
    spec: {
      template: {
        spec: {
          containers: [{ name: 'coredns', image, args: ['-conf', '/etc/coredns/Corefile'] }],
          volumes: [
            { name: 'config-volume', configMap: { name: 'coredns', items: [{ key: volumeKey, path: 'Corefile' }] } },
          ],
        },
      },
    },
  }) as KubeObject;
const corefile = 'some-coredns-core-file';
const cm = (data: Record<string, string> = { Corefile: corefile }): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'coredns', namespace: 'kube-system' },
    data,
  }) as KubeObject;

describe('TestValidateCoreDNSImageTag', () => {
  it.each([
    ['fromVer is higher than toVer', '1.6.2', '1.1.3', 'must be greater than'],
    ['fromVer is not a valid coredns version', '0.204.123', '1.6.3', 'not a compatible coredns version'],
    ['toVer is not a valid semver', '1.5.1', 'foobar', 'failed to parse CoreDNS target version'],
    ['fromVer is not a valid semver', 'foobar', '1.6.1', 'failed to parse CoreDNS current version'],
    ['fromVer is equal to toVer, but different patch versions', '1.6.5_foobar.1', '1.6.5_foobar.2', ''],
    ['fromVer is equal to toVer', '1.6.5_foobar.1', '1.6.5_foobar.1', ''],
    ['fromVer is lower but has meta', '1.6.5-foobar.1', '1.7.5', ''],
    ['fromVer is lower and has meta and leading v', 'v1.6.5-foobar.1', '1.7.5', ''],
    ['fromVer is lower, toVer has meta and leading v', '1.6.5-foobar.1', 'v1.7.5_foobar.1', ''],
  ])('%s', (_, from, to, err) => {
    if (err) expect(() => validateCoreDnsImageTag(from, to)).toThrow(err);
    else expect(() => validateCoreDnsImageTag(from, to)).not.toThrow();
  });
});

describe('TestGetCoreDNSInfo (coreDnsInfo)', () => {
  const clusterConfig = { dns: { imageRepository: 'myrepo', imageTag: '1.7.2-foobar.1' } };
  it.each([
    [
      'returns core dns info',
      'registry.gcr.io/some-folder/coredns:1.6.2',
      clusterConfig,
      { current: '1.6.2', target: '1.7.2', toImage: 'myrepo/coredns:1.7.2-foobar.1', toTag: '1.7.2-foobar.1' },
    ],
    [
      'uses global config ImageRepository if DNS ImageRepository is not set',
      'registry.gcr.io/some-folder/coredns:1.6.2',
      { imageRepository: 'globalRepo/sub-path', dns: { imageTag: '1.7.2-foobar.1' } },
      {
        current: '1.6.2',
        target: '1.7.2',
        toImage: 'globalRepo/sub-path/coredns:1.7.2-foobar.1',
        toTag: '1.7.2-foobar.1',
      },
    ],
    [
      'uses DNS ImageRepository config if both global and DNS-level are set',
      'registry.gcr.io/some-folder/coredns:1.6.2',
      { imageRepository: 'globalRepo', dns: { imageRepository: 'dnsRepo', imageTag: '1.7.2-foobar.1' } },
      { current: '1.6.2', target: '1.7.2', toImage: 'dnsRepo/coredns:1.7.2-foobar.1', toTag: '1.7.2-foobar.1' },
    ],
    [
      'rename to coredns/coredns when upgrading to coredns=1.8.0 (k8s.gcr.io)',
      'k8s.gcr.io/coredns:1.6.2',
      { dns: { imageTag: '1.8.0' } },
      { current: '1.6.2', target: '1.8.0', toImage: 'k8s.gcr.io/coredns/coredns:1.8.0', toTag: '1.8.0' },
    ],
    [
      'rename to coredns/coredns when upgrading to coredns=1.8.0 (registry.k8s.io)',
      'registry.k8s.io/coredns:1.6.2',
      { dns: { imageTag: '1.8.0' } },
      { current: '1.6.2', target: '1.8.0', toImage: 'registry.k8s.io/coredns/coredns:1.8.0', toTag: '1.8.0' },
    ],
  ])('%s', (_, image, config, want) => {
    const d = deployment(image);
    expect(coreDnsInfo(cm(), d, config)).toEqual({
      corefile,
      deployment: d,
      currentMajorMinorPatch: want.current,
      targetMajorMinorPatch: want.target,
      fromImageTag: '1.6.2',
      toImageTag: want.toTag,
      fromImage: image,
      toImage: want.toImage,
    });
  });

  const noContainer = deployment('x');
  (noContainer as any).spec.template.spec.containers = [];
  it.each<[string, KubeObject, KubeObject, Record<string, any>]>([
    ["returns error if coredns deployment doesn't have coredns container", noContainer, cm(), clusterConfig],
    [
      'returns error if unable to find coredns corefile',
      deployment('registry.gcr.io/some-folder/coredns:1.6.2'),
      cm({}),
      clusterConfig,
    ],
    [
      'returns error if unable to parse the container image',
      deployment('k8s.gcr.io/asd:1123/asd:coredns:1.6.1'),
      cm(),
      clusterConfig,
    ],
    ['returns error if container image has no tag', deployment('k8s.gcr.io/coredns'), cm(), clusterConfig],
    [
      'returns error if unable to semver parse container image',
      deployment('k8s.gcr.io/coredns:v1X6.2'),
      cm(),
      clusterConfig,
    ],
    [
      'returns error if unable to semver parse dns image tag',
      deployment('registry.gcr.io/some-folder/coredns:1.6.2'),
      cm(),
      { dns: { imageRepository: 'myrepo', imageTag: 'v1X6.2-foobar.1' } },
    ],
  ])('%s', (_, d, configMap, config) => expect(() => coreDnsInfo(configMap, d, config)).toThrow());
});

describe('TestUpdateCoreDNSImageInfoInKubeadmConfigMap', () => {
  it('it should set the DNS image config', () =>
    expect(
      updatedClusterConfiguration(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {},
          data: { ClusterConfiguration: 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n' },
        } as KubeObject,
        '1.23.1',
        [updateDnsImage({ imageRepository: 'example.com/k8s', imageTag: 'v1.2.3' })],
      ),
    ).toBe(
      [
        'apiServer: {}',
        'apiVersion: kubeadm.k8s.io/v1beta3',
        'controllerManager: {}',
        'dns:',
        '  imageRepository: example.com/k8s',
        '  imageTag: v1.2.3',
        'etcd: {}',
        'kind: ClusterConfiguration',
        'kubernetesVersion: v1.23.1',
        'networking: {}',
        'scheduler: {}',
        '',
      ].join('\n'),
    ));
});

describe('TestUpdateCoreDNSDeployment (the edits)', () => {
  it('patches coredns deployment successfully: image set, volume flipped back from the backup key to Corefile', () => {
    const d = deployment('k8s.gcr.io/coredns:1.6.2', COREFILE_BACKUP_KEY);
    const patched = withCorefileVolumeKey(
      withCoreDnsImage(d, 'k8s.gcr.io/coredns:1.7.2'),
      COREFILE_BACKUP_KEY,
      COREFILE_KEY,
    ) as any;
    expect(patched.spec.template.spec.containers).toEqual([
      { name: 'coredns', image: 'k8s.gcr.io/coredns:1.7.2', args: ['-conf', '/etc/coredns/Corefile'] },
    ]);
    expect(patched.spec.template.spec.volumes[0].configMap.items).toEqual([{ key: 'Corefile', path: 'Corefile' }]);
    // The input is left alone (upstream patches a copy against the original).
    expect((d as any).spec.template.spec.containers[0].image).toBe('k8s.gcr.io/coredns:1.6.2');
  });

  it('only the config-volume of the coredns ConfigMap is pointed at the backup', () => {
    const d = deployment('k8s.gcr.io/coredns:1.6.2') as any;
    d.spec.template.spec.volumes.push({
      name: 'other',
      configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'x' }] },
    });
    const patched = withCorefileVolumeKey(d, COREFILE_KEY, COREFILE_BACKUP_KEY) as any;
    expect(patched.spec.template.spec.volumes.map((v: any) => v.configMap.items[0].key)).toEqual([
      COREFILE_BACKUP_KEY,
      'Corefile',
    ]);
  });
});
