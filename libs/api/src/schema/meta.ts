// Shared types from apimachinery and api/core/v1beta2/common_types.go.
import { Type, type Static } from '@sinclair/typebox';
import type { ObjectMeta } from '@capi/apimachinery';
import { Enum, MapList, Name, Obj, OptInt32, OptString, StringMap, Time } from './k8s';

// Descriptions follow the Go doc comments of the upstream types (api/core/v1beta2/common_types.go,
// condition_types.go, machine_types.go and apimachinery's metav1), reworded.

/** metav1.Condition. */
export const ConditionSchema = Obj(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 316,
      description: 'Type of the condition in CamelCase or foo.example.com/CamelCase, e.g. Ready or Available.',
    }),
    status: Enum(['True', 'False', 'Unknown'], { description: 'Status of the condition: True, False or Unknown.' }),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        minimum: 0,
        description: "The object's metadata.generation the condition was computed from.",
      }),
    ),
    lastTransitionTime: Time({
      description: 'When the condition last changed from one status to another (RFC 3339).',
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: "A programmatic CamelCase identifier of the cause of the condition's last transition.",
    }),
    message: Type.Optional(
      Type.String({ maxLength: 32768, description: 'A human readable message with details about the transition.' }),
    ),
  },
  {
    required: ['type', 'status', 'lastTransitionTime', 'reason'],
    description: 'One aspect of the current state of an object (metav1.Condition).',
  },
);
export type Condition = Static<typeof ConditionSchema>;
export type ConditionStatus = Condition['status'];

/** `+listType=map +listMapKey=type` conditions list, max 32 like upstream. */
export const ConditionsSchema = (description = 'The observations of the current state of this object (at most 32).') =>
  Type.Optional(MapList(ConditionSchema, ['type'], { maxItems: 32, description }));

/**
 * v1beta1 conditions kept under status.deprecated.v1beta1 (api/core/v1beta2/condition_types.go Condition): reason and
 * message bounded as upstream's (their minLength 1 is left out: an empty string is what omitempty drops there).
 */
export const DeprecatedV1Beta1ConditionSchema = Obj(
  {
    type: Type.String({ maxLength: 256, description: 'Type of the condition in CamelCase.' }),
    status: Type.String({ description: 'Status of the condition: True, False or Unknown.' }),
    severity: OptString({
      description: 'How bad a False condition is: Error, Warning or Info; empty when the condition is True.',
    }),
    lastTransitionTime: Time({ description: 'When the condition last changed status (RFC 3339).' }),
    reason: OptString({ maxLength: 256, description: "CamelCase cause of the condition's last transition." }),
    message: OptString({ maxLength: 10240, description: 'Human readable details about the transition.' }),
  },
  { description: 'A Cluster API v1beta1 condition, kept during the move to metav1 conditions.' },
);

/** ContractVersionedObjectReference: apiGroup/kind/name, version resolved through the contract label. */
export const ContractVersionedObjectReferenceSchema = Obj(
  {
    apiGroup: Type.String({ minLength: 1, maxLength: 253, description: 'API group of the referenced object.' }),
    kind: Type.String({ minLength: 1, maxLength: 63, description: 'Kind of the referenced object.' }),
    name: Name({ description: 'Name of the referenced object, in the namespace of the referencing object.' }),
  },
  {
    description:
      "A reference to an object by group, kind and name; the version comes from the provider CRD's contract label.",
  },
);
export type ContractVersionedObjectReference = Static<typeof ContractVersionedObjectReferenceSchema>;

/** metav1.LabelSelector. */
export const LabelSelectorRequirementSchema = Obj(
  {
    key: Type.String({ description: 'The label key the requirement applies to.' }),
    operator: Type.String({ description: 'How the key relates to the values: In, NotIn, Exists or DoesNotExist.' }),
    values: Type.Optional(
      Type.Array(Type.String(), {
        'x-kubernetes-list-type': 'atomic',
        description: 'Values to compare with; non-empty for In and NotIn, empty for Exists and DoesNotExist.',
      }),
    ),
  },
  { description: 'A selector requirement: a key, an operator and values.' },
);
export const LabelSelectorSchema = Obj(
  {
    matchLabels: Type.Optional(
      StringMap({ description: 'Labels an object must carry, each an In requirement with a single value.' }),
    ),
    matchExpressions: Type.Optional(
      Type.Array(LabelSelectorRequirementSchema, {
        'x-kubernetes-list-type': 'atomic',
        description: 'Label selector requirements; all of them must match (ANDed).',
      }),
    ),
  },
  {
    'x-kubernetes-map-type': 'atomic',
    description: 'A label query over objects; an empty selector matches everything, a missing one nothing.',
  },
);
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirementSchema>;
export type LabelSelector = Static<typeof LabelSelectorSchema>;

