// Ported from controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane_test.go TestKubeadmControlPlaneValidateUpdate
// (cases 1-39: spec, kubeadmConfigSpec, clusterConfiguration etcd and dns).
import type { KubeadmControlPlane } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { KubeadmControlPlaneWebhook, SKIP_COREDNS_ANNOTATION } from './kubeadmcontrolplane';
import { before, cc, kcs, plain, with_ } from './kubeadmcontrolplane.fixtures';

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
];

describe('KubeadmControlPlane ValidateUpdate (part 1)', () => {
  it.each(cases)('%s', (_name, webhook, expectErr, old, kcp) => {
    const run = () => webhook.validateUpdate(structuredClone(old), kcp);
    if (expectErr) expect(run).toThrow(AdmissionError);
    else expect(run()).toEqual([]);
  });
});
