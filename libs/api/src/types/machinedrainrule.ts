// cluster.x-k8s.io/v1beta2 MachineDrainRule (upstream api/core/v1beta2/machinedrainrules_types.go; CRD
// core/config/crd/bases/cluster.x-k8s.io_machinedrainrules.yaml). The v1beta1 version upstream still serves
// (deprecated) is not served here, as for the other Cluster API kinds.
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Enum, Obj, OptInt32 } from '../schema/k8s';
import { LabelSelectorSchema } from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

/** Label on workload cluster Pods: `skip` or `wait-completed`; it takes precedence over MachineDrainRules. */
export const POD_DRAIN_LABEL = 'cluster.x-k8s.io/drain';

export const MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN = 'Drain';
export const MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP = 'Skip';
export const MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED = 'WaitCompleted';
export type MachineDrainRuleDrainBehavior = 'Drain' | 'Skip' | 'WaitCompleted';

export const MachineDrainRuleMachineSelectorSchema = Obj(
  {
    selector: Type.Optional(LabelSelectorSchema),
    clusterSelector: Type.Optional(LabelSelectorSchema),
  },
  { minProperties: 1 },
);
export type MachineDrainRuleMachineSelector = Static<typeof MachineDrainRuleMachineSelectorSchema>;

export const MachineDrainRulePodSelectorSchema = Obj(
  {
    selector: Type.Optional(LabelSelectorSchema),
    namespaceSelector: Type.Optional(LabelSelectorSchema),
  },
  { minProperties: 1 },
);
export type MachineDrainRulePodSelector = Static<typeof MachineDrainRulePodSelectorSchema>;

const unique = (field: string) => [
  { rule: 'self.all(x, self.exists_one(y, x == y))', message: `entries in ${field} must be unique` },
];

export const MachineDrainRuleSpecSchema = Obj({
  drain: Obj({
    behavior: Enum(['Drain', 'Skip', 'WaitCompleted']),
    order: OptInt32(),
  }),
  machines: Type.Optional(
    AtomicList(MachineDrainRuleMachineSelectorSchema, {
      minItems: 1,
      maxItems: 32,
      'x-kubernetes-validations': unique('machines'),
    }),
  ),
  pods: Type.Optional(
    AtomicList(MachineDrainRulePodSelectorSchema, {
      minItems: 1,
      maxItems: 32,
      'x-kubernetes-validations': unique('pods'),
    }),
  ),
});
export type MachineDrainRuleSpec = Static<typeof MachineDrainRuleSpecSchema>;

export const MachineDrainRuleDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineDrainRule',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  description: 'MachineDrainRule is the Schema for the MachineDrainRule API.',
  spec: MachineDrainRuleSpecSchema,
  status: Obj({}),
  printerColumns: [
    { name: 'Behavior', type: 'string', jsonPath: '.spec.drain.behavior', description: 'Drain behavior' },
    { name: 'Order', type: 'string', jsonPath: '.spec.drain.order', description: 'Drain order' },
    {
      name: 'Age',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      description: 'Time duration since creation of the MachineDrainRule',
    },
  ],
});
// Upstream's MachineDrainRule has no status (and so no status subresource).
MachineDrainRuleDefinition.statusSubresource = false;
export type MachineDrainRule = KindObject<typeof MachineDrainRuleDefinition>;