/** ObjectMeta as it appears in templates (v1beta2 ObjectMeta: labels/annotations only). */
export const TemplateObjectMetaSchema = Obj(
  {
    labels: Type.Optional(StringMap({ description: 'Labels put on the objects created from the template.' })),
    annotations: Type.Optional(StringMap({ description: 'Annotations put on the objects created from the template.' })),
  },
  { description: 'Labels and annotations of the objects created from a template.' },
);
export type TemplateObjectMeta = Static<typeof TemplateObjectMetaSchema>;

/** Top-level metadata: CRDs only declare `type: object`; the TS view is the contract's ObjectMeta. */
// Unsafe over an empty Object keeps TypeBox's Object checker (any object passes) while typing it as ObjectMeta.
export const ObjectMetaSchema = Type.Unsafe<ObjectMeta>(Type.Object({}));

/** MachineReadinessGate. */
export const MachineReadinessGateSchema = Obj(
  {
    conditionType: Type.String({
      minLength: 1,
      maxLength: 316,
      description: "Type of a condition in the Machine's status.conditions that the Ready condition also requires.",
    }),
    polarity: Type.Optional(
      Enum(['Positive', 'Negative'], {
        description: 'Positive (the default) when True means good, Negative when False means good.',
      }),
    ),
  },
  { description: 'A condition that must be met before the Machine is considered Ready.' },
);

/** MachineTaint (spec.taints). */
export const MachineTaintSchema = Obj(
  {
    key: Type.String({ minLength: 1, maxLength: 317, description: 'The taint key to put on the Node.' }),
    value: OptString({ maxLength: 63, description: 'The taint value; may be empty.' }),
    effect: Enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], {
      description: 'What the taint does to Pods that do not tolerate it: NoSchedule, PreferNoSchedule or NoExecute.',
    }),
    propagation: Enum(['Always', 'OnInitialization'], {
      description:
        'Always keeps the taint on the Node for its whole life; OnInitialization adds it once when the Node joins.',
    }),
  },
  { description: "A taint Cluster API keeps on the Machine's Node." },
);
export type MachineTaint = Static<typeof MachineTaintSchema>;

/** MachineNamingSpec. */
export const MachineNamingSchema = Obj(
  {
    template: OptString({
      minLength: 1,
      maxLength: 256,
      description:
        'Go template for Machine names; it must contain {{ .random }}. When unset the owner name plus a random suffix is used.',
    }),
  },
  { description: 'How the names of the Machines this object creates are generated.' },
);

/** The three deletion timeouts shared by Machine, MachineTemplate and KCP machineTemplate. */
export const MachineDeletionTimeoutsSchema = Obj(
  {
    nodeDrainTimeoutSeconds: OptInt32({
      minimum: 0,
      description: 'Total seconds allowed for draining the Node; unset or 0 waits for the drain forever.',
    }),
    nodeVolumeDetachTimeoutSeconds: OptInt32({
      minimum: 0,
      description: "Total seconds allowed for the Node's volumes to detach; unset or 0 waits forever.",
    }),
    nodeDeletionTimeoutSeconds: OptInt32({
      minimum: 0,
      description:
        'Seconds to keep retrying the Node deletion once the infrastructure is gone; defaults to 10, 0 retries forever.',
    }),
  },
  { description: 'Timeouts of the Machine deletion steps (drain, volume detach, Node deletion).' },
);

/** Replica counters the v1beta2 aggregating objects report. */
export const ReplicaCountersSchema = {
  replicas: OptInt32({ description: 'The number of Machines (any state) this object counts.' }),
  readyReplicas: OptInt32({ description: 'The number of those Machines whose Ready condition is True.' }),
  availableReplicas: OptInt32({ description: 'The number of those Machines whose Available condition is True.' }),
  upToDateReplicas: OptInt32({ description: 'The number of those Machines whose UpToDate condition is True.' }),
};

/** StatusVersion: Kubernetes versions aggregated over the Machines of an MD/MS/KCP (`+listMapKey=version`). */
export const StatusVersionsSchema = () =>
  Type.Optional(
    MapList(
      Obj(
        {
          version: Type.String({ minLength: 1, maxLength: 256, description: 'A Kubernetes version, e.g. v1.34.1.' }),
          replicas: OptInt32({ description: 'The number of Machines at this version.' }),
        },
        { description: 'How many Machines run one Kubernetes version.' },
      ),
      ['version'],
      { maxItems: 100, description: 'The Kubernetes versions of the Machines and how many Machines run each.' },
    ),
  );
