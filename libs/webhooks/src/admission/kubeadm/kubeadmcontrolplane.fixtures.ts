// Test fixtures for the KubeadmControlPlane update tables (not part of the package: only spec files import this):
// upstream kubeadmcontrolplane_test.go TestKubeadmControlPlaneValidateUpdate's `before` object and its helpers.
import type { KubeadmControlPlane } from '@capi/api';
import { defaultFeatureGates } from './common';
import { KubeadmControlPlaneWebhook } from './kubeadmcontrolplane';

// Fixtures are written as JSON; the opaque kubeadm structs are reached without the typed view.
export type Mutable = Omit<KubeadmControlPlane, 'spec'> & { spec: any };
export const with_ = (k: KubeadmControlPlane, f: (k: Mutable) => void): KubeadmControlPlane => {
  const c = structuredClone(k) as Mutable;
  f(c);
  return c;
};
export const kcs = (k: Mutable) => k.spec.kubeadmConfigSpec;
export const cc = (k: Mutable) => (k.spec.kubeadmConfigSpec.clusterConfiguration ??= {});

export const plain = new KubeadmControlPlaneWebhook();
export const ignition = new KubeadmControlPlaneWebhook(defaultFeatureGates({ KubeadmBootstrapFormatIgnition: true }));
export const taints = new KubeadmControlPlaneWebhook(defaultFeatureGates({ MachineTaintPropagation: true }));

export const before = {
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
