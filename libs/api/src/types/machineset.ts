// cluster.x-k8s.io/v1beta2 MachineSet and MachineDeployment (upstream machineset_types.go, machinedeployment_types.go).
import { Type, type Static } from '@sinclair/typebox';
import { Described, Enum, IntOrString, Obj, OptInt32, OptString, Time } from '../schema/k8s';
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

// Descriptions follow the Go doc comments of upstream's machineset_types.go and machinedeployment_types.go, reworded.
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

const clusterName = () =>
  Type.String({ minLength: 1, maxLength: 63, description: 'Name of the Cluster this object belongs to; immutable.' });
const deletion = (what: string) =>
  Type.Optional(
    Obj(
      {
        order: Type.Optional(
          Described(
            MachineSetDeletionOrderSchema,
            'Which Machines go first when scaling down: Random (the default), Newest or Oldest; Machines marked for deletion or unhealthy always go first.',
          ),
        ),
      },
      { description: `How ${what} deletes Machines when it scales down.` },
    ),
  );
const machineNaming = () =>
  Type.Optional(
    Described(
      MachineNamingSchema,
      'How Machine names are generated; defaults to the MachineSet name plus a random suffix.',
    ),
  );
const selector = (what: string) =>
  Described(LabelSelectorSchema, `Label selector for the Machines ${what} owns; it must match the template's labels.`);
const template = () => Described(MachineTemplateSpecSchema, 'The Machines created when there are too few replicas.');

export const MachineSetSpecSchema = Obj(
  {
    clusterName: clusterName(),
    replicas: OptInt32({
      description:
        'Desired number of Machines; when unset it defaults from the autoscaler annotations, else to 1 on create and the current count on update.',
    }),
    selector: selector('the MachineSet'),
    template: template(),
    machineNaming: machineNaming(),
    deletion: deletion('the MachineSet'),
  },
  { description: 'The desired state of the MachineSet.' },
);
export type MachineSetSpec = Static<typeof MachineSetSpecSchema>;

const v1beta1Count = (what: string) => OptInt32({ description: `v1beta1 count of ${what} Machines.` });
const deprecatedReplicaStatus = Type.Optional(
  Obj(
    {
      v1beta1: Type.Optional(
        Obj(
          {
            conditions: Type.Optional(
              Type.Array(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true }), {
                description: 'The v1beta1 conditions.',
              }),
            ),
            readyReplicas: v1beta1Count('ready'),
            availableReplicas: v1beta1Count('available'),
            unavailableReplicas: v1beta1Count('unavailable'),
            updatedReplicas: v1beta1Count('updated'),
            fullyLabeledReplicas: v1beta1Count("fully labeled (labels match the template's)"),
            failureReason: OptString({ description: 'A terse v1beta1 reason for a terminal problem.' }),
            failureMessage: OptString({ description: 'A v1beta1 human readable message for a terminal problem.' }),
          },
          { description: 'Fields of the v1beta1 status.' },
        ),
      ),
    },
    { description: 'Status fields kept for the v1beta1 API; they go away when v1beta1 is removed.' },
  ),
);
const statusSelector = () =>
  OptString({
    minLength: 1,
    maxLength: 4096,
    description: 'The label selector in string form, for the scale subresource (kubectl scale, autoscalers).',
  });
const observedGeneration = (controller: string) =>
  Type.Optional(
    Type.Integer({
      format: 'int64',
      minimum: 1,
      description: `The latest metadata.generation the ${controller} controller has observed.`,
    }),
  );

export const MachineSetStatusSchema = Obj(
  {
    conditions: ConditionsSchema(
      'The observations of the MachineSet: MachinesReady, MachinesUpToDate, ScalingUp, ScalingDown, Remediating, Deleting and more.',
    ),
    selector: statusSelector(),
    ...ReplicaCountersSchema,
    versions: StatusVersionsSchema(),
    observedGeneration: observedGeneration('MachineSet'),
    deprecated: deprecatedReplicaStatus,
  },
  { description: 'The observed state of the MachineSet.' },
);
export type MachineSetStatus = Static<typeof MachineSetStatusSchema>;

