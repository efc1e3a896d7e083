// cluster.x-k8s.io/v1beta2 MachineDrainRule (upstream api/core/v1beta2/machinedrainrules_types.go; CRD
// core/config/crd/bases/cluster.x-k8s.io_machinedrainrules.yaml). The v1beta1 version upstream still serves
// (deprecated) is not served here, as for the other Cluster API kinds.
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Described, Enum, Obj, OptInt32 } from '../schema/k8s';
import { LabelSelectorSchema } from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { CLUSTER_GROUP, V1BETA2 } from '../gvk';

/** Label on workload cluster Pods: `skip` or `wait-completed`; it takes precedence over MachineDrainRules. */
export const POD_DRAIN_LABEL = 'cluster.x-k8s.io/drain';

export const MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN = 'Drain';
export const MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP = 'Skip';
export const MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED = 'WaitCompleted';
export type MachineDrainRuleDrainBehavior = 'Drain' | 'Skip' | 'WaitCompleted';

// Descriptions follow the Go doc comments of upstream's machinedrainrules_types.go, reworded.
export const MachineDrainRuleMachineSelectorSchema = Obj(
  {
    selector: Type.Optional(Described(LabelSelectorSchema, 'Labels of the Machines; unset matches every Machine.')),
    clusterSelector: Type.Optional(
      Described(LabelSelectorSchema, "Labels of the Machines' Cluster; unset matches every Cluster."),
    ),
  },
  { minProperties: 1, description: 'Machines matched by their labels and their Cluster labels (both must match).' },
);
export type MachineDrainRuleMachineSelector = Static<typeof MachineDrainRuleMachineSelectorSchema>;

export const MachineDrainRulePodSelectorSchema = Obj(
  {
    selector: Type.Optional(Described(LabelSelectorSchema, 'Labels of the Pods; unset matches every Pod.')),
    namespaceSelector: Type.Optional(
      Described(LabelSelectorSchema, "Labels of the Pods' Namespace; unset matches every Namespace."),
    ),
  },
  { minProperties: 1, description: 'Pods matched by their labels and their Namespace labels (both must match).' },
);
export type MachineDrainRulePodSelector = Static<typeof MachineDrainRulePodSelectorSchema>;

const unique = (field: string) => [
  { rule: 'self.all(x, self.exists_one(y, x == y))', message: `entries in ${field} must be unique` },
];

export const MachineDrainRuleSpecSchema = Obj(
  {
    drain: Obj(
      {
        behavior: Enum(['Drain', 'Skip', 'WaitCompleted'], {
          description:
            'Drain evicts the Pods (in order), Skip leaves them alone, WaitCompleted waits for them to finish without evicting.',
        }),
        order: OptInt32({
          description:
            'With behavior Drain: Pods with a lower order are evicted first, each order waits for the previous; defaults to 0.',
        }),
      },
      { description: 'How the matched Pods are handled when a Node is drained.' },
    ),
    machines: Type.Optional(
      AtomicList(MachineDrainRuleMachineSelectorSchema, {
        minItems: 1,
        maxItems: 32,
        'x-kubernetes-validations': unique('machines'),
        description: 'Machines whose drain the rule applies to, any entry matching; unset means every Machine.',
      }),
    ),
    pods: Type.Optional(
      AtomicList(MachineDrainRulePodSelectorSchema, {
        minItems: 1,
        maxItems: 32,
        'x-kubernetes-validations': unique('pods'),
        description: 'Pods the rule applies to, any entry matching; unset means every Pod.',
      }),
    ),
  },
  { description: 'The desired state of the MachineDrainRule.' },
);
export type MachineDrainRuleSpec = Static<typeof MachineDrainRuleSpecSchema>;

export const MachineDrainRuleDefinition = defineKind({
  group: CLUSTER_GROUP,
  version: V1BETA2,
  kind: 'MachineDrainRule',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  description:
    'MachineDrainRule tells the Machine controller how to drain selected Pods from the Nodes of selected Machines.',
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
