// bootstrap.cluster.x-k8s.io/v1beta2 KubeadmConfig / KubeadmConfigTemplate and
// controlplane.cluster.x-k8s.io/v1beta2 KubeadmControlPlane (upstream api/bootstrap/kubeadm, api/controlplane/kubeadm).
// The kubeadm configuration structs (cluster/init/join configuration, users, ntp, disk setup, ignition) are kept
// opaque: controllers only copy and compare them.
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Enum, IntOrString, MapList, Obj, OptBool, OptInt32, OptString, Opaque, Time } from '../schema/k8s';
import {
  ConditionsSchema,
  ContractVersionedObjectReferenceSchema,
  MachineDeletionTimeoutsSchema,
  MachineNamingSchema,
  MachineReadinessGateSchema,
  MachineTaintSchema,
  ReplicaCountersSchema,
  TemplateObjectMetaSchema,
} from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { ageColumn, clusterLabelColumn, conditionColumn, pausedColumn } from '../schema/printer-columns';
import { BOOTSTRAP_GROUP, CONTROLPLANE_GROUP, V1BETA2 } from '../gvk';

export const KubeadmFileSchema = Obj({
  path: Type.String({ minLength: 1, maxLength: 512 }),
  owner: OptString({ minLength: 1, maxLength: 256 }),
  permissions: OptString({ minLength: 1, maxLength: 16 }),
  encoding: Type.Optional(Enum(['base64', 'gzip', 'gzip+base64'])),
  append: OptBool(),
  content: OptString({ minLength: 1, maxLength: 10240 }),
  contentFrom: Type.Optional(
    Obj({
      secret: Obj({
        name: Type.String({ minLength: 1, maxLength: 253 }),
        key: Type.String({ minLength: 1, maxLength: 256 }),
      }),
    }),
  ),
});

const Commands = () => Type.Optional(AtomicList(Type.String({ minLength: 1, maxLength: 10240 }), { maxItems: 1000 }));

export const KubeadmConfigSpecSchema = Obj({
  clusterConfiguration: Type.Optional(Opaque()),
  initConfiguration: Type.Optional(Opaque()),
  joinConfiguration: Type.Optional(Opaque()),
  files: Type.Optional(MapList(KubeadmFileSchema, ['path'], { maxItems: 200 })),
  diskSetup: Type.Optional(Opaque()),
  mounts: Type.Optional(AtomicList(AtomicList(Type.String()), { maxItems: 100 })),
  bootCommands: Commands(),
  preKubeadmCommands: Commands(),
  postKubeadmCommands: Commands(),
  users: Type.Optional(AtomicList(Opaque(), { maxItems: 100 })),
  ntp: Type.Optional(Opaque()),
  format: Type.Optional(Enum(['cloud-config', 'ignition'])),
  verbosity: OptInt32(),
  ignition: Type.Optional(Opaque()),
});
export type KubeadmConfigSpec = Static<typeof KubeadmConfigSpecSchema>;

export const KubeadmConfigStatusSchema = Obj({
  conditions: ConditionsSchema(),
  initialization: Type.Optional(Obj({ dataSecretCreated: OptBool() })),
  dataSecretName: OptString({ minLength: 1, maxLength: 253 }),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  deprecated: Type.Optional(Opaque()),
});

export const KubeadmConfigDefinition = defineKind({
  group: BOOTSTRAP_GROUP,
  version: V1BETA2,
  kind: 'KubeadmConfig',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  description: 'KubeadmConfig is the Schema for the kubeadmconfigs API.',
  spec: KubeadmConfigSpecSchema,
  status: KubeadmConfigStatusSchema,
  printerColumns: [
    clusterLabelColumn(),
    pausedColumn(),
    {
      name: 'Data secret created',
      type: 'string',
      jsonPath: '.status.initialization.dataSecretCreated',
      description: 'Boolean flag to indicate if Bootstrap Data secret has been created',
    },
    ageColumn('KubeadmConfig'),
  ],
});
export type KubeadmConfig = KindObject<typeof KubeadmConfigDefinition>;

export const KubeadmConfigTemplateDefinition = defineKind({
  group: BOOTSTRAP_GROUP,
  version: V1BETA2,
  kind: 'KubeadmConfigTemplate',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  description: 'KubeadmConfigTemplate is the Schema for the kubeadmconfigtemplates API.',
  spec: Obj({
    template: Obj({ metadata: Type.Optional(TemplateObjectMetaSchema), spec: Type.Optional(KubeadmConfigSpecSchema) }),
  }),
  status: Obj({}),
  printerColumns: [
    {
      name: 'ClusterClass',
      type: 'string',
      jsonPath: `.metadata.ownerReferences[?(@.kind=="ClusterClass")].name`,
      description: 'Name of the ClusterClass owning this template',
    },
    {
      name: 'Cluster',
      type: 'string',
      jsonPath: `.metadata.ownerReferences[?(@.kind=="Cluster")].name`,
      description: 'Name of the Cluster owning this template',
    },
    ageColumn('KubeadmConfigTemplate'),
  ],
});
export type KubeadmConfigTemplate = KindObject<typeof KubeadmConfigTemplateDefinition>;
// Templates have no status subresource upstream.
KubeadmConfigTemplateDefinition.statusSubresource = false;

