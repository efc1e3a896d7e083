// The provider's own infrastructure kinds, ExampleMachine and ExampleMachineTemplate
// (infrastructure.cluster.x-k8s.io/v1alpha1, implementing the Cluster API v1beta2 infrastructure machine contract).
// Registering them in @capi/api's crdRegistry makes the manager's embedded API server install their CRDs.
import { Type } from '@sinclair/typebox';
import {
  AtomicList,
  CONTRACT_VERSION_LABEL_V1BETA2,
  ConditionsSchema,
  INFRASTRUCTURE_GROUP,
  MachineAddressSchema,
  Obj,
  OptBool,
  OptString,
  TemplateObjectMetaSchema,
  crdRegistry,
  defineKind,
  type KindObject,
} from '@capi/api';

export const EXAMPLE_VERSION = 'v1alpha1';
export const EXAMPLE_API_VERSION = `${INFRASTRUCTURE_GROUP}/${EXAMPLE_VERSION}`;
const crdLabels = { [CONTRACT_VERSION_LABEL_V1BETA2]: EXAMPLE_VERSION };

const ExampleMachineSpec = Obj({
  providerID: OptString({ minLength: 1 }),
  /** The machine's "hardware profile"; changing it needs a new machine (the example updater does not accept it). */
  profile: OptString({ minLength: 1 }),
});

export const ExampleMachineDefinition = defineKind({
  group: INFRASTRUCTURE_GROUP,
  version: EXAMPLE_VERSION,
  kind: 'ExampleMachine',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  crdLabels,
  description: "ExampleMachine is the example provider's machine: a Node in the workload cluster, no real host.",
  spec: ExampleMachineSpec,
  status: Obj({
    conditions: ConditionsSchema(),
    initialization: Type.Optional(Obj({ provisioned: OptBool() })),
    addresses: Type.Optional(AtomicList(MachineAddressSchema, { maxItems: 16 })),
  }),
});
export type ExampleMachine = KindObject<typeof ExampleMachineDefinition>;

export const ExampleMachineTemplateDefinition = defineKind({
  group: INFRASTRUCTURE_GROUP,
  version: EXAMPLE_VERSION,
  kind: 'ExampleMachineTemplate',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  crdLabels,
  description: 'ExampleMachineTemplate is the template ExampleMachines are cloned from.',
  spec: Obj({ template: Obj({ metadata: Type.Optional(TemplateObjectMetaSchema), spec: ExampleMachineSpec }) }),
  status: Obj({}),
});
ExampleMachineTemplateDefinition.statusSubresource = false;

export function registerExampleKinds(): void {
  crdRegistry.register(ExampleMachineDefinition);
  crdRegistry.register(ExampleMachineTemplateDefinition);
}
