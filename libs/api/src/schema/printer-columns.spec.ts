// `kubectl get` columns of every kind, as upstream's `+kubebuilder:printcolumn` markers declare them (name, then `*`
// for priority 10, i.e. `-o wide` only): api/core/v1beta2/{cluster,machine,machineset,machinedeployment,
// machinehealthcheck,machinedrainrules}_types.go, api/controlplane/kubeadm/v1beta2/kubeadm_control_plane_types.go,
// api/bootstrap/kubeadm/v1beta2/kubeadmconfig{,template}_types.go, api/runtime/v1beta2/extensionconfig_types.go.
import type { KindDefinition } from './kind';
import { ClusterDefinition } from '../types/cluster';
import { ExtensionConfigDefinition } from '../types/extensionconfig';
import {
  KubeadmConfigDefinition,
  KubeadmConfigTemplateDefinition,
  KubeadmControlPlaneDefinition,
} from '../types/kubeadm';
import { MachineDefinition } from '../types/machine';
import { MachineDrainRuleDefinition } from '../types/machinedrainrule';
import { MachineDeploymentDefinition, MachineSetDefinition } from '../types/machineset';
import { MachineHealthCheckDefinition } from '../types/mhc';

const UPSTREAM: [KindDefinition, string][] = [
  [
    ClusterDefinition,
    'ClusterClass Available CP_Desired CP_Current* CP_Ready* CP_Available CP_Up-to-date W_Desired W_Current* W_Ready* ' +
      'W_Available W_Up-to-date Paused* Phase Age Version',
  ],
  [
    MachineDefinition,
    'Cluster Node_Name Provider_ID* Failure_domain Ready Available Up-to-date Internal-IP* External-IP* OS-Image* ' +
      'Paused* Phase Age Version',
  ],
  [MachineSetDefinition, 'Cluster Desired Current Ready Available Up-to-date Paused* Age Version'],
  [
    MachineDeploymentDefinition,
    'Cluster Available Desired Current Ready Available Up-to-date Paused* Phase Age Version',
  ],
  [MachineHealthCheckDefinition, 'Cluster Replicas Healthy Paused* Age'],
  [MachineDrainRuleDefinition, 'Behavior Order Age'],
  [
    KubeadmControlPlaneDefinition,
    'Cluster Available Desired Current Ready Available Up-to-date Paused* Initialized Age Version',
  ],
  [KubeadmConfigDefinition, 'Cluster Paused* Data_secret_created Age'],
  [KubeadmConfigTemplateDefinition, 'ClusterClass Cluster Age'],
  [ExtensionConfigDefinition, 'Paused* Discovered Age'],
];

describe('printer columns', () => {
  it.each(UPSTREAM.map(([def, cols]) => [def.kind, def, cols] as const))('%s: upstream columns', (_, def, cols) => {
    const ours = (def.printerColumns ?? []).map(
      (c) => `${c.name.replace(/ /g, '_')}${c.priority === 10 ? '*' : c.priority ? `(${c.priority})` : ''}`,
    );
    expect(ours.join(' ')).toBe(cols);
  });

  it('every condition column reads the status of the condition it is named after (Up-to-date: UpToDate)', () => {
    for (const [def] of UPSTREAM)
      for (const c of def.printerColumns ?? []) {
        const m = /^\.status\.conditions\[\?\(@\.type=="(\w+)"\)\]\.status$/.exec(c.jsonPath);
        if (m) expect([m[1], c.name]).toEqual([c.name === 'Up-to-date' ? 'UpToDate' : c.name, c.name]);
      }
  });
});
