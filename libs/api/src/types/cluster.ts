// cluster.x-k8s.io/v1beta2 Cluster (upstream cluster_types.go). `topology` is kept opaque.
import { Type, type Static } from '@sinclair/typebox';
import {
  MapList,
  Obj,
  OptBool,
  OptInt32,
  OptString,
  Opaque,
  StringMap,
  AtomicList,
  Enum,
  Described,
} from '../schema/k8s';
import {
  ConditionsSchema,
  ContractVersionedObjectReferenceSchema,
  ReplicaCountersSchema,
  StatusVersionsSchema,
} from '../schema/meta';
import { defineKind, type KindObject, type PrinterColumn } from '../schema/kind';
import { ageColumn, conditionColumn, pausedColumn } from '../schema/printer-columns';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

// Descriptions follow the Go doc comments of upstream's cluster_types.go, reworded.
const NetworkRangesSchema = Obj(
  {
    cidrBlocks: Type.Optional(
      AtomicList(Type.String(), { maxItems: 100, description: 'CIDR blocks, e.g. 192.168.0.0/16 (at most 100).' }),
    ),
  },
  { description: 'A list of CIDR blocks.' },
);

export const ClusterSpecSchema = Obj(
  {
    paused: OptBool({
      description:
        'True stops all Cluster API controllers from reconciling this Cluster and the objects that belong to it.',
    }),
    clusterNetwork: Type.Optional(
      Obj(
        {
          apiServerPort: OptInt32({
            minimum: 1,
            maximum: 65535,
            description: 'Port the API server binds to on the hosts; defaults to 6443.',
          }),
          services: Type.Optional(Described(NetworkRangesSchema, 'Address ranges of the Kubernetes Services.')),
          pods: Type.Optional(Described(NetworkRangesSchema, 'Address ranges of the Pods.')),
          serviceDomain: OptString({
            minLength: 1,
            maxLength: 253,
            description: 'DNS domain of the Services; defaults to cluster.local.',
          }),
        },
        { description: 'Network settings of the workload cluster.' },
      ),
    ),
    controlPlaneEndpoint: Type.Optional(
      Obj(
        {
          host: OptString({ maxLength: 512, description: 'Host name or IP address of the API server endpoint.' }),
          port: OptInt32({ minimum: 1, maximum: 65535, description: 'Port of the API server endpoint.' }),
        },
        { description: 'Where the API server of the workload cluster is reached; set by the infrastructure provider.' },
      ),
    ),
    controlPlaneRef: Type.Optional(
      Described(
        ContractVersionedObjectReferenceSchema,
        'The control plane provider object (e.g. a KubeadmControlPlane).',
      ),
    ),
    infrastructureRef: Type.Optional(
      Described(
        ContractVersionedObjectReferenceSchema,
        'The infrastructure provider object of the cluster (e.g. an InMemoryCluster).',
      ),
    ),
    topology: Type.Optional(
      Opaque({
        description:
          'Managed topology from a ClusterClass (class, version, control plane and workers); not used by in-place updates, kept opaque.',
      }),
    ),
    availabilityGates: Type.Optional(
      MapList(
        Obj(
          {
            conditionType: Type.String({
              minLength: 1,
              maxLength: 316,
              description: "Type of a condition in the Cluster's status.conditions that Available also requires.",
            }),
            polarity: Type.Optional(
              Enum(['Positive', 'Negative'], {
                description: 'Positive (the default) when True means good, Negative when False means good.',
              }),
            ),
          },
          { description: 'A condition that must be met before the Cluster is considered Available.' },
        ),
        ['conditionType'],
        {
          maxItems: 32,
          description: 'Extra conditions that must be met, besides the built-in ones, for the Cluster to be Available.',
        },
      ),
    ),
  },
  { description: 'The desired state of the Cluster.' },
);
export type ClusterSpec = Static<typeof ClusterSpecSchema>;

const ReplicaSummarySchema = Obj(
  {
    desiredReplicas: OptInt32({ description: 'The desired number of Machines.' }),
    ...ReplicaCountersSchema,
    versions: StatusVersionsSchema(),
  },
  { description: 'Replica counters summed over a group of Machines.' },
);

