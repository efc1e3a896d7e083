// runtime.cluster.x-k8s.io/v1beta2 ExtensionConfig (upstream api/runtime/v1beta2/extensionconfig_types.go). Cluster-scoped.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, MapList, Obj, OptInt32, OptString, Opaque, StringMap } from '../schema/k8s';
import { ConditionsSchema, DeprecatedV1Beta1ConditionSchema, LabelSelectorSchema } from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { RUNTIME_GROUP, V1BETA2 } from '../gvk';

const V1ALPHA1 = 'v1alpha1';

export const ExtensionServiceReferenceSchema = Obj({
  namespace: Type.String({ minLength: 1, maxLength: 63 }),
  name: Type.String({ minLength: 1, maxLength: 63 }),
  path: OptString({ minLength: 1, maxLength: 512 }),
  port: OptInt32({ minimum: 1, maximum: 65535 }),
});
export type ExtensionServiceReference = Static<typeof ExtensionServiceReferenceSchema>;

export const ExtensionClientConfigSchema = Obj(
  {
    url: OptString({ minLength: 1, maxLength: 512 }),
    service: Type.Optional(ExtensionServiceReferenceSchema),
    /** base64 PEM; []byte in Go. */
    caBundle: OptString({ format: 'byte', minLength: 1, maxLength: 51200 }),
  },
  { minProperties: 1 },
);
export type ExtensionClientConfig = Static<typeof ExtensionClientConfigSchema>;

export const ExtensionConfigHandlerSchema = Obj({
  name: Type.String({ minLength: 1, maxLength: 512 }),
  requestHook: Obj({
    apiVersion: Type.String({ minLength: 1, maxLength: 512 }),
    hook: Type.String({ minLength: 1, maxLength: 256 }),
  }),
  timeoutSeconds: OptInt32({ minimum: 1 }),
  failurePolicy: Type.Optional(Enum(['Ignore', 'Fail'])),
});
export type ExtensionConfigHandler = Static<typeof ExtensionConfigHandlerSchema>;

export const ExtensionConfigSpecSchema = Obj({
  clientConfig: ExtensionClientConfigSchema,
  namespaceSelector: Type.Optional(LabelSelectorSchema),
  settings: Type.Optional(StringMap()),
});
export type ExtensionConfigSpec = Static<typeof ExtensionConfigSpecSchema>;

export const ExtensionConfigStatusSchema = Obj({
  conditions: ConditionsSchema(),
  handlers: Type.Optional(MapList(ExtensionConfigHandlerSchema, ['name'], { maxItems: 512 })),
  deprecated: Type.Optional(Opaque()),
});
export type ExtensionConfigStatus = Static<typeof ExtensionConfigStatusSchema>;

/**
 * runtime.cluster.x-k8s.io/v1alpha1 (upstream exp/runtime/api/v1alpha1), still served, not stored. Same spec; status
 * has v1beta1 conditions in `conditions`, metav1 ones in `v1beta2.conditions`, and `handlers[].timeoutSeconds`
 * without a minimum.
 */
const ExtensionConfigV1Alpha1StatusSchema = Obj({
  conditions: Type.Optional(Type.Array(DeprecatedV1Beta1ConditionSchema)),
  handlers: Type.Optional(
    MapList(Obj({ ...ExtensionConfigHandlerSchema.properties, timeoutSeconds: OptInt32() }), ['name'], {
      maxItems: 512,
    }),
  ),
  v1beta2: Type.Optional(Obj({ conditions: ConditionsSchema() })),
});
export const EXTENSION_CONFIG_V1ALPHA1_DEPRECATION_WARNING =
  'runtime.cluster.x-k8s.io/v1alpha1 ExtensionConfig is deprecated; use runtime.cluster.x-k8s.io/v1beta2 ExtensionConfig';

export const ExtensionConfigDefinition = defineKind({
  group: RUNTIME_GROUP,
  version: V1BETA2,
  kind: 'ExtensionConfig',
  scope: 'Cluster',
  shortNames: ['ext'],
  categories: ['cluster-api'],
  description: 'ExtensionConfig is the Schema for the ExtensionConfig API.',
  spec: ExtensionConfigSpecSchema,
  status: ExtensionConfigStatusSchema,
  printerColumns: [
    {
      name: 'Paused',
      type: 'string',
      jsonPath: `.status.conditions[?(@.type=="Paused")].status`,
      description: 'Reconciliation paused',
      priority: 10,
    },
    { name: 'Discovered', type: 'string', jsonPath: `.status.conditions[?(@.type=="Discovered")].status` },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
ExtensionConfigDefinition.servedVersions = [
  {
    name: V1ALPHA1,
    schema: defineKind({
      ...ExtensionConfigDefinition,
      version: V1ALPHA1,
      description: 'ExtensionConfig is the Schema for the ExtensionConfig API.',
      spec: ExtensionConfigSpecSchema,
      status: ExtensionConfigV1Alpha1StatusSchema,
    }).schema,
    printerColumns: [
      {
        name: 'Age',
        type: 'date',
        jsonPath: '.metadata.creationTimestamp',
        description: 'Time duration since creation of ExtensionConfig',
      },
    ],
    deprecationWarning: EXTENSION_CONFIG_V1ALPHA1_DEPRECATION_WARNING,
  },
];
export type ExtensionConfig = KindObject<typeof ExtensionConfigDefinition>;
