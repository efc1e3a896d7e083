// cluster.x-k8s.io/v1beta2 Machine (upstream api/core/v1beta2/machine_types.go).
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Enum, MapList, Obj, OptBool, OptString, Opaque, Time, Name } from '../schema/k8s';
import {
  ConditionsSchema,
  ContractVersionedObjectReferenceSchema,
  DeprecatedV1Beta1ConditionSchema,
  MachineDeletionTimeoutsSchema,
  MachineReadinessGateSchema,
  MachineTaintSchema,
  TemplateObjectMetaSchema,
} from '../schema/meta';
import { defineKind, type KindObject, type PrinterColumn } from '../schema/kind';
import { ageColumn, conditionColumn, pausedColumn } from '../schema/printer-columns';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

export const BootstrapSchema = Obj({
  configRef: Type.Optional(ContractVersionedObjectReferenceSchema),
  dataSecretName: OptString({ minLength: 0, maxLength: 253 }),
});

export const MachineSpecSchema = Obj({
  clusterName: Type.String({ minLength: 1, maxLength: 63 }),
  bootstrap: BootstrapSchema,
  infrastructureRef: ContractVersionedObjectReferenceSchema,
  version: OptString({ minLength: 1, maxLength: 256 }),
  providerID: OptString({ minLength: 1, maxLength: 512 }),
  failureDomain: OptString({ minLength: 1, maxLength: 256 }),
  minReadySeconds: Type.Optional(Type.Integer({ format: 'int32', minimum: 0 })),
  readinessGates: Type.Optional(MapList(MachineReadinessGateSchema, ['conditionType'], { maxItems: 32 })),
  deletion: Type.Optional(MachineDeletionTimeoutsSchema),
  taints: Type.Optional(MapList(MachineTaintSchema, ['key', 'effect'], { maxItems: 64 })),
});
export type MachineSpec = Static<typeof MachineSpecSchema>;

export const MachineAddressSchema = Obj({
  type: Enum(['Hostname', 'ExternalIP', 'InternalIP', 'ExternalDNS', 'InternalDNS']),
  address: Type.String({ minLength: 1, maxLength: 256 }),
});

export const MachineStatusSchema = Obj({
  conditions: ConditionsSchema(),
  initialization: Type.Optional(Obj({ infrastructureProvisioned: OptBool(), bootstrapDataSecretCreated: OptBool() })),
  nodeRef: Type.Optional(Obj({ name: Name() })),
  nodeInfo: Type.Optional(Opaque({ description: 'corev1.NodeSystemInfo of the Node (kept opaque).' })),
  lastUpdated: Type.Optional(Time()),
  failureDomain: OptString(),
  addresses: Type.Optional(AtomicList(MachineAddressSchema, { maxItems: 128 })),
  phase: Type.Optional(
    Enum(['Pending', 'Provisioning', 'Provisioned', 'Running', 'Updating', 'Deleting', 'Deleted', 'Failed', 'Unknown']),
  ),
  certificatesExpiryDate: Type.Optional(Time()),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  deletion: Type.Optional(
    Obj({
      nodeDrainStartTime: Type.Optional(Time()),
      waitForNodeVolumeDetachStartTime: Type.Optional(Time()),
      waitForPreDrainHookStartTime: Type.Optional(Time()),
      waitForPreTerminateHookStartTime: Type.Optional(Time()),
    }),
  ),
  deprecated: Type.Optional(
    Obj({
      v1beta1: Type.Optional(
        Obj({
          conditions: Type.Optional(AtomicList(DeprecatedV1Beta1ConditionSchema)),
          failureReason: OptString(),
          failureMessage: OptString(),
        }),
      ),
    }),
  ),
});
export type MachineStatus = Static<typeof MachineStatusSchema>;

export const MachineDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'Machine',
  scope: 'Namespaced',
  shortNames: ['ma'],
  categories: ['cluster-api'],
  description: 'Machine is the Schema for the machines API.',
  spec: MachineSpecSchema,
  status: MachineStatusSchema,
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName', description: 'Cluster' },
    {
      name: 'Node Name',
      type: 'string',
      jsonPath: '.status.nodeRef.name',
      description: 'Node name associated with this machine',
    },
    { name: 'Provider ID', type: 'string', jsonPath: '.spec.providerID', description: 'Provider ID', priority: 10 },
    {
      name: 'Failure domain',
      type: 'string',
      jsonPath: '.status.failureDomain',
      description: 'The failure domain the machine is running in',
    },
    conditionColumn('Ready', 'Ready', 'Machine pass all readiness checks'),
    conditionColumn('Available', 'Available', 'Machine is Ready for at least MinReadySeconds'),
    conditionColumn('Up-to-date', 'UpToDate', "Machine spec matches the spec of the Machine's owner resource"),
    addressColumn('Internal-IP', 'InternalIP'),
    addressColumn('External-IP', 'ExternalIP'),
    {
      name: 'OS-Image',
      type: 'string',
      jsonPath: '.status.nodeInfo.osImage',
      description: 'OS Image reported by the node',
      priority: 10,
    },
    pausedColumn(),
    {
      name: 'Phase',
      type: 'string',
      jsonPath: '.status.phase',
      description: 'Machine status such as Terminating/Pending/Running/Failed etc',
    },
    ageColumn('Machine'),
    {
      name: 'Version',
      type: 'string',
      jsonPath: '.spec.version',
      description: 'Kubernetes version associated with this Machine',
    },
  ],
});
export type Machine = KindObject<typeof MachineDefinition>;

function addressColumn(name: string, type: string): PrinterColumn {
  return {
    name,
    type: 'string',
    jsonPath: `.status.addresses[?(@.type=="${type}")].address`,
    description: `${type} of the node (wide output)`,
    priority: 10,
  };
}

/** MachineTemplateSpec as embedded by MachineSet / MachineDeployment. */
export const MachineTemplateSpecSchema = Obj({
  metadata: Type.Optional(TemplateObjectMetaSchema),
  spec: MachineSpecSchema,
});
export type MachineTemplateSpec = Static<typeof MachineTemplateSpecSchema>;
