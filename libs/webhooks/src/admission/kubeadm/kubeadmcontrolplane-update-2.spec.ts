// Ported from controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane_test.go TestKubeadmControlPlaneValidateUpdate
// (cases 40-62: rollout, ntp, patches, ignition, metadata, timeouts, certificates, taints).
import type { KubeadmControlPlane } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { KubeadmControlPlaneWebhook } from './kubeadmcontrolplane';
import { before, cc, ignition, kcs, plain, taints, with_ } from './kubeadmcontrolplane.fixtures';

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

type Case = [string, KubeadmControlPlaneWebhook, boolean, KubeadmControlPlane, KubeadmControlPlane];
const cases: Case[] = [
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

describe('KubeadmControlPlane ValidateUpdate (part 2)', () => {
  it.each(cases)('%s', (_name, webhook, expectErr, old, kcp) => {
    const run = () => webhook.validateUpdate(structuredClone(old), kcp);
    if (expectErr) expect(run).toThrow(AdmissionError);
    else expect(run()).toEqual([]);
  });
});
