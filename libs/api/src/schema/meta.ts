// Shared types from apimachinery and api/core/v1beta2/common_types.go.
import { Type, type Static } from '@sinclair/typebox';
import type { ObjectMeta } from '@capi/apimachinery';
import { Enum, MapList, Name, Obj, OptInt32, OptString, StringMap, Time } from './k8s';

/** metav1.Condition. */
export const ConditionSchema = Obj(
  {
    type: Type.String({ minLength: 1, maxLength: 316 }),
    status: Enum(['True', 'False', 'Unknown']),
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
    lastTransitionTime: Time(),
    reason: Type.String({ minLength: 1, maxLength: 1024 }),
    message: Type.Optional(Type.String({ maxLength: 32768 })),
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason'] },
);
export type Condition = Static<typeof ConditionSchema>;
export type ConditionStatus = Condition['status'];

/** `+listType=map +listMapKey=type` conditions list, max 32 like upstream. */
export const ConditionsSchema = () => Type.Optional(MapList(ConditionSchema, ['type'], { maxItems: 32 }));

/**
 * v1beta1 conditions kept under status.deprecated.v1beta1 (api/core/v1beta2/condition_types.go Condition): reason and
 * message bounded as upstream's (their minLength 1 is left out: an empty string is what omitempty drops there).
 */
export const DeprecatedV1Beta1ConditionSchema = Obj({
  type: Type.String({ maxLength: 256 }),
  status: Type.String(),
  severity: OptString(),
  lastTransitionTime: Time(),
  reason: OptString({ maxLength: 256 }),
  message: OptString({ maxLength: 10240 }),
});

/** ContractVersionedObjectReference: apiGroup/kind/name, version resolved through the contract label. */
export const ContractVersionedObjectReferenceSchema = Obj({
  apiGroup: Type.String({ minLength: 1, maxLength: 253 }),
  kind: Type.String({ minLength: 1, maxLength: 63 }),
  name: Name(),
});
export type ContractVersionedObjectReference = Static<typeof ContractVersionedObjectReferenceSchema>;

/** metav1.LabelSelector. */
export const LabelSelectorRequirementSchema = Obj({
  key: Type.String(),
  operator: Type.String(),
  values: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
});
export const LabelSelectorSchema = Obj(
  {
    matchLabels: Type.Optional(StringMap()),
    matchExpressions: Type.Optional(Type.Array(LabelSelectorRequirementSchema, { 'x-kubernetes-list-type': 'atomic' })),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirementSchema>;
export type LabelSelector = Static<typeof LabelSelectorSchema>;

/** ObjectMeta as it appears in templates (v1beta2 ObjectMeta: labels/annotations only). */
export const TemplateObjectMetaSchema = Obj({
  labels: Type.Optional(StringMap()),
  annotations: Type.Optional(StringMap()),
});
export type TemplateObjectMeta = Static<typeof TemplateObjectMetaSchema>;

/** Top-level metadata: CRDs only declare `type: object`; the TS view is the contract's ObjectMeta. */
// Unsafe over an empty Object keeps TypeBox's Object checker (any object passes) while typing it as ObjectMeta.
export const ObjectMetaSchema = Type.Unsafe<ObjectMeta>(Type.Object({}));

/** MachineReadinessGate. */
export const MachineReadinessGateSchema = Obj({
  conditionType: Type.String({ minLength: 1, maxLength: 316 }),
  polarity: Type.Optional(Enum(['Positive', 'Negative'])),
});

/** MachineTaint (spec.taints). */
export const MachineTaintSchema = Obj({
  key: Type.String({ minLength: 1, maxLength: 317 }),
  value: OptString({ maxLength: 63 }),
  effect: Enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  propagation: Enum(['Always', 'OnInitialization']),
});
export type MachineTaint = Static<typeof MachineTaintSchema>;

/** MachineNamingSpec. */
export const MachineNamingSchema = Obj({ template: OptString({ minLength: 1, maxLength: 256 }) });

/** The three deletion timeouts shared by Machine, MachineTemplate and KCP machineTemplate. */
export const MachineDeletionTimeoutsSchema = Obj({
  nodeDrainTimeoutSeconds: OptInt32({ minimum: 0 }),
  nodeVolumeDetachTimeoutSeconds: OptInt32({ minimum: 0 }),
  nodeDeletionTimeoutSeconds: OptInt32({ minimum: 0 }),
});

/** Replica counters the v1beta2 aggregating objects report. */
export const ReplicaCountersSchema = {
  replicas: OptInt32(),
  readyReplicas: OptInt32(),
  availableReplicas: OptInt32(),
  upToDateReplicas: OptInt32(),
};

/** StatusVersion: Kubernetes versions aggregated over the Machines of an MD/MS/KCP (`+listMapKey=version`). */
export const StatusVersionsSchema = () =>
  Type.Optional(
    MapList(Obj({ version: Type.String({ minLength: 1, maxLength: 256 }), replicas: OptInt32() }), ['version'], {
      maxItems: 100,
    }),
  );
