// runtime.cluster.x-k8s.io/v1beta2 ExtensionConfig (upstream api/runtime/v1beta2/extensionconfig_types.go). Cluster-scoped.
import { Type, type Static } from '@sinclair/typebox';
import { Described, Enum, MapList, Obj, OptInt32, OptString, Opaque, StringMap } from '../schema/k8s';
import { ConditionsSchema, DeprecatedV1Beta1ConditionSchema, LabelSelectorSchema } from '../schema/meta';
import { defineKind, type KindObject } from '../schema/kind';
import { RUNTIME_GROUP, V1BETA2 } from '../gvk';

const V1ALPHA1 = 'v1alpha1';

// Descriptions follow the Go doc comments of upstream's extensionconfig_types.go, reworded.
export const ExtensionServiceReferenceSchema = Obj(
  {
    namespace: Type.String({ minLength: 1, maxLength: 63, description: 'Namespace of the Service.' }),
    name: Type.String({ minLength: 1, maxLength: 63, description: 'Name of the Service.' }),
    path: OptString({
      minLength: 1,
      maxLength: 512,
      description: 'URL path prefix of the requests sent to the Service.',
    }),
    port: OptInt32({ minimum: 1, maximum: 65535, description: 'Port of the Service; defaults to 443.' }),
  },
  { description: 'A Service in the management cluster serving the Runtime Extension.' },
);
export type ExtensionServiceReference = Static<typeof ExtensionServiceReferenceSchema>;

export const ExtensionClientConfigSchema = Obj(
  {
    url: OptString({
      minLength: 1,
      maxLength: 512,
      description: 'https URL of the Runtime Extension (scheme://host:port/path); exclusive with service.',
    }),
    service: Type.Optional(
      Described(ExtensionServiceReferenceSchema, 'The Service serving the Runtime Extension; exclusive with url.'),
    ),
    // base64 PEM; []byte in Go.
    caBundle: OptString({
      format: 'byte',
      minLength: 1,
      maxLength: 51200,
      description: "PEM CA bundle (base64 in JSON) that verifies the extension's serving certificate.",
    }),
  },
  { minProperties: 1, description: 'How to reach the Runtime Extension: a URL or a Service, and a CA bundle.' },
);
export type ExtensionClientConfig = Static<typeof ExtensionClientConfigSchema>;

const handlerTimeout = (options: { minimum?: number } = {}) =>
  OptInt32({ ...options, description: 'Seconds to wait for the handler to answer; defaults to 10.' });

export const ExtensionConfigHandlerSchema = Obj(
  {
    name: Type.String({ minLength: 1, maxLength: 512, description: 'Unique name of the handler.' }),
    requestHook: Obj(
      {
        apiVersion: Type.String({
          minLength: 1,
          maxLength: 512,
          description: 'API version of the hook, e.g. hooks.runtime.cluster.x-k8s.io/v1alpha1.',
        }),
        hook: Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'Name of the hook, e.g. BeforeClusterUpgrade.',
        }),
      },
      { description: 'The Runtime Hook the handler implements.' },
    ),
    timeoutSeconds: handlerTimeout({ minimum: 1 }),
    failurePolicy: Type.Optional(
      Enum(['Ignore', 'Fail'], {
        description: 'What a failed call means: Fail (the default) blocks the operation, Ignore carries on.',
      }),
    ),
  },
  { description: 'A handler the Runtime Extension registered during discovery.' },
);
export type ExtensionConfigHandler = Static<typeof ExtensionConfigHandlerSchema>;

export const ExtensionConfigSpecSchema = Obj(
  {
    clientConfig: Described(ExtensionClientConfigSchema, 'How to reach the Runtime Extension.'),
    namespaceSelector: Type.Optional(
      Described(
        LabelSelectorSchema,
        'Namespaces whose Clusters the extension is called for; unset means every namespace.',
      ),
    ),
    settings: Type.Optional(
      StringMap({ description: 'Key-value settings passed to every call of the Runtime Extension.' }),
    ),
  },
  { description: 'The desired state of the ExtensionConfig.' },
);
export type ExtensionConfigSpec = Static<typeof ExtensionConfigSpecSchema>;

const handlers = (item: typeof ExtensionConfigHandlerSchema) =>
  Type.Optional(MapList(item, ['name'], { maxItems: 512, description: 'Handlers found by discovery, keyed by name.' }));

export const ExtensionConfigStatusSchema = Obj(
  {
    conditions: ConditionsSchema('The observations of the ExtensionConfig: Discovered, Paused.'),
    handlers: handlers(ExtensionConfigHandlerSchema),
    deprecated: Type.Optional(
      Opaque({ description: 'Status fields kept for the v1beta1 API; they go away when v1beta1 is removed.' }),
    ),
  },
  { description: 'The observed state of the ExtensionConfig.' },
);
export type ExtensionConfigStatus = Static<typeof ExtensionConfigStatusSchema>;

/**
 * runtime.cluster.x-k8s.io/v1alpha1 (upstream exp/runtime/api/v1alpha1), still served, not stored. Same spec; status
 * has v1beta1 conditions in `conditions`, metav1 ones in `v1beta2.conditions`, and `handlers[].timeoutSeconds`
 * without a minimum.
 */
const ExtensionConfigV1Alpha1StatusSchema = Obj(
  {
    conditions: Type.Optional(
      Type.Array(DeprecatedV1Beta1ConditionSchema, { description: 'The v1beta1-style conditions.' }),
    ),
    handlers: handlers(
      Obj(
        { ...ExtensionConfigHandlerSchema.properties, timeoutSeconds: handlerTimeout() },
        { description: ExtensionConfigHandlerSchema.description },
      ),
    ),
    v1beta2: Type.Optional(
      Obj({ conditions: ConditionsSchema() }, { description: 'The metav1 conditions of the v1beta2 API.' }),
    ),
  },
  { description: 'The observed state of the ExtensionConfig.' },
);
export const EXTENSION_CONFIG_V1ALPHA1_DEPRECATION_WARNING =
  'runtime.cluster.x-k8s.io/v1alpha1 ExtensionConfig is deprecated; use runtime.cluster.x-k8s.io/v1beta2 ExtensionConfig';

export const ExtensionConfigDefinition = defineKind({
  group: RUNTIME_GROUP,
  version: V1BETA2,
  kind: 'ExtensionConfig',
  scope: 'Cluster',
  shortNames: ['ext'],
  categories: ['cluster-api'],
  description:
    'ExtensionConfig registers a Runtime Extension: how to reach it and, once discovered, the Runtime Hook handlers it serves.',
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
      description:
        'ExtensionConfig registers a Runtime Extension: how to reach it and, once discovered, the Runtime Hook handlers it serves.',
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
