// Ported from controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane_test.go TestKubeadmControlPlaneValidateUpdate.
import type { KubeadmControlPlane } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { defaultFeatureGates } from './common';
import { KubeadmControlPlaneWebhook, SKIP_COREDNS_ANNOTATION } from './kubeadmcontrolplane';

// Fixtures are written as JSON; the opaque kubeadm structs are reached without the typed view.
type Mutable = Omit<KubeadmControlPlane, 'spec'> & { spec: any };
const with_ = (k: KubeadmControlPlane, f: (k: Mutable) => void): KubeadmControlPlane => {
  const c = structuredClone(k) as Mutable;
  f(c);
  return c;
};
const kcs = (k: Mutable) => k.spec.kubeadmConfigSpec;
const cc = (k: Mutable) => (k.spec.kubeadmConfigSpec.clusterConfiguration ??= {});

const plain = new KubeadmControlPlaneWebhook();
const ignition = new KubeadmControlPlaneWebhook(defaultFeatureGates({ KubeadmBootstrapFormatIgnition: true }));
const taints = new KubeadmControlPlaneWebhook(defaultFeatureGates({ MachineTaintPropagation: true }));

const before = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'test', namespace: 'foo' },
  spec: {
    machineTemplate: {
      spec: {
        infrastructureRef: { apiGroup: 'test', kind: 'UnknownInfraMachine', name: 'infraTemplate' },
        deletion: { nodeDrainTimeoutSeconds: 1, nodeVolumeDetachTimeoutSeconds: 1, nodeDeletionTimeoutSeconds: 1 },
      },
    },
    replicas: 1,
    kubeadmConfigSpec: {
      initConfiguration: {
        localAPIEndpoint: { advertiseAddress: '127.0.0.1', bindPort: 443 },
        nodeRegistration: { name: 'test' },
        timeouts: { controlPlaneComponentHealthCheckSeconds: 10, kubeletHealthCheckSeconds: 40 },
      },
      clusterConfiguration: {
        dns: { imageRepository: 'registry.k8s.io/coredns', imageTag: '1.6.5' },
        certificateValidityPeriodDays: 100,
        caCertificateValidityPeriodDays: 365,
        encryptionAlgorithm: 'RSA-2048',
      },
      joinConfiguration: {
        nodeRegistration: { name: 'test' },
        timeouts: { controlPlaneComponentHealthCheckSeconds: 10, kubeletHealthCheckSeconds: 40 },
      },
      preKubeadmCommands: ['test', 'foo'],
      postKubeadmCommands: ['test', 'foo'],
      files: [{ path: 'test' }],
      users: [{ name: 'user', sshAuthorizedKeys: ['ssh-rsa foo'] }],
      ntp: { servers: ['test-server-1', 'test-server-2'], enabled: true },
    },
    version: 'v1.16.6',
    rollout: {
      before: { certificatesExpiryDays: 7 },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    },
  },
} as KubeadmControlPlane;

const validUpdate = with_(before, (c) => {
  c.metadata.labels = { blue: 'green' };
  Object.assign(kcs(c), {
    bootCommands: ['ab', 'abc'],
    preKubeadmCommands: ['ab', 'abc'],
    postKubeadmCommands: ['ab', 'abc'],
    files: [{ path: 'ab' }, { path: 'abc' }],
    users: [{ name: 'bar', sshAuthorizedKeys: ['ssh-rsa bar', 'ssh-rsa foo'] }],
    format: 'cloud-config',
  });
  c.spec.version = 'v1.17.1';
  c.spec.machineTemplate.metadata = { labels: { label: 'labelValue' }, annotations: { annotation: 'labelAnnotation' } };
  Object.assign(c.spec.machineTemplate.spec.infrastructureRef, { apiGroup: 'test-changed', name: 'orange' });
  c.spec.machineTemplate.spec.deletion = {
    nodeDrainTimeoutSeconds: 10,
    nodeVolumeDetachTimeoutSeconds: 10,
    nodeDeletionTimeoutSeconds: 10,
  };
  c.spec.replicas = 5;
  c.spec.rollout.after = new Date().toISOString();
  c.spec.rollout.before.certificatesExpiryDays = 14;
  c.spec.remediation = { maxRetry: 50, minHealthyPeriodSeconds: 10 * 60 * 60, retryPeriodSeconds: 10 * 60 };
});