export const MachineSetDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineSet',
  scope: 'Namespaced',
  shortNames: ['ms'],
  categories: ['cluster-api'],
  description:
    'MachineSet keeps a number of Machines created from one template running; MachineDeployments manage them for rollouts.',
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

export const MachineDeploymentSpecSchema = Obj(
  {
    clusterName: clusterName(),
    replicas: OptInt32({
      description:
        'Desired number of Machines; when unset it defaults from the autoscaler annotations, else to 1 on create and the current count on update.',
    }),
    rollout: Type.Optional(
      Obj(
        {
          after: Type.Optional(
            Time({
              description:
                'Machines created before this time (RFC 3339) are replaced once it has passed, even if their spec did not change.',
            }),
          ),
          strategy: Type.Optional(
            Obj(
              {
                type: Described(
                  MachineDeploymentRolloutStrategyTypeSchema,
                  'RollingUpdate replaces Machines gradually; OnDelete creates a new Machine only after an old one is deleted by someone.',
                ),
                rollingUpdate: Type.Optional(
                  Obj(
                    {
                      maxUnavailable: Type.Optional(
                        IntOrString({
                          description:
                            'How many Machines (a number or a percentage of replicas, rounded down) may be unavailable during the rollout; defaults to 0.',
                        }),
                      ),
                      maxSurge: Type.Optional(
                        IntOrString({
                          description:
                            'How many Machines (a number or a percentage of replicas, rounded up) may exist above replicas during the rollout; defaults to 1.',
                        }),
                      ),
                    },
                    { description: 'Limits of a RollingUpdate; maxSurge and maxUnavailable cannot both be 0.' },
                  ),
                ),
              },
              { description: 'How old Machines are replaced with new ones; defaults to RollingUpdate.' },
            ),
          ),
        },
        { description: 'How and when Machines are replaced after the template changes.' },
      ),
    ),
    selector: selector('the MachineDeployment'),
    template: template(),
    machineNaming: machineNaming(),
    remediation: Type.Optional(
      Obj(
        {
          maxInFlight: Type.Optional(
            IntOrString({
              description:
                'How many unhealthy Machines (a number or a percentage of replicas) may be remediated at once; unset means no limit.',
            }),
          ),
        },
        { description: 'How unhealthy Machines flagged by a MachineHealthCheck are remediated.' },
      ),
    ),
    deletion: deletion('the MachineDeployment'),
    paused: Type.Optional(
      Type.Boolean({ description: 'True stops the controller from reconciling the MachineDeployment (no rollout).' }),
    ),
  },
  { description: 'The desired state of the MachineDeployment.' },
);
export type MachineDeploymentSpec = Static<typeof MachineDeploymentSpecSchema>;

export const MachineDeploymentStatusSchema = Obj(
  {
    conditions: ConditionsSchema(
      'The observations of the MachineDeployment: Available, MachinesReady, MachinesUpToDate, RollingOut, ScalingUp, ScalingDown, Remediating and more.',
    ),
    observedGeneration: observedGeneration('MachineDeployment'),
    selector: statusSelector(),
    ...ReplicaCountersSchema,
    versions: StatusVersionsSchema(),
    phase: Type.Optional(
      Enum(['ScalingUp', 'ScalingDown', 'Running', 'Failed', 'Unknown'], {
        description: 'A simple summary of the MachineDeployment state; conditions carry the details.',
      }),
    ),
    deprecated: deprecatedReplicaStatus,
  },
  { description: 'The observed state of the MachineDeployment.' },
);
export type MachineDeploymentStatus = Static<typeof MachineDeploymentStatusSchema>;

export const MachineDeploymentDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineDeployment',
  scope: 'Namespaced',
  shortNames: ['md'],
  categories: ['cluster-api'],
  description:
    'MachineDeployment manages MachineSets to keep a number of Machines at the desired template, rolling out template changes.',
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
