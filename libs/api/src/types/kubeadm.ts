// bootstrap.cluster.x-k8s.io/v1beta2 KubeadmConfig / KubeadmConfigTemplate and
// controlplane.cluster.x-k8s.io/v1beta2 KubeadmControlPlane (upstream api/bootstrap/kubeadm, api/controlplane/kubeadm).
// The shared KubeadmConfigSpec lives in kubeadm-config-spec.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Described, Enum, IntOrString, MapList, Obj, OptBool, OptInt32, OptString, Time } from '../schema/k8s';
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
import { KubeadmConfigSpecSchema, kubeadmOpaque } from './kubeadm-config-spec';

export { KubeadmConfigSpecSchema, KubeadmFileSchema, type KubeadmConfigSpec } from './kubeadm-config-spec';

// Descriptions follow the Go doc comments of upstream's kubeadm_control_plane_types.go, reworded.

const observedGeneration = (controller: string) =>
  Type.Optional(
    Type.Integer({
      format: 'int64',
      minimum: 1,
      description: `The latest metadata.generation the ${controller} controller has observed.`,
    }),
  );
const deprecated = () => kubeadmOpaque('Status fields kept for the v1beta1 API; they go away when v1beta1 is removed.');

export const KubeadmConfigStatusSchema = Obj(
  {
    conditions: ConditionsSchema('The observations of the KubeadmConfig: Ready, DataSecretAvailable and more.'),
    initialization: Type.Optional(
      Obj(
        {
          dataSecretCreated: OptBool({
            description: 'True once the bootstrap data Secret has been created; never reset.',
          }),
        },
        { description: 'Provisioning milestones, as the bootstrap provider contract defines them.' },
      ),
    ),
    dataSecretName: OptString({
      minLength: 1,
      maxLength: 253,
      description: 'Name of the Secret holding the generated bootstrap data.',
    }),
    observedGeneration: observedGeneration('KubeadmConfig'),
    deprecated: deprecated(),
  },
  { description: 'The observed state of the KubeadmConfig.' },
);

export const KubeadmConfigDefinition = defineKind({
  group: BOOTSTRAP_GROUP,
  version: V1BETA2,
  kind: 'KubeadmConfig',
  scope: 'Namespaced',
  categories: ['cluster-api'],
  description: 'KubeadmConfig turns the kubeadm settings of one Machine into bootstrap data (cloud-init or ignition).',
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
  description: 'KubeadmConfigTemplate is the template MachineDeployments and MachineSets create KubeadmConfigs from.',
  spec: Obj(
    {
      template: Obj(
        {
          metadata: Type.Optional(
            Described(TemplateObjectMetaSchema, 'Labels and annotations of the created KubeadmConfigs.'),
          ),
          spec: Type.Optional(Described(KubeadmConfigSpecSchema, 'The spec of the created KubeadmConfigs.')),
        },
        { description: 'The KubeadmConfig to create.' },
      ),
    },
    { description: 'The desired state of the KubeadmConfigTemplate.' },
  ),
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

export const KubeadmControlPlaneMachineTemplateSchema = Obj(
  {
    metadata: Type.Optional(
      Described(TemplateObjectMetaSchema, 'Labels and annotations of the control plane Machines.'),
    ),
    spec: Obj(
      {
        infrastructureRef: Described(
          ContractVersionedObjectReferenceSchema,
          'The infrastructure template (e.g. an InMemoryMachineTemplate) the control plane hosts are cloned from.',
        ),
        readinessGates: Type.Optional(
          MapList(MachineReadinessGateSchema, ['conditionType'], {
            maxItems: 32,
            description:
              'Extra conditions that must be met for a control plane Machine to be Ready; KCP adds its own component conditions.',
          }),
        ),
        deletion: Type.Optional(
          Described(MachineDeletionTimeoutsSchema, 'Timeouts of the steps of deleting a control plane Machine.'),
        ),
        taints: Type.Optional(
          MapList(MachineTaintSchema, ['key', 'effect'], {
            maxItems: 64,
            description: 'Taints Cluster API puts on and keeps on the control plane Nodes (at most 64).',
          }),
        ),
      },
      { description: 'The Machine spec fields KCP does not derive itself.' },
    ),
  },
  { description: 'What the control plane Machines are created from, besides the kubeadm config.' },
);

export const KubeadmControlPlaneSpecSchema = Obj(
  {
    replicas: OptInt32({
      description: 'Desired number of control plane Machines; odd for stacked etcd (1, 3, 5...); defaults to 1.',
    }),
    version: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Kubernetes version of the control plane, e.g. v1.34.1; changing it rolls out new Machines.',
    }),
    machineTemplate: Described(
      KubeadmControlPlaneMachineTemplateSchema,
      'What the control plane Machines are created from, besides the kubeadm config.',
    ),
    kubeadmConfigSpec: Type.Optional(
      Described(KubeadmConfigSpecSchema, 'The kubeadm config each control plane Machine is bootstrapped with.'),
    ),
    rollout: Type.Optional(
      Obj(
        {
          before: Type.Optional(
            Obj(
              {
                certificatesExpiryDays: OptInt32({
                  minimum: 7,
                  description:
                    'Replace a Machine when its certificates expire within this many days (at least 7); unset means never for that reason.',
                }),
              },
              { description: 'Conditions that trigger replacing a Machine ahead of time.' },
            ),
          ),
          after: Type.Optional(
            Time({
              description:
                'Machines created before this time (RFC 3339) are replaced once it has passed, even if their spec did not change.',
            }),
          ),
          strategy: Type.Optional(
            Obj(
              {
                type: Type.Optional(
                  Enum(['RollingUpdate'], { description: 'The rollout strategy; only RollingUpdate exists.' }),
                ),
                rollingUpdate: Type.Optional(
                  Obj(
                    {
                      maxSurge: Type.Optional(
                        IntOrString({
                          description:
                            'How many Machines may exist above replicas during the rollout: 1 (the default) or 0. With 0 an old Machine is deleted before its replacement is created (only with 3 or more replicas).',
                        }),
                      ),
                    },
                    { description: 'Limits of a RollingUpdate.' },
                  ),
                ),
              },
              { description: 'How old control plane Machines are replaced with new ones.' },
            ),
          ),
        },
        { description: 'How and when control plane Machines are replaced.' },
      ),
    ),
    remediation: Type.Optional(
      Obj(
        {
          maxRetry: OptInt32({
            description:
              'How many times in a row a Machine replacing a remediated one may itself be remediated; unset means no limit.',
          }),
          retryPeriodSeconds: OptInt32({
            minimum: 0,
            description:
              'Seconds to wait before remediating a Machine created by a previous remediation; defaults to 0.',
          }),
          minHealthyPeriodSeconds: OptInt32({
            minimum: 0,
            description:
              'A Machine healthy for longer than this many seconds resets the retry count; defaults to 3600 (1 hour).',
          }),
        },
        { description: 'How unhealthy control plane Machines flagged by a MachineHealthCheck are remediated.' },
      ),
    ),
    machineNaming: Type.Optional(
      Described(
        MachineNamingSchema,
        'How control plane Machine names are generated; defaults to the KubeadmControlPlane name plus a random suffix.',
      ),
    ),
  },
  { description: 'The desired state of the KubeadmControlPlane.' },
);
export type KubeadmControlPlaneSpec = Static<typeof KubeadmControlPlaneSpecSchema>;