const beforeKubeadmConfigFormatSet = with_(before, (c) => (kcs(c).format = 'cloud-config'));
const etcdLocalImageTag = with_(before, (c) => (cc(c).etcd = { local: { imageTag: 'v9.1.1' } }));
const unsetEtcdLocal = with_(etcdLocalImageTag, (c) => (cc(c).etcd.local = {}));
const dns = with_(before, (c) => (cc(c).dns = { imageRepository: 'gcr.io/capi-test', imageTag: 'v1.6.6_foobar.1' }));
const setDns = (base: KubeadmControlPlane, imageTag: string, imageRepository = 'gcr.io/capi-test') =>
  with_(base, (c) => (cc(c).dns = { imageRepository, imageTag }));
const validUnsupportedCoreDNSVersion = setDns(dns, 'v99.99.99');
const unsetCoreDNSToVersion = setDns(dns, '', '');
const externalEtcd = (base: KubeadmControlPlane, keyFile: string) =>
  with_(base, (c) => (cc(c).etcd = { external: { keyFile } }));
const beforeExternalEtcdCluster = with_(
  before,
  (c) => (kcs(c).clusterConfiguration = { etcd: { external: { endpoints: ['127.0.0.1'] } } }),
);
const beforeInvalidEtcdCluster = with_(
  before,
  (c) => (cc(c).etcd = { local: { imageRepository: 'image-repository', imageTag: 'latest' } }),
);
const invalidIgnitionConfiguration = with_(
  before,
  (c) => (kcs(c).ignition = { containerLinuxConfig: { additionalConfig: 'config' } }),
);
const validIgnitionConfigurationBefore = with_(before, (c) => {
  kcs(c).format = 'ignition';
  kcs(c).ignition = { containerLinuxConfig: { additionalConfig: 'config-before' } };
});
const changeTimeouts = with_(before, (c) => {
  for (const cfg of [kcs(c).initConfiguration, kcs(c).joinConfiguration]) {
    cfg.timeouts = { controlPlaneComponentHealthCheckSeconds: 20, etcdAPICallSeconds: 20 };
  }
});
const unsetTimeouts = with_(before, (c) => {
  kcs(c).initConfiguration.timeouts = {};
  kcs(c).joinConfiguration.timeouts = {};
});
const beforeTaints = with_(before, (c) => {
  c.spec.machineTemplate.spec.taints = [
    { key: 'pre-existing-on-initialization-taint', value: 'on-initialization-value', effect: 'PreferNoSchedule' },
  ];
});
const afterTaints = with_(beforeTaints, (c) => {
  c.spec.machineTemplate.spec.taints.push({ key: 'added-taint', value: 'added-taint-value', effect: 'NoSchedule' });
});
const hostPathMount = { name: 'mount', hostPath: '/foo', mountPath: 'bar', readOnly: true, pathType: 'File' };

