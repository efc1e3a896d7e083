// cluster.x-k8s.io/v1beta2 MachineHealthCheck (upstream machinehealthcheck_types.go).
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Described, Enum, IntOrString, Obj, OptInt32, OptString, SetList } from '../schema/k8s';
import { ConditionsSchema, LabelSelectorSchema } from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

// Descriptions follow the Go doc comments of upstream's machinehealthcheck_types.go, reworded.
const conditionTimeout = (of: string) =>
  Type.Integer({
    format: 'int32',
    minimum: 0,
    description: `Seconds the ${of} condition must hold before the Machine counts as unhealthy.`,
  });

export const UnhealthyNodeConditionSchema = Obj(
  {
    type: Type.String({ minLength: 1, maxLength: 316, description: 'Type of a Node condition, e.g. Ready.' }),
    status: Type.String({
      minLength: 1,
      description: 'The condition status that means unhealthy: True, False or Unknown.',
    }),
    timeoutSeconds: conditionTimeout('Node'),
  },
  { description: 'A Node condition status that, held long enough, makes the Machine unhealthy.' },
);
export type UnhealthyNodeCondition = Static<typeof UnhealthyNodeConditionSchema>;

export const UnhealthyMachineConditionSchema = Obj(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 316,
      description:
        'Type of a Machine condition; Ready, Available, HealthCheckSucceeded and OwnerRemediated are not allowed.',
    }),
    status: Enum(['True', 'False', 'Unknown'], {
      description: 'The condition status that means unhealthy: True, False or Unknown.',
    }),
    timeoutSeconds: conditionTimeout('Machine'),
  },
  { description: 'A Machine condition status that, held long enough, makes the Machine unhealthy.' },
);
export type UnhealthyMachineCondition = Static<typeof UnhealthyMachineConditionSchema>;

export const MachineHealthCheckSpecSchema = Obj(
  {
    clusterName: Type.String({
      minLength: 1,
      maxLength: 63,
      description: 'Name of the Cluster this object belongs to; immutable.',
    }),
    selector: Described(LabelSelectorSchema, 'Label selector of the Machines to check.'),
    checks: Type.Optional(
      Obj(
        {
          nodeStartupTimeoutSeconds: OptInt32({
            minimum: 0,
            description:
              'Seconds a Machine may go without a Node before it counts as unhealthy; defaults to 600, 0 disables the check.',
          }),
          unhealthyNodeConditions: Type.Optional(
            AtomicList(UnhealthyNodeConditionSchema, {
              maxItems: 100,
              description: 'Node conditions that make the Machine unhealthy; any one of them is enough.',
            }),
          ),
          unhealthyMachineConditions: Type.Optional(
            AtomicList(UnhealthyMachineConditionSchema, {
              maxItems: 100,
              description: 'Machine conditions that make the Machine unhealthy; any one of them is enough.',
            }),
          ),
        },
        { description: 'What makes a Machine unhealthy.' },
      ),
    ),
    remediation: Type.Optional(
      Obj(
        {
          triggerIf: Type.Optional(
            Obj(
              {
                unhealthyLessThanOrEqualTo: Type.Optional(
                  IntOrString({
                    description:
                      'Remediate only while at most this many (or this percentage of) selected Machines are unhealthy.',
                  }),
                ),
                unhealthyInRange: OptString({
                  minLength: 1,
                  maxLength: 32,
                  description:
                    'Remediate only while the number of unhealthy Machines is in this range, e.g. [3-5]; it wins over unhealthyLessThanOrEqualTo.',
                }),
              },
              { description: 'When remediation may start; always, when unset.' },
            ),
          ),
          templateRef: Type.Optional(
            Obj(
              {
                kind: Type.String({ minLength: 1, maxLength: 63, description: 'Kind of the remediation template.' }),
                name: Type.String({ minLength: 1, maxLength: 253, description: 'Name of the remediation template.' }),
                apiVersion: Type.String({
                  minLength: 1,
                  maxLength: 317,
                  description: 'API version of the remediation template, group/version.',
                }),
              },
              {
                description:
                  "An external remediation template in the MachineHealthCheck's namespace; unset means the Machine's owner remediates.",
              },
            ),
          ),
        },
        { description: 'How and when unhealthy Machines are remediated.' },
      ),
    ),
  },
  { description: 'The desired state of the MachineHealthCheck.' },
);
export type MachineHealthCheckSpec = Static<typeof MachineHealthCheckSpecSchema>;

export const MachineHealthCheckStatusSchema = Obj(
  {
    conditions: ConditionsSchema('The observations of the MachineHealthCheck: RemediationAllowed, Paused and more.'),
    expectedMachines: OptInt32({ minimum: 0, description: 'The number of Machines the selector matches.' }),
    currentHealthy: OptInt32({ minimum: 0, description: 'The number of those Machines that are healthy.' }),
    remediationsAllowed: OptInt32({
      minimum: 0,
      description: 'How many more Machines may be remediated before triggerIf stops remediation.',
    }),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        minimum: 1,
        description: 'The latest metadata.generation the MachineHealthCheck controller has observed.',
      }),
    ),
    targets: Type.Optional(SetList(Type.String(), { description: 'Names of the Machines being checked.' })),
  },
  { description: 'The observed state of the MachineHealthCheck.' },
);
export type MachineHealthCheckStatus = Static<typeof MachineHealthCheckStatusSchema>;

export const MachineHealthCheckDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineHealthCheck',
  scope: 'Namespaced',
  shortNames: ['mhc', 'mhcs'],
  categories: ['cluster-api'],
  description:
    'MachineHealthCheck marks the selected Machines unhealthy when their Node or Machine conditions say so, to get them remediated.',
  spec: MachineHealthCheckSpecSchema,
  status: MachineHealthCheckStatusSchema,
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName' },
    { name: 'Replicas', type: 'integer', jsonPath: '.status.expectedMachines' },
    { name: 'Healthy', type: 'integer', jsonPath: '.status.currentHealthy' },
    { name: 'Paused', type: 'string', jsonPath: `.status.conditions[?(@.type=="Paused")].status`, priority: 10 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type MachineHealthCheck = KindObject<typeof MachineHealthCheckDefinition>;
