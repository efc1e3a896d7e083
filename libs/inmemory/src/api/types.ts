// infrastructure.cluster.x-k8s.io/v1alpha1 InMemoryCluster / InMemoryMachine / InMemoryMachineTemplate: the in-memory
// infrastructure provider's kinds, following the Cluster API v1beta2 infrastructure contract
// (status.initialization.provisioned, spec.providerID, spec.controlPlaneEndpoint, status.addresses).
import { Type, type Static } from '@sinclair/typebox';
import {
  AtomicList,
  CONTRACT_VERSION_LABEL_V1BETA2,
  ConditionsSchema,
  Described,
  INFRASTRUCTURE_GROUP,
  MachineAddressSchema,
  Obj,
  OptBool,
  OptInt32,
  OptString,
  TemplateObjectMetaSchema,
  defineKind,
  type KindObject,
} from '@capi/api';

export const INMEMORY_VERSION = 'v1alpha1';
export const INMEMORY_API_VERSION = `${INFRASTRUCTURE_GROUP}/${INMEMORY_VERSION}`;

/** The CRDs implement contract v1beta2 with their v1alpha1 version. */
const contractLabels = { [CONTRACT_VERSION_LABEL_V1BETA2]: INMEMORY_VERSION };

export const ApiEndpointSchema = Obj(
  {
    host: OptString({ maxLength: 512, description: 'Host name or IP address of the API server endpoint.' }),
    port: OptInt32({ minimum: 1, maximum: 65535, description: 'Port of the API server endpoint.' }),
  },
  { description: 'Where an API server is reached.' },
);

const provisioned = (what: string) =>
  Type.Optional(
    Obj(
      { provisioned: OptBool({ description: `True once the simulated ${what} is ready; never reset.` }) },
      { description: 'Provisioning milestones, as the infrastructure provider contract defines them.' },
    ),
  );

export const InMemoryClusterDefinition = defineKind({
  group: INFRASTRUCTURE_GROUP,
  version: INMEMORY_VERSION,
  kind: 'InMemoryCluster',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  crdLabels: contractLabels,
  description: 'InMemoryCluster is a simulated cluster infrastructure whose API server is an embedded, in-memory one.',
  spec: Obj(
    {
      controlPlaneEndpoint: Type.Optional(
        Described(ApiEndpointSchema, "The workload cluster's embedded API server; set by the controller."),
      ),
    },
    { description: 'The desired state of the InMemoryCluster.' },
  ),
  status: Obj(
    {
      conditions: ConditionsSchema('The observations of the InMemoryCluster.'),
      initialization: provisioned('cluster infrastructure'),
    },
    { description: 'The observed state of the InMemoryCluster.' },
  ),
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: `.metadata.labels['cluster\\.x-k8s\\.io/cluster-name']` },
    { name: 'Provisioned', type: 'boolean', jsonPath: '.status.initialization.provisioned' },
    { name: 'Host', type: 'string', jsonPath: '.spec.controlPlaneEndpoint.host' },
    { name: 'Port', type: 'integer', jsonPath: '.spec.controlPlaneEndpoint.port' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type InMemoryCluster = KindObject<typeof InMemoryClusterDefinition>;

/**
 * Simulated VM. `resources` and `backend.inMemory.vmBootstrapTimeout` can be changed in place by an updater (the host
 * backend applies them); `image` cannot (a different OS image means a new VM, i.e. a rollout).
 */
export const InMemoryMachineSpecSchema = Obj(
  {
    providerID: OptString({
      minLength: 1,
      maxLength: 512,
      description:
        "ID of the simulated VM, copied to the Machine's spec.providerID and the Node's; set by the controller.",
    }),
    failureDomain: OptString({ minLength: 1, maxLength: 256, description: 'Failure domain the VM is placed in.' }),
    image: OptString({
      minLength: 1,
      maxLength: 256,
      description: 'OS image of the simulated VM; not changeable in place.',
    }),
    resources: Type.Optional(
      Obj(
        {
          cpu: OptInt32({ minimum: 1, maximum: 1024, description: 'Number of CPUs of the VM.' }),
          memoryMiB: OptInt32({ minimum: 64, description: 'Memory of the VM in MiB.' }),
        },
        { description: 'Size of the simulated VM; changeable in place.' },
      ),
    ),
    backend: Type.Optional(
      Obj(
        {
          inMemory: Type.Optional(
            Obj(
              {
                vmBootstrapTimeout: OptString({
                  pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
                  description: 'How long the simulated VM may take to bootstrap (Go duration, e.g. "5m").',
                }),
              },
              { description: 'Settings of the in-memory backend.' },
            ),
          ),
        },
        { description: 'Backend specific settings of the simulated VM.' },
      ),
    ),
  },
  { description: 'The desired state of the simulated VM.' },
);
export type InMemoryMachineSpec = Static<typeof InMemoryMachineSpecSchema>;

export type MachineAddress = Static<typeof MachineAddressSchema>;

export const InMemoryMachineDefinition = defineKind({
  group: INFRASTRUCTURE_GROUP,
  version: INMEMORY_VERSION,
  kind: 'InMemoryMachine',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  crdLabels: contractLabels,
  description: "InMemoryMachine is a simulated VM whose Node lives in the workload cluster's embedded API server.",
  spec: InMemoryMachineSpecSchema,
  status: Obj(
    {
      conditions: ConditionsSchema('The observations of the InMemoryMachine.'),
      initialization: provisioned('VM'),
      addresses: Type.Optional(
        AtomicList(MachineAddressSchema, { maxItems: 128, description: 'Addresses of the simulated VM.' }),
      ),
    },
    { description: 'The observed state of the InMemoryMachine.' },
  ),
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: `.metadata.labels['cluster\\.x-k8s\\.io/cluster-name']` },
    { name: 'Provisioned', type: 'boolean', jsonPath: '.status.initialization.provisioned' },
    { name: 'ProviderID', type: 'string', jsonPath: '.spec.providerID' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type InMemoryMachine = KindObject<typeof InMemoryMachineDefinition>;

export const InMemoryMachineTemplateDefinition = defineKind({
  group: INFRASTRUCTURE_GROUP,
  version: INMEMORY_VERSION,
  kind: 'InMemoryMachineTemplate',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  crdLabels: contractLabels,
  description: 'InMemoryMachineTemplate is the template InMemoryMachines are cloned from.',
  spec: Obj(
    {
      template: Obj(
        {
          metadata: Type.Optional(
            Described(TemplateObjectMetaSchema, 'Labels and annotations of the created InMemoryMachines.'),
          ),
          spec: Described(InMemoryMachineSpecSchema, 'The spec of the created InMemoryMachines.'),
        },
        { description: 'The InMemoryMachine to create.' },
      ),
    },
    { description: 'The desired state of the InMemoryMachineTemplate.' },
  ),
  status: Obj({}),
  printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
});
// Templates have no status subresource (like upstream infra templates without capacity).
InMemoryMachineTemplateDefinition.statusSubresource = false;
export type InMemoryMachineTemplate = KindObject<typeof InMemoryMachineTemplateDefinition>;

export const INMEMORY_KIND_DEFINITIONS = [
  InMemoryClusterDefinition,
  InMemoryMachineDefinition,
  InMemoryMachineTemplateDefinition,
] as const;
