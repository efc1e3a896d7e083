// The typed views must be usable wherever the client contract expects a KubeObject.
import type { KubeObject } from '@capi/apimachinery';
import type { Cluster } from './cluster';
import type { ExtensionConfig } from './extensionconfig';
import type { KubeadmConfig, KubeadmConfigTemplate, KubeadmControlPlane } from './kubeadm';
import type { Machine } from './machine';
import type { MachineDeployment, MachineSet } from './machineset';
import type { MachineHealthCheck } from './mhc';
import { validateKindObject } from '../schema/kind';
import { KubeadmControlPlaneDefinition } from './kubeadm';

type Assignable<T extends KubeObject> = T;
// Compile-time checks (tsc fails if a typed view stops being a KubeObject).
export type _Checks = [
  Assignable<Machine>,
  Assignable<MachineSet>,
  Assignable<MachineDeployment>,
  Assignable<MachineHealthCheck>,
  Assignable<Cluster>,
  Assignable<KubeadmConfig>,
  Assignable<KubeadmConfigTemplate>,
  Assignable<KubeadmControlPlane>,
  Assignable<ExtensionConfig>,
];

describe('typed views', () => {
  it('type a KubeadmControlPlane with the v1beta2 field names and validate it', () => {
    const kcp: KubeadmControlPlane = {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      metadata: { name: 'cp', namespace: 'ns', labels: { 'cluster.x-k8s.io/cluster-name': 'c' } },
      spec: {
        replicas: 3,
        version: 'v1.31.0',
        machineTemplate: {
          spec: {
            infrastructureRef: {
              apiGroup: 'infrastructure.cluster.x-k8s.io',
              kind: 'DockerMachineTemplate',
              name: 't',
            },
            deletion: { nodeDrainTimeoutSeconds: 30 },
          },
        },
        kubeadmConfigSpec: {
          clusterConfiguration: { apiServer: { certSANs: ['x'] } },
          preKubeadmCommands: ['echo hi'],
          files: [{ path: '/etc/x', content: 'y' }],
        },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } },
      },
    };
    const asKube: KubeObject = kcp;
    expect(validateKindObject(KubeadmControlPlaneDefinition, asKube)).toEqual([]);
    expect(
      validateKindObject(KubeadmControlPlaneDefinition, {
        ...kcp,
        spec: { ...kcp.spec, rollout: { strategy: { type: 'Recreate' } } },
      }),
    ).not.toEqual([]);
  });
});