export const KubeadmControlPlaneStatusSchema = Obj(
  {
    conditions: ConditionsSchema(
      'The observations of the KubeadmControlPlane: Available, Initialized, EtcdClusterHealthy, ControlPlaneComponentsHealthy, RollingOut and more.',
    ),
    initialization: Type.Optional(
      Obj(
        {
          controlPlaneInitialized: OptBool({
            description: 'True once the first control plane Machine is up and the API server answers; never reset.',
          }),
        },
        { description: 'Provisioning milestones, as the control plane provider contract defines them.' },
      ),
    ),
    selector: OptString({
      minLength: 1,
      maxLength: 4096,
      description: 'The label selector in string form, for the scale subresource (kubectl scale).',
    }),
    ...ReplicaCountersSchema,
    version: OptString({
      minLength: 1,
      maxLength: 256,
      description: 'The lowest Kubernetes version among the control plane Machines.',
    }),
    observedGeneration: observedGeneration('KubeadmControlPlane'),
    lastRemediation: Type.Optional(
      Obj(
        {
          machine: Type.String({ description: 'Name of the Machine that was remediated.' }),
          time: Time({ description: 'When the remediation started (RFC 3339).' }),
          retryCount: Type.Integer({
            format: 'int32',
            description: 'How many remediations in a row this one is (0 for the first).',
          }),
        },
        { description: 'The last remediation KCP started, used to pace retries.' },
      ),
    ),
    deprecated: deprecated(),
  },
  { description: 'The observed state of the KubeadmControlPlane.' },
);
export type KubeadmControlPlaneStatus = Static<typeof KubeadmControlPlaneStatusSchema>;

export const KubeadmControlPlaneDefinition = defineKind({
  group: CONTROLPLANE_GROUP,
  version: V1BETA2,
  kind: 'KubeadmControlPlane',
  scope: 'Namespaced',
  shortNames: ['kcp'],
  categories: ['cluster-api'],
  description:
    'KubeadmControlPlane runs the control plane of a workload cluster on Machines bootstrapped with kubeadm, with stacked etcd.',
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
