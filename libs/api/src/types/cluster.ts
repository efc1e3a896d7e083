// cluster.x-k8s.io/v1beta2 Cluster (upstream cluster_types.go). `topology` is kept opaque.
import { Type, type Static } from '@sinclair/typebox';
import { MapList, Obj, OptBool, OptInt32, OptString, Opaque, StringMap, AtomicList, Enum } from '../schema/k8s';
import {
  ConditionsSchema,
  ContractVersionedObjectReferenceSchema,
  ReplicaCountersSchema,
  StatusVersionsSchema,
} from '../schema/meta';
import { defineKind, type KindObject, type PrinterColumn } from '../schema/kind';
import { ageColumn, conditionColumn, pausedColumn } from '../schema/printer-columns';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

const NetworkRangesSchema = Obj({ cidrBlocks: Type.Optional(AtomicList(Type.String(), { maxItems: 100 })) });

export const ClusterSpecSchema = Obj({
  paused: OptBool(),
  clusterNetwork: Type.Optional(
    Obj({
      apiServerPort: OptInt32({ minimum: 1, maximum: 65535 }),
      services: Type.Optional(NetworkRangesSchema),
      pods: Type.Optional(NetworkRangesSchema),
      serviceDomain: OptString({ minLength: 1, maxLength: 253 }),
    }),
  ),
  controlPlaneEndpoint: Type.Optional(
    Obj({ host: OptString({ maxLength: 512 }), port: OptInt32({ minimum: 1, maximum: 65535 }) }),
  ),
  controlPlaneRef: Type.Optional(ContractVersionedObjectReferenceSchema),
  infrastructureRef: Type.Optional(ContractVersionedObjectReferenceSchema),
  topology: Type.Optional(
    Opaque({ description: 'Managed topology (ClusterClass); not used by in-place updates, kept opaque.' }),
  ),
  availabilityGates: Type.Optional(
    MapList(
      Obj({
        conditionType: Type.String({ minLength: 1, maxLength: 316 }),
        polarity: Type.Optional(Enum(['Positive', 'Negative'])),
      }),
      ['conditionType'],
      { maxItems: 32 },
    ),
  ),
});
export type ClusterSpec = Static<typeof ClusterSpecSchema>;

const ReplicaSummarySchema = Obj({
  desiredReplicas: OptInt32(),
  ...ReplicaCountersSchema,
  versions: StatusVersionsSchema(),
});

export const ClusterStatusSchema = Obj({
  conditions: ConditionsSchema(),
  initialization: Type.Optional(Obj({ infrastructureProvisioned: OptBool(), controlPlaneInitialized: OptBool() })),
  controlPlane: Type.Optional(ReplicaSummarySchema),
  workers: Type.Optional(ReplicaSummarySchema),
  failureDomains: Type.Optional(
    MapList(
      Obj({
        name: Type.String({ minLength: 1, maxLength: 256 }),
        controlPlane: OptBool(),
        attributes: Type.Optional(StringMap()),
      }),
      ['name'],
      { maxItems: 100 },
    ),
  ),
  phase: Type.Optional(Enum(['Pending', 'Provisioning', 'Provisioned', 'Deleting', 'Failed', 'Unknown'])),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  deprecated: Type.Optional(Opaque()),
});
export type ClusterStatus = Static<typeof ClusterStatusSchema>;

export const ClusterDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'Cluster',
  scope: 'Namespaced',
  shortNames: ['cl'],
  categories: ['cluster-api'],
  description: 'Cluster is the Schema for the clusters API.',
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
