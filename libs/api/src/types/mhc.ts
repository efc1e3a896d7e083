// cluster.x-k8s.io/v1beta2 MachineHealthCheck (upstream machinehealthcheck_types.go).
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Enum, IntOrString, Obj, OptInt32, OptString, SetList } from '../schema/k8s';
import { ConditionsSchema, LabelSelectorSchema } from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

export const UnhealthyNodeConditionSchema = Obj({
  type: Type.String({ minLength: 1, maxLength: 316 }),
  status: Type.String({ minLength: 1 }),
  timeoutSeconds: Type.Integer({ format: 'int32', minimum: 0 }),
});
export type UnhealthyNodeCondition = Static<typeof UnhealthyNodeConditionSchema>;

export const UnhealthyMachineConditionSchema = Obj({
  type: Type.String({ minLength: 1, maxLength: 316 }),
  status: Enum(['True', 'False', 'Unknown']),
  timeoutSeconds: Type.Integer({ format: 'int32', minimum: 0 }),
});
export type UnhealthyMachineCondition = Static<typeof UnhealthyMachineConditionSchema>;

export const MachineHealthCheckSpecSchema = Obj({
  clusterName: Type.String({ minLength: 1, maxLength: 63 }),
  selector: LabelSelectorSchema,
  checks: Type.Optional(
    Obj({
      nodeStartupTimeoutSeconds: OptInt32({ minimum: 0 }),
      unhealthyNodeConditions: Type.Optional(AtomicList(UnhealthyNodeConditionSchema, { maxItems: 100 })),
      unhealthyMachineConditions: Type.Optional(AtomicList(UnhealthyMachineConditionSchema, { maxItems: 100 })),
    }),
  ),
  remediation: Type.Optional(
    Obj({
      triggerIf: Type.Optional(
        Obj({
          unhealthyLessThanOrEqualTo: Type.Optional(IntOrString()),
          unhealthyInRange: OptString({ minLength: 1, maxLength: 32 }),
        }),
      ),
      templateRef: Type.Optional(
        Obj({
          kind: Type.String({ minLength: 1, maxLength: 63 }),
          name: Type.String({ minLength: 1, maxLength: 253 }),
          apiVersion: Type.String({ minLength: 1, maxLength: 317 }),
        }),
      ),
    }),
  ),
});
export type MachineHealthCheckSpec = Static<typeof MachineHealthCheckSpecSchema>;

export const MachineHealthCheckStatusSchema = Obj({
  conditions: ConditionsSchema(),
  expectedMachines: OptInt32({ minimum: 0 }),
  currentHealthy: OptInt32({ minimum: 0 }),
  remediationsAllowed: OptInt32({ minimum: 0 }),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  targets: Type.Optional(SetList(Type.String())),
});
export type MachineHealthCheckStatus = Static<typeof MachineHealthCheckStatusSchema>;

export const MachineHealthCheckDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineHealthCheck',
  scope: 'Namespaced',
  shortNames: ['mhc', 'mhcs'],
  categories: ['cluster-api'],
  description: 'MachineHealthCheck is the Schema for the machinehealthchecks API.',
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
