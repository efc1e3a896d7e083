// cluster.x-k8s.io/v1beta2 MachineSet and MachineDeployment (upstream machineset_types.go, machinedeployment_types.go).
import { Type, type Static } from '@sinclair/typebox';
import { Enum, IntOrString, Obj, OptInt32, OptString, Time } from '../schema/k8s';
import {
  ConditionsSchema,
  LabelSelectorSchema,
  MachineNamingSchema,
  ReplicaCountersSchema,
  StatusVersionsSchema,
} from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { ageColumn, conditionColumn, pausedColumn } from '../schema/printer-columns';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';
import { MachineTemplateSpecSchema } from './machine';

export const MachineSetDeletionOrderSchema = Enum(['Random', 'Newest', 'Oldest']);
export type MachineSetDeletionOrder = Static<typeof MachineSetDeletionOrderSchema>;

const replicasColumns = [
  { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'Total number of machines desired' },
  { name: 'Current', type: 'integer', jsonPath: '.status.replicas', description: 'Total number of machines' },
  { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas', description: 'Total number of ready machines' },
  {
    name: 'Available',
    type: 'integer',
    jsonPath: '.status.availableReplicas',
    description: 'Total number of available machines',
  },
  {
    name: 'Up-to-date',
    type: 'integer',
    jsonPath: '.status.upToDateReplicas',
    description: 'Total number of up-to-date machines',
  },
] as const;

export const MachineSetSpecSchema = Obj({
  clusterName: Type.String({ minLength: 1, maxLength: 63 }),
  replicas: OptInt32(),
  selector: LabelSelectorSchema,
  template: MachineTemplateSpecSchema,
  machineNaming: Type.Optional(MachineNamingSchema),
  deletion: Type.Optional(Obj({ order: Type.Optional(MachineSetDeletionOrderSchema) })),
});
export type MachineSetSpec = Static<typeof MachineSetSpecSchema>;

const deprecatedReplicaStatus = Type.Optional(
  Obj({
    v1beta1: Type.Optional(
      Obj({
        conditions: Type.Optional(Type.Array(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true }))),
        readyReplicas: OptInt32(),
        availableReplicas: OptInt32(),
        unavailableReplicas: OptInt32(),
        updatedReplicas: OptInt32(),
        fullyLabeledReplicas: OptInt32(),
        failureReason: OptString(),
        failureMessage: OptString(),
      }),
    ),
  }),
);

export const MachineSetStatusSchema = Obj({
  conditions: ConditionsSchema(),
  selector: OptString({ minLength: 1, maxLength: 4096 }),
  ...ReplicaCountersSchema,
  versions: StatusVersionsSchema(),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  deprecated: deprecatedReplicaStatus,
});
export type MachineSetStatus = Static<typeof MachineSetStatusSchema>;

export const MachineSetDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineSet',
  scope: 'Namespaced',
  shortNames: ['ms'],
  categories: ['cluster-api'],
  description: 'MachineSet is the Schema for the machinesets API.',
  spec: MachineSetSpecSchema,
  status: MachineSetStatusSchema,
  scale: {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  },
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName' },
    ...replicasColumns,
    pausedColumn(),
    ageColumn('MachineSet'),
    { name: 'Version', type: 'string', jsonPath: '.spec.template.spec.version' },
  ],
});
export type MachineSet = KindObject<typeof MachineSetDefinition>;

export const MachineDeploymentRolloutStrategyTypeSchema = Enum(['RollingUpdate', 'OnDelete']);
export type MachineDeploymentRolloutStrategyType = Static<typeof MachineDeploymentRolloutStrategyTypeSchema>;

export const MachineDeploymentSpecSchema = Obj({
  clusterName: Type.String({ minLength: 1, maxLength: 63 }),
  replicas: OptInt32(),
  rollout: Type.Optional(
    Obj({
      after: Type.Optional(Time()),
      strategy: Type.Optional(
        Obj({
          type: MachineDeploymentRolloutStrategyTypeSchema,
          rollingUpdate: Type.Optional(
            Obj({ maxUnavailable: Type.Optional(IntOrString()), maxSurge: Type.Optional(IntOrString()) }),
          ),
        }),
      ),
    }),
  ),
  selector: LabelSelectorSchema,
  template: MachineTemplateSpecSchema,
  machineNaming: Type.Optional(MachineNamingSchema),
  remediation: Type.Optional(Obj({ maxInFlight: Type.Optional(IntOrString()) })),
  deletion: Type.Optional(Obj({ order: Type.Optional(MachineSetDeletionOrderSchema) })),
  paused: Type.Optional(Type.Boolean()),
});
export type MachineDeploymentSpec = Static<typeof MachineDeploymentSpecSchema>;

export const MachineDeploymentStatusSchema = Obj({
  conditions: ConditionsSchema(),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  selector: OptString({ minLength: 1, maxLength: 4096 }),
  ...ReplicaCountersSchema,
  versions: StatusVersionsSchema(),
  phase: Type.Optional(Enum(['ScalingUp', 'ScalingDown', 'Running', 'Failed', 'Unknown'])),
  deprecated: deprecatedReplicaStatus,
});
export type MachineDeploymentStatus = Static<typeof MachineDeploymentStatusSchema>;

export const MachineDeploymentDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineDeployment',
  scope: 'Namespaced',
  shortNames: ['md'],
  categories: ['cluster-api'],
  description: 'MachineDeployment is the Schema for the machinedeployments API.',
  spec: MachineDeploymentSpecSchema,
  status: MachineDeploymentStatusSchema,
  scale: {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  },
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName' },
    // Two AVAILABLE columns, as upstream: the Available condition, then the available replicas.
    conditionColumn('Available', 'Available', 'Cluster pass all availability checks'),
    ...replicasColumns,
    pausedColumn(),
    {
      name: 'Phase',
      type: 'string',
      jsonPath: '.status.phase',
      description: 'MachineDeployment status such as ScalingUp/ScalingDown/Running/Failed/Unknown',
    },
    ageColumn('MachineDeployment'),
    { name: 'Version', type: 'string', jsonPath: '.spec.template.spec.version' },
  ],
});
export type MachineDeployment = KindObject<typeof MachineDeploymentDefinition>;
