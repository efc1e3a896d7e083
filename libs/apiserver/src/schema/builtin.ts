// Schemas for the built-in kinds the server serves. They give structure where server-side apply needs it
// (list-map keys, sets, atomic parts) and formats where values have one; everything else preserves unknown
// fields so that the server never prunes real data of a built-in object.
import { OpenApiSchema } from './types';

const loose = (extra: OpenApiSchema = {}): OpenApiSchema => ({
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  ...extra,
});
const str: OpenApiSchema = { type: 'string' };
const int32: OpenApiSchema = { type: 'integer', format: 'int32' };
const time: OpenApiSchema = { type: 'string', format: 'date-time' };
const stringMap: OpenApiSchema = { type: 'object', additionalProperties: str };
const stringSet: OpenApiSchema = { type: 'array', items: str, 'x-kubernetes-list-type': 'set' };

/** A list of objects merged by key fields (which are required strings). */
function listMap(keys: string[], properties: OpenApiSchema = {}): OpenApiSchema {
  const keyProps = Object.fromEntries(keys.map((k) => [k, str]));
  return {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': keys,
    items: loose({ required: keys, properties: { ...keyProps, ...properties } }),
  };
}

/** metav1.Condition / core conditions: keyed by type. */
// A zero metav1.Time is written as null by kube (Go's encoding/json of a zero Time).
const nullableTime: OpenApiSchema = { ...time, nullable: true };
const conditions = listMap(['type'], {
  status: str,
  reason: str,
  message: str,
  lastTransitionTime: nullableTime,
  lastHeartbeatTime: nullableTime,
});

/** A top-level resource: apiVersion/kind strings, metadata an object, the rest as given. */
const resource = (properties: OpenApiSchema): OpenApiSchema =>
  loose({ properties: { apiVersion: str, kind: str, metadata: { type: 'object' }, ...properties } });

const namespace = resource({
  spec: loose({ properties: { finalizers: stringSet } }),
  status: loose({ properties: { phase: { type: 'string', enum: ['Active', 'Terminating'] }, conditions } }),
});

const secret = resource({
  data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
  stringData: stringMap,
  type: str,
  immutable: { type: 'boolean' },
});

const configMap = resource({
  data: stringMap,
  binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
  immutable: { type: 'boolean' },
});

const objectReference = loose({ 'x-kubernetes-map-type': 'atomic' });

const coreEvent = resource({
  involvedObject: objectReference,
  related: objectReference,
  reason: str,
  message: str,
  type: str,
  count: int32,
  firstTimestamp: { type: 'string', format: 'date-time', nullable: true },
  lastTimestamp: { type: 'string', format: 'date-time', nullable: true },
  eventTime: { type: 'string', format: 'date-time', nullable: true },
  source: loose(),
  series: loose(),
});

const eventsEvent = resource({
  regarding: objectReference,
  related: objectReference,
  reason: str,
  note: str,
  type: str,
  action: str,
  eventTime: { type: 'string', format: 'date-time', nullable: true },
  reportingController: str,
  reportingInstance: str,
  series: loose(),
  deprecatedCount: int32,
  deprecatedSource: loose(),
});

const lease = resource({
  spec: loose({
    properties: {
      holderIdentity: { type: 'string', nullable: true },
      leaseDurationSeconds: { ...int32, nullable: true },
      acquireTime: { ...time, nullable: true },
      renewTime: { ...time, nullable: true },
      leaseTransitions: { ...int32, nullable: true },
    },
  }),
});

const node = resource({
  spec: loose({
    properties: {
      podCIDR: str,
      podCIDRs: stringSet,
      providerID: str,
      unschedulable: { type: 'boolean' },
      taints: listMap(['key', 'effect'], { value: str, timeAdded: { ...time, nullable: true } }),
    },
  }),
  status: loose({
    properties: {
      conditions,
      addresses: listMap(['type'], { address: str }),
      capacity: loose(),
      allocatable: loose(),
      nodeInfo: loose(),
      images: { type: 'array', items: loose() },
    },
  }),
});

// core/v1 Pod: the list-map keys of k8s.io/api/core/v1 types.go (containers, env, volumes by name; conditions by
// type; podIPs by ip); containerStatuses and tolerations are atomic there.
const atomicList: OpenApiSchema = { type: 'array', items: loose(), 'x-kubernetes-list-type': 'atomic' };
const container = { env: listMap(['name']), image: str };
const pod = resource({
  spec: loose({
    properties: {
      containers: listMap(['name'], container),
      initContainers: listMap(['name'], container),
      ephemeralContainers: listMap(['name'], container),
      volumes: listMap(['name']),
      tolerations: atomicList,
      nodeName: str,
      readinessGates: atomicList,
    },
  }),
  status: loose({
    properties: {
      phase: str,
      conditions: listMap(['type'], {
        status: str,
        reason: str,
        message: str,
        lastProbeTime: nullableTime,
        lastTransitionTime: nullableTime,
      }),
      podIPs: listMap(['ip']),
      hostIPs: atomicList,
      initContainerStatuses: atomicList,
      containerStatuses: atomicList,
      ephemeralContainerStatuses: atomicList,
      startTime: nullableTime,
    },
  }),
});

const crd = resource({
  spec: loose({
    properties: {
      group: str,
      scope: { type: 'string', enum: ['Namespaced', 'Cluster'] },
      names: loose({
        properties: {
          plural: str,
          singular: str,
          kind: str,
          listKind: str,
          shortNames: { type: 'array', items: str },
          categories: { type: 'array', items: str },
        },
      }),
      versions: listMap(['name'], {
        served: { type: 'boolean' },
        storage: { type: 'boolean' },
        schema: loose(),
        subresources: loose(),
      }),
    },
  }),
  status: loose({ properties: { conditions } }),
});

const SCHEMAS: Record<string, OpenApiSchema> = {
  'v1/Namespace': namespace,
  'v1/Secret': secret,
  'v1/ConfigMap': configMap,
  'v1/Event': coreEvent,
  'events.k8s.io/v1/Event': eventsEvent,
  'coordination.k8s.io/v1/Lease': lease,
  'v1/Node': node,
  'v1/Pod': pod,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': crd,
};

/** The schema of a built-in kind, or undefined for kinds this server does not describe. Returns a copy. */
export function builtinSchema(apiVersion: string, kind: string): OpenApiSchema | undefined {
  const s = SCHEMAS[`${apiVersion}/${kind}`];
  return s ? structuredClone(s) : undefined;
}