type Case = [string, KubeadmControlPlaneWebhook, boolean, KubeadmControlPlane, KubeadmControlPlane];
const cases: Case[] = [
  ['should succeed when given a valid config', plain, false, before, validUpdate],
  [
    'should not return an error when trying to mutate the kubeadmconfigspec initconfiguration noderegistration',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).initConfiguration.nodeRegistration = {})),
  ],
  [
    'should return error when trying to mutate the kubeadmconfigspec clusterconfiguration',
    plain,
    true,
    before,
    with_(before, (c) => (kcs(c).clusterConfiguration = { certificatesDir: 'some-other-value' })),
  ],
  [
    'should not return an error when trying to mutate the kubeadmconfigspec joinconfiguration noderegistration',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).joinConfiguration.nodeRegistration = {})),
  ],
  [
    'should return error when trying to mutate the kubeadmconfigspec format from cloud-config to ignition',
    plain,
    true,
    beforeKubeadmConfigFormatSet,
    with_(beforeKubeadmConfigFormatSet, (c) => (kcs(c).format = 'ignition')),
  ],
  [
    'should return error when trying to scale to zero',
    plain,
    true,
    before,
    with_(before, (c) => (c.spec.replicas = 0)),
  ],
  [
    'should return error when trying to scale to an even number',
    plain,
    true,
    before,
    with_(before, (c) => (c.spec.replicas = 2)),
  ],
  [
    'should return error when trying to scale to nil',
    plain,
    true,
    before,
    with_(before, (c) => delete c.spec.replicas),
  ],
  [
    'should succeed when trying to scale to an even number with external etcd defined in ClusterConfiguration',
    plain,
    false,
    beforeExternalEtcdCluster,
    with_(beforeExternalEtcdCluster, (c) => (c.spec.replicas = 2)),
  ],
  ['should succeed when making a change to the local etcd image tag', plain, false, before, etcdLocalImageTag],
  [
    'should succeed when making a change to the local etcd image tag (build tag)',
    plain,
    false,
    before,
    with_(before, (c) => (cc(c).etcd = { local: { imageTag: 'v9.1.1_validBuild1' } })),
  ],
  [
    'should fail when using an invalid etcd image tag',
    plain,
    true,
    before,
    with_(before, (c) => (cc(c).etcd = { local: { imageTag: 'v9.1.1+invalidBuild1' } })),
  ],
  [
    "should fail when making a change to the cluster config's controlPlaneEndpoint",
    plain,
    true,
    before,
    with_(before, (c) => (cc(c).controlPlaneEndpoint = 'some control plane endpoint')),
  ],
  [
    "should allow changes to the cluster config's apiServer",
    plain,
    false,
    before,
    with_(before, (c) => {
      cc(c).apiServer = {
        extraArgs: [{ name: 'foo', value: 'bar' }],
        extraVolumes: [{ name: 'mount1' }],
        certSANs: ['foo', 'bar'],
      };
    }),
  ],
  [
    "should allow changes to the cluster config's controllerManager",
    plain,
    false,
    before,
    with_(before, (c) => {
      cc(c).controllerManager = {
        extraArgs: [{ name: 'controller manager field', value: 'controller manager value' }],
        extraVolumes: [hostPathMount],
      };
    }),
  ],
  [
    "should allow changes to the cluster config's scheduler",
    plain,
    false,
    before,
    with_(before, (c) => {
      cc(c).scheduler = {
        extraArgs: [{ name: 'scheduler field', value: 'scheduler value' }],
        extraVolumes: [hostPathMount],
      };
    }),
  ],
  ["should succeed when making a change to the cluster config's dns", plain, false, before, dns],
  ['should succeed when changing to a valid custom CoreDNS version', plain, false, dns, setDns(dns, 'v1.6.6_foobar.2')],
  ['should succeed when CoreDNS ImageTag is unset', plain, false, dns, unsetCoreDNSToVersion],
  ['should succeed when DNS is set to nil', plain, false, dns, with_(dns, (c) => delete cc(c).dns)],
  ['should succeed when using an valid DNS build', plain, false, before, setDns(before, '1.6.7')],
  ['should succeed when using the same CoreDNS version', plain, false, dns, structuredClone(dns)],
  [
    'should succeed when using the same CoreDNS version - not supported',
    plain,
    false,
    validUnsupportedCoreDNSVersion,
    validUnsupportedCoreDNSVersion,
  ],
  ['should fail when upgrading to an unsupported version', plain, true, dns, validUnsupportedCoreDNSVersion],
  [
    'should succeed when upgrading to an unsupported version and KCP has skip annotation set',
    plain,
    false,
    dns,
    with_(validUnsupportedCoreDNSVersion, (c) => (c.metadata.annotations = { [SKIP_COREDNS_ANNOTATION]: '' })),
  ],
  ['should fail when using an invalid DNS build', plain, true, before, setDns(before, 'v0.20.0+invalidBuild1')],
  ['should fail when using an invalid CoreDNS version', plain, true, dns, setDns(dns, '1.6.5')],
  [
    "should fail when making a change to the cluster config's certificatesDir",
    plain,
    true,
    before,
    with_(before, (c) => (cc(c).certificatesDir = 'a new certificates directory')),
  ],
  [
    "should fail when making a change to the cluster config's imageRepository",
    plain,
    false,
    before,
    with_(before, (c) => (cc(c).imageRepository = 'a new image repository')),
  ],
  [
    "should succeed when making a change to the cluster config's featureGates",
    plain,
    false,
    before,
    with_(before, (c) => (cc(c).featureGates = { 'a feature gate': true })),
  ],
  ...(
    [
      ['localDataDir', { dataDir: 'some local data dir' }],
      ['localPeerCertSANs', { peerCertSANs: ['a cert'] }],
      ['localServerCertSANs', { serverCertSANs: ['a cert'] }],
      ['localExtraArgs', { extraArgs: [{ name: 'an arg', value: 'a value' }] }],
    ] as const
  ).map(([field, local]): Case => [
    `should succeed when making a change to the cluster config's local etcd's configuration ${field} field`,
    plain,
    false,
    before,
    with_(before, (c) => (cc(c).etcd = { local })),
  ]),
  [
    "should succeed when making a change to the cluster config's external etcd's configuration",
    plain,
    false,
    externalEtcd(before, 'some key file'),
    externalEtcd(before, 'another key file'),
  ],
  [
    "should succeed when adding the cluster config's local etcd's configuration",
    plain,
    false,
    unsetEtcdLocal,
    etcdLocalImageTag,
  ],
  [
    "should succeed when making a change to the cluster config's local etcd's configuration",
    plain,
    false,
    etcdLocalImageTag,
    with_(etcdLocalImageTag, (c) => (cc(c).etcd.local.dataDir = '/foo')),
  ],
  [
    'should succeed when attempting to unset the etcd local object to fallback to the default',
    plain,
    false,
    etcdLocalImageTag,
    unsetEtcdLocal,
  ],
  [
    'should fail if both local and external etcd are set',
    plain,
    true,
    beforeInvalidEtcdCluster,
    with_(beforeInvalidEtcdCluster, (c) => (cc(c).etcd = { external: { endpoints: ['127.0.0.1'] } })),
  ],
  ...((): Case[] => {
    const without = with_(before, (c) => (kcs(c).clusterConfiguration = {}));
    return [['should pass if ClusterConfiguration is nil', plain, false, without, without]];
  })(),
  [
    'should not return an error when maxSurge value is updated to 0',
    plain,
    false,
    before,
    with_(before, (c) => {
      c.spec.rollout.strategy.rollingUpdate.maxSurge = 0;
      c.spec.replicas = 3;
    }),
  ],
  [
    'should return an error when maxSurge value is updated to 0, but replica count is < 3',
    plain,
    true,
    before,
    with_(before, (c) => (c.spec.rollout.strategy.rollingUpdate.maxSurge = 0)),
  ],
  [
    'should pass if NTP servers are updated',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).ntp.servers = ['new-server'])),
  ],
  [
    'should pass if NTP servers is disabled during update',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).ntp.enabled = false)),
  ],
  [
    'should allow changes to initConfiguration.patches',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).initConfiguration.patches = { directory: '/tmp/patches' })),
  ],
  [
    'should allow changes to joinConfiguration.patches',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).joinConfiguration.patches = { directory: '/tmp/patches' })),
  ],
  [
    'should allow changes to initConfiguration.skipPhases',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).initConfiguration.skipPhases = ['addon/kube-proxy'])),
  ],
  [
    'should allow changes to joinConfiguration.skipPhases',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).joinConfiguration.skipPhases = ['addon/kube-proxy'])),
  ],
  [
    'should allow changes to diskSetup',
    plain,
    false,
    before,
    with_(before, (c) => (kcs(c).diskSetup = { filesystems: [{ device: '/dev/sda', filesystem: 'ext4' }] })),
  ],
  ['should allow unsetting rolloutBefore', plain, false, before, with_(before, (c) => delete c.spec.rollout.before)],
  [
    'should return error when Ignition configuration is invalid',
    ignition,
    true,
    invalidIgnitionConfiguration,
    invalidIgnitionConfiguration,
  ],
  [
    'should succeed when Ignition configuration is modified',
    ignition,
    false,
    validIgnitionConfigurationBefore,
    with_(
      validIgnitionConfigurationBefore,
      (c) => (kcs(c).ignition.containerLinuxConfig.additionalConfig = 'foo: bar'),
    ),
  ],
  [
    'should succeed when CloudInit was used before',
    ignition,
    false,
    before,
    with_(before, (c) => {
      kcs(c).format = 'ignition';
      kcs(c).mounts = [['/var/lib/testdir', '/var/lib/etcd/data']];
    }),
  ],
  [
    'should return error for invalid metadata',
    ignition,
    true,
    before,
    with_(before, (c) => {
      c.spec.machineTemplate.metadata = {
        labels: { foo: '$invalid-key', bar: 'a'.repeat(64) + 'too-long-value', '/invalid-key': 'foo' },
        annotations: { '/invalid-key': 'foo' },
      };
    }),
  ],
  ['should succeed when changing timeouts', plain, false, before, changeTimeouts],
  ['should succeed when unsetting timeouts', plain, false, before, unsetTimeouts],
  ['should succeed when setting timeouts', plain, false, unsetTimeouts, changeTimeouts],
  [
    "should succeed when making a change to the cluster config's certificateValidityPeriod",
    plain,
    false,
    before,
    with_(before, (c) => (cc(c).certificateValidityPeriodDays = 150)),
  ],
  [
    "should return error when trying to mutate the cluster config's caCertificateValidityPeriodDays",
    plain,
    true,
    before,
    with_(before, (c) => (kcs(c).clusterConfiguration = { caCertificateValidityPeriodDays: 730 })),
  ],
  [
    'should allow to update encryptionAlgorithm',
    plain,
    false,
    before,
    with_(before, (c) => (cc(c).encryptionAlgorithm = 'RSA-3072')),
  ],
  ['should not allow to add taints when feature gate is disabled', plain, true, before, afterTaints],
  ['should allow to update taints', taints, false, beforeTaints, afterTaints],
];

describe('KubeadmControlPlane ValidateUpdate', () => {
  it.each(cases)('%s', (_name, webhook, expectErr, old, kcp) => {
    const run = () => webhook.validateUpdate(structuredClone(old), kcp);
    if (expectErr) expect(run).toThrow(AdmissionError);
    else expect(run()).toEqual([]);
  });
});