export const KubeadmControlPlaneMachineTemplateSchema = Obj({
  metadata: Type.Optional(TemplateObjectMetaSchema),
  spec: Obj({
    infrastructureRef: ContractVersionedObjectReferenceSchema,
    readinessGates: Type.Optional(MapList(MachineReadinessGateSchema, ['conditionType'], { maxItems: 32 })),
    deletion: Type.Optional(MachineDeletionTimeoutsSchema),
    taints: Type.Optional(MapList(MachineTaintSchema, ['key', 'effect'], { maxItems: 64 })),
  }),
});

export const KubeadmControlPlaneSpecSchema = Obj({
  replicas: OptInt32(),
  version: Type.String({ minLength: 1, maxLength: 256 }),
  machineTemplate: KubeadmControlPlaneMachineTemplateSchema,
  kubeadmConfigSpec: Type.Optional(KubeadmConfigSpecSchema),
  rollout: Type.Optional(
    Obj({
      before: Type.Optional(Obj({ certificatesExpiryDays: OptInt32({ minimum: 7 }) })),
      after: Type.Optional(Time()),
      strategy: Type.Optional(
        Obj({
          type: Type.Optional(Enum(['RollingUpdate'])),
          rollingUpdate: Type.Optional(Obj({ maxSurge: Type.Optional(IntOrString()) })),
        }),
      ),
    }),
  ),
  remediation: Type.Optional(
    Obj({
      maxRetry: OptInt32(),
      retryPeriodSeconds: OptInt32({ minimum: 0 }),
      minHealthyPeriodSeconds: OptInt32({ minimum: 0 }),
    }),
  ),
  machineNaming: Type.Optional(MachineNamingSchema),
});
export type KubeadmControlPlaneSpec = Static<typeof KubeadmControlPlaneSpecSchema>;

export const KubeadmControlPlaneStatusSchema = Obj({
  conditions: ConditionsSchema(),
  initialization: Type.Optional(Obj({ controlPlaneInitialized: OptBool() })),
  selector: OptString({ minLength: 1, maxLength: 4096 }),
  ...ReplicaCountersSchema,
  version: OptString({ minLength: 1, maxLength: 256 }),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 1 })),
  lastRemediation: Type.Optional(
    Obj({ machine: Type.String(), time: Time(), retryCount: Type.Integer({ format: 'int32' }) }),
  ),
  deprecated: Type.Optional(Opaque()),
});
export type KubeadmControlPlaneStatus = Static<typeof KubeadmControlPlaneStatusSchema>;

export const KubeadmControlPlaneDefinition = defineKind({
  group: CONTROLPLANE_GROUP,
  version: V1BETA2,
  kind: 'KubeadmControlPlane',
  scope: 'Namespaced',
  shortNames: ['kcp'],
  categories: ['cluster-api'],
  description: 'KubeadmControlPlane is the Schema for the KubeadmControlPlane API.',
  spec: KubeadmControlPlaneSpecSchema,
  status: KubeadmControlPlaneStatusSchema,
  scale: {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  },
  printerColumns: [
    clusterLabelColumn(),
    conditionColumn('Available', 'Available', 'Cluster pass all availability checks'),
    { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'The desired number of machines' },
    { name: 'Current', type: 'integer', jsonPath: '.status.replicas', description: 'The number of machines' },
    {
      name: 'Ready',
      type: 'integer',
      jsonPath: '.status.readyReplicas',
      description: 'The number of machines with Ready condition true',
    },
    {
      name: 'Available',
      type: 'integer',
      jsonPath: '.status.availableReplicas',
      description: 'The number of machines with Available condition true',
    },
    {
      name: 'Up-to-date',
      type: 'integer',
      jsonPath: '.status.upToDateReplicas',
      description: 'The number of machines with UpToDate condition true',
    },
    pausedColumn(),
    {
      name: 'Initialized',
      type: 'boolean',
      jsonPath: '.status.initialization.controlPlaneInitialized',
      description: 'This denotes whether or not the control plane can accept requests',
    },
    ageColumn('KubeadmControlPlane'),
    {
      name: 'Version',
      type: 'string',
      jsonPath: '.spec.version',
      description: 'Kubernetes version associated with this control plane',
    },
  ],
});
export type KubeadmControlPlane = KindObject<typeof KubeadmControlPlaneDefinition>;