export const ClusterStatusSchema = Obj(
  {
    conditions: ConditionsSchema(
      'The observations of the Cluster: Available, InfrastructureReady, ControlPlaneAvailable, WorkersAvailable, RemoteConnectionProbe and more.',
    ),
    initialization: Type.Optional(
      Obj(
        {
          infrastructureProvisioned: OptBool({
            description: 'True once the infrastructure provider reports the cluster infrastructure ready; never reset.',
          }),
          controlPlaneInitialized: OptBool({
            description: 'True once the control plane provider reports the API server reachable; never reset.',
          }),
        },
        { description: 'Provisioning milestones of the Cluster, as the Cluster API contract defines them.' },
      ),
    ),
    controlPlane: Type.Optional(
      Described(ReplicaSummarySchema, 'Counters of the control plane Machines, as the control plane reports them.'),
    ),
    workers: Type.Optional(
      Described(
        ReplicaSummarySchema,
        'Counters of the worker Machines (MachineDeployments, MachineSets, MachinePools).',
      ),
    ),
    failureDomains: Type.Optional(
      MapList(
        Obj(
          {
            name: Type.String({ minLength: 1, maxLength: 256, description: 'Name of the failure domain.' }),
            controlPlane: OptBool({ description: 'True when control plane Machines may be placed here.' }),
            attributes: Type.Optional(
              StringMap({ description: 'Provider specific attributes of the failure domain.' }),
            ),
          },
          { description: 'A failure domain Machines can be placed in.' },
        ),
        ['name'],
        { maxItems: 100, description: 'Failure domains the infrastructure provider offers, keyed by name.' },
      ),
    ),
    phase: Type.Optional(
      Enum(['Pending', 'Provisioning', 'Provisioned', 'Deleting', 'Failed', 'Unknown'], {
        description: 'A simple summary of where the Cluster is in its lifecycle; conditions carry the details.',
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        minimum: 1,
        description: 'The latest metadata.generation the Cluster controller has observed.',
      }),
    ),
    deprecated: Type.Optional(
      Opaque({ description: 'Status fields kept for the v1beta1 API; they go away when v1beta1 is removed.' }),
    ),
  },
  { description: 'The observed state of the Cluster.' },
);
export type ClusterStatus = Static<typeof ClusterStatusSchema>;

export const ClusterDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'Cluster',
  scope: 'Namespaced',
  shortNames: ['cl'],
  categories: ['cluster-api'],
  description:
    'Cluster is a workload cluster: its network, its control plane and infrastructure providers and their readiness.',
  spec: ClusterSpecSchema,
  status: ClusterStatusSchema,
  printerColumns: [
    {
      name: 'ClusterClass',
      type: 'string',
      jsonPath: '.spec.topology.classRef.name',
      description: 'ClusterClass of this Cluster, empty if the Cluster is not using a ClusterClass',
    },
    conditionColumn('Available', 'Available', 'Cluster pass all availability checks'),
    ...replicaCounters('CP', '.status.controlPlane', 'control plane machines'),
    ...replicaCounters('W', '.status.workers', 'worker machines'),
    pausedColumn(),
    {
      name: 'Phase',
      type: 'string',
      jsonPath: '.status.phase',
      description: 'Cluster status such as Pending/Provisioning/Provisioned/Deleting/Failed',
    },
    ageColumn('Cluster'),
    {
      name: 'Version',
      type: 'string',
      jsonPath: '.spec.topology.version',
      description: 'Kubernetes version associated with this Cluster',
    },
  ],
});
export type Cluster = KindObject<typeof ClusterDefinition>;

/** The Cluster's control plane or workers counters: Desired, Current*, Ready*, Available, Up-to-date (* wide). */
function replicaCounters(prefix: string, path: string, what: string): PrinterColumn[] {
  const counter = (name: string, field: string, description: string, priority?: number): PrinterColumn => ({
    name: `${prefix} ${name}`,
    type: 'integer',
    jsonPath: `${path}.${field}`,
    description,
    ...(priority ? { priority } : {}),
  });
  return [
    counter('Desired', 'desiredReplicas', `The desired number of ${what}`),
    counter('Current', 'replicas', `The number of ${what}`, 10),
    counter('Ready', 'readyReplicas', `The number of ${what} with Ready condition true`, 10),
    counter('Available', 'availableReplicas', `The number of ${what} with Available condition true`),
    counter('Up-to-date', 'upToDateReplicas', `The number of ${what} with UpToDate condition true`),
  ];
}
