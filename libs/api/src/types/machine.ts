// cluster.x-k8s.io/v1beta2 Machine (upstream api/core/v1beta2/machine_types.go).
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Described, Enum, MapList, Obj, OptBool, OptString, Opaque, Time, Name } from '../schema/k8s';
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

// Descriptions follow the Go doc comments of upstream's machine_types.go, reworded.
export const BootstrapSchema = Obj(
  {
    configRef: Type.Optional(
      Described(
        ContractVersionedObjectReferenceSchema,
        'The bootstrap provider object (e.g. a KubeadmConfig) that generates the bootstrap data for this Machine.',
      ),
    ),
    dataSecretName: OptString({
      minLength: 0,
      maxLength: 253,
      description:
        'Name of the Secret holding the bootstrap data; set by the bootstrap provider, or by the user to skip one.',
    }),
  },
  { description: 'Where the bootstrap data of the Machine comes from: a bootstrap config or a ready Secret.' },
);

const machineReadinessGates = () =>
  Type.Optional(
    MapList(MachineReadinessGateSchema, ['conditionType'], {
      maxItems: 32,
      description: 'Extra conditions that must be met, besides the built-in ones, for the Machine to be Ready.',
    }),
  );
const machineDeletion = () =>
  Type.Optional(Described(MachineDeletionTimeoutsSchema, 'Timeouts of the steps of deleting the Machine.'));
const machineTaints = () =>
  Type.Optional(
    MapList(MachineTaintSchema, ['key', 'effect'], {
      maxItems: 64,
      description: 'Taints Cluster API puts on and keeps on the Node of the Machine (at most 64).',
    }),
  );
const machineInfrastructureRef = () =>
  Described(
    ContractVersionedObjectReferenceSchema,
    'The infrastructure provider object (e.g. an InMemoryMachine) that provides the host of this Machine.',
  );

export const MachineSpecSchema = Obj(
  {
    clusterName: Type.String({
      minLength: 1,
      maxLength: 63,
      description: 'Name of the Cluster this object belongs to; immutable.',
    }),
    bootstrap: Described(BootstrapSchema, 'How the bootstrap data of the Machine is produced.'),
    infrastructureRef: machineInfrastructureRef(),
    version: OptString({
      minLength: 1,
      maxLength: 256,
      description: 'Kubernetes version the Machine runs, e.g. v1.34.1; the bootstrap provider installs it.',
    }),
    providerID: OptString({
      minLength: 1,
      maxLength: 512,
      description: "The provider's ID of the host; it matches the Node's spec.providerID and links the two.",
    }),
    failureDomain: OptString({
      minLength: 1,
      maxLength: 256,
      description: "Failure domain to place the Machine in; one of the Cluster's status.failureDomains names.",
    }),
    minReadySeconds: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        description: 'Seconds the Machine must be Ready before it counts as Available; defaults to 0.',
      }),
    ),
    readinessGates: machineReadinessGates(),
    deletion: machineDeletion(),
    taints: machineTaints(),
  },
  { description: 'The desired state of the Machine.' },
);
export type MachineSpec = Static<typeof MachineSpecSchema>;

export const MachineAddressSchema = Obj(
  {
    type: Enum(['Hostname', 'ExternalIP', 'InternalIP', 'ExternalDNS', 'InternalDNS'], {
      description: 'Kind of address: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.',
    }),
    address: Type.String({ minLength: 1, maxLength: 256, description: 'The address itself.' }),
  },
  { description: 'An address of the Machine.' },
);

const stepStart = (step: string) =>
  Type.Optional(Time({ description: `When the Machine controller started ${step} (RFC 3339).` }));

export const MachineStatusSchema = Obj(
  {
    conditions: ConditionsSchema(
      'The observations of the Machine: Available, Ready, UpToDate, BootstrapConfigReady, InfrastructureReady, NodeReady and more.',
    ),
    initialization: Type.Optional(
      Obj(
        {
          infrastructureProvisioned: OptBool({
            description: 'True once the infrastructure provider reports the host provisioned; never reset.',
          }),
          bootstrapDataSecretCreated: OptBool({
            description: 'True once the bootstrap provider has created the bootstrap data Secret; never reset.',
          }),
        },
        { description: 'Provisioning milestones of the Machine, as the Cluster API contract defines them.' },
      ),
    ),
    nodeRef: Type.Optional(
      Obj(
        { name: Name({ description: 'Name of the Node.' }) },
        { description: 'The Node of the workload cluster that this Machine became, once it exists.' },
      ),
    ),
    nodeInfo: Type.Optional(
      Opaque({ description: "The Node's system information (corev1.NodeSystemInfo: OS, kubelet version and more)." }),
    ),
    lastUpdated: Type.Optional(Time({ description: 'When status.phase last changed (RFC 3339).' })),
    failureDomain: OptString({ description: 'The failure domain the Machine was actually placed in.' }),
    addresses: Type.Optional(
      AtomicList(MachineAddressSchema, {
        maxItems: 128,
        description: 'Addresses of the host, as the infrastructure provider reports them.',
      }),
    ),
    phase: Type.Optional(
      Enum(
        ['Pending', 'Provisioning', 'Provisioned', 'Running', 'Updating', 'Deleting', 'Deleted', 'Failed', 'Unknown'],
        { description: 'A simple summary of where the Machine is in its lifecycle; conditions carry the details.' },
      ),
    ),
    certificatesExpiryDate: Type.Optional(
      Time({
        description: 'When the control plane certificates of this Machine expire (RFC 3339); control plane only.',
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        minimum: 1,
        description: 'The latest metadata.generation the Machine controller has observed.',
      }),
    ),
    deletion: Type.Optional(
      Obj(
        {
          nodeDrainStartTime: stepStart('draining the Node'),
          waitForNodeVolumeDetachStartTime: stepStart("waiting for the Node's volumes to detach"),
          waitForPreDrainHookStartTime: stepStart('waiting for pre-drain hooks'),
          waitForPreTerminateHookStartTime: stepStart('waiting for pre-terminate hooks'),
        },
        { description: 'Progress of the Machine deletion; set only while the Machine is being deleted.' },
      ),
    ),
    deprecated: Type.Optional(
      Obj(
        {
          v1beta1: Type.Optional(
            Obj(
              {
                conditions: Type.Optional(
                  AtomicList(DeprecatedV1Beta1ConditionSchema, { description: 'The v1beta1 conditions.' }),
                ),
                failureReason: OptString({ description: 'A terse v1beta1 reason for a terminal problem.' }),
                failureMessage: OptString({ description: 'A v1beta1 human readable message for a terminal problem.' }),
              },
              { description: 'Fields of the v1beta1 status.' },
            ),
          ),
        },
        { description: 'Status fields kept for the v1beta1 API; they go away when v1beta1 is removed.' },
      ),
    ),
  },
  { description: 'The observed state of the Machine.' },
);
export type MachineStatus = Static<typeof MachineStatusSchema>;

export const MachineDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'Machine',
  scope: 'Namespaced',
  shortNames: ['ma'],
  categories: ['cluster-api'],
  description:
    'Machine is one host of a workload cluster: its Kubernetes version, bootstrap config and infrastructure, and the Node it became.',
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
export const MachineTemplateSpecSchema = Obj(
  {
    metadata: Type.Optional(Described(TemplateObjectMetaSchema, 'Labels and annotations of the created Machines.')),
    spec: Described(MachineSpecSchema, 'The spec of the created Machines.'),
  },
  { description: 'The template the Machines are created from.' },
);
export type MachineTemplateSpec = Static<typeof MachineTemplateSpecSchema>;
