// JSON objects (as the server stores them) <-> kube's protobuf wire format, driven by protobufjs reflection over the
// schemas in proto/ (upstream's generated.proto files, trimmed to what this server serves). The mapping follows the Go
// types: Time/MicroTime are RFC 3339 strings, Quantity a string, FieldsV1 and apiextensions JSON raw JSON, `bytes`
// base64 strings, JSONSchemaPropsOr* their JSON union; non-pointer Go fields are always on the wire, so their zero
// values are dropped on decode (as Go's omitempty does in JSON), while pointer fields keep a present zero (e.g.
// immutable: false).
import { join } from 'node:path';
import * as protobuf from 'protobufjs';

/** A protobuf body that cannot be decoded (the server answers 400); `gvk` when its envelope named one. */
export class ProtobufDecodeError extends Error {
  constructor(
    message: string,
    readonly gvk?: { apiVersion: string; kind: string },
  ) {
    super(message);
  }
}
/** An object that cannot be written as protobuf (no schema for its kind, or a value of the wrong type). */
export class ProtobufEncodeError extends Error {}

/**
 * The schemas, each at its upstream package path under proto/ (next to this file in the sources and in the built
 * package, which copies them): apimachinery's, then the served kinds' (which import the former).
 */
const PROTO_DIR = join(__dirname, 'proto');
const PROTO_FILES = [
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
  'k8s.io/apimachinery/pkg/api/resource/generated.proto',
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto',
];

const root = new protobuf.Root();
// Imports name upstream paths ("k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto"), found from proto/ as protoc's
// --proto_path would; protobufjs would resolve them relative to the importing file.
root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
root.loadSync(PROTO_FILES, { keepCase: true });
root.resolveAll();

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const CORE = 'k8s.io.api.core.v1';
const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const SCHEMA = `${APIEXT}.JSONSchemaProps`;

/** apiVersion/kind → message; every kind comes with its List. */
const KINDS = new Map<string, protobuf.Type>();
function kind(apiVersion: string, k: string, message: string, list = true): void {
  KINDS.set(`${apiVersion}/${k}`, root.lookupType(message));
  if (list) KINDS.set(`${apiVersion}/${k}List`, root.lookupType(`${message}List`));
}
for (const k of ['Namespace', 'Secret', 'ConfigMap', 'Event', 'Node']) kind('v1', k, `${CORE}.${k}`);
kind('coordination.k8s.io/v1', 'Lease', 'k8s.io.api.coordination.v1.Lease');
kind('events.k8s.io/v1', 'Event', 'k8s.io.api.events.v1.Event');
kind('apiextensions.k8s.io/v1', 'CustomResourceDefinition', `${APIEXT}.CustomResourceDefinition`);
kind('v1', 'Status', `${META}.Status`, false);
// Metadata clients' form of every kind, custom resources' too (kube serves it in protobuf for them all).
kind('meta.k8s.io/v1', 'PartialObjectMetadata', `${META}.PartialObjectMetadata`);
// The self reviews kubectl sends as protobuf (`auth can-i`, `auth whoami`): never stored, so no List.
for (const k of ['SelfSubjectAccessReview', 'SelfSubjectRulesReview'])
  kind('authorization.k8s.io/v1', k, `k8s.io.api.authorization.v1.${k}`, false);
kind('authentication.k8s.io/v1', 'SelfSubjectReview', 'k8s.io.api.authentication.v1.SelfSubjectReview', false);

/**
 * Fields (per message) whose zero value is kept on decode: Go pointer fields (written only when set, so a zero on the
 * wire is meaningful) and the few value fields Go's JSON writes without omitempty where a zero is information (a CRD
 * version's served/storage). Nested messages not listed are Go values: dropped on decode when empty.
 */
const KEEP_ZERO: Record<string, string[]> = {
  [`${META}.ObjectMeta`]: ['deletionTimestamp', 'deletionGracePeriodSeconds'],
  [`${META}.OwnerReference`]: ['controller', 'blockOwnerDeletion'],
  [`${META}.ManagedFieldsEntry`]: ['time', 'fieldsV1'],
  [`${META}.ListMeta`]: ['remainingItemCount'],
  [`${META}.Status`]: ['details'],
  [`${META}.DeleteOptions`]: [
    'gracePeriodSeconds',
    'preconditions',
    'orphanDependents',
    'propagationPolicy',
    'ignoreStoreReadErrorWithClusterBreakingPotential',
  ],
  [`${META}.Preconditions`]: ['uid', 'resourceVersion'],
  [`${CORE}.Secret`]: ['immutable'],
  [`${CORE}.ConfigMap`]: ['immutable'],
  [`${CORE}.Event`]: ['series', 'related'],
  [`${CORE}.NodeSpec`]: ['configSource'],
  [`${CORE}.Taint`]: ['timeAdded'],
  [`${CORE}.NodeStatus`]: ['config', 'features'],
  [`${CORE}.NodeSystemInfo`]: ['swap'],
  [`${CORE}.NodeSwapStatus`]: ['capacity'],
  [`${CORE}.NodeConfigSource`]: ['configMap'],
  [`${CORE}.NodeConfigStatus`]: ['assigned', 'active', 'lastKnownGood'],
  [`${CORE}.NodeRuntimeHandler`]: ['features'],
  [`${CORE}.NodeRuntimeHandlerFeatures`]: ['recursiveReadOnlyMounts', 'userNamespaces'],
  [`${CORE}.NodeFeatures`]: ['supplementalGroupsPolicy'],
  'k8s.io.api.coordination.v1.LeaseSpec': [
    'holderIdentity',
    'leaseDurationSeconds',
    'acquireTime',
    'renewTime',
    'leaseTransitions',
    'strategy',
    'preferredHolder',
  ],
  'k8s.io.api.events.v1.Event': ['series', 'related'],
  [`${APIEXT}.CustomResourceDefinitionSpec`]: ['conversion'],
  [`${APIEXT}.CustomResourceDefinitionVersion`]: ['served', 'storage', 'deprecationWarning', 'schema', 'subresources'],
  [`${APIEXT}.CustomResourceSubresources`]: ['status', 'scale'],
  [`${APIEXT}.CustomResourceSubresourceScale`]: ['labelSelectorPath'],
  [`${APIEXT}.CustomResourceValidation`]: ['openAPIV3Schema'],
  [`${APIEXT}.CustomResourceConversion`]: ['webhook'],
  [`${APIEXT}.WebhookConversion`]: ['clientConfig'],
  [`${APIEXT}.WebhookClientConfig`]: ['url', 'service'],
  [`${APIEXT}.ServiceReference`]: ['path', 'port'],
  [`${APIEXT}.ValidationRule`]: ['reason', 'optionalOldSelf'],
  [SCHEMA]: [
    'ref',
    'default',
    'maximum',
    'minimum',
    'maxLength',
    'minLength',
    'maxItems',
    'minItems',
    'multipleOf',
    'maxProperties',
    'minProperties',
    'items',
    'not',
    'additionalProperties',
    'additionalItems',
    'externalDocs',
    'example',
    'xKubernetesPreserveUnknownFields',
    'xKubernetesListType',
    'xKubernetesMapType',
  ],
};

/** JSON names that are not the proto field names. */
const JSON_NAMES: Record<string, Record<string, string>> = {
  [SCHEMA]: {
    schema: '$schema',
    ref: '$ref',
    xKubernetesPreserveUnknownFields: 'x-kubernetes-preserve-unknown-fields',
    xKubernetesEmbeddedResource: 'x-kubernetes-embedded-resource',
    xKubernetesIntOrString: 'x-kubernetes-int-or-string',
    xKubernetesListMapKeys: 'x-kubernetes-list-map-keys',
    xKubernetesListType: 'x-kubernetes-list-type',
    xKubernetesMapType: 'x-kubernetes-map-type',
    xKubernetesValidations: 'x-kubernetes-validations',
  },
};

// protobufjs computes fullName on every access: the names and per-field rules are worked out once per message.
interface FieldPlan {
  field: protobuf.Field;
  json: string;
  keepZero: boolean;
}
const names = new WeakMap<protobuf.Type, string>();
const plans = new WeakMap<protobuf.Type, FieldPlan[]>();
function nameOf(t: protobuf.Type): string {
  let n = names.get(t);
  if (n === undefined) names.set(t, (n = t.fullName.replace(/^\./, '')));
  return n;
}
function planOf(t: protobuf.Type): FieldPlan[] {
  let p = plans.get(t);
  if (!p) {
    const name = nameOf(t);
    p = t.fieldsArray.map((field) => ({
      field,
      json: JSON_NAMES[name]?.[field.name] ?? field.name,
      keepZero: KEEP_ZERO[name]?.includes(field.name) ?? false,
    }));
    plans.set(t, p);
  }
  return p;
}

export function messageType(name: string): protobuf.Type {
  return root.lookupType(name);
}

/** The message of a kind (or its List), or undefined for kinds without a protobuf schema here. */
export function typeOfKind(apiVersion: string, k: string): protobuf.Type | undefined {
  return KINDS.get(`${apiVersion}/${k}`);
}

// ---- times -------------------------------------------------------------------------------------------------------

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, '');
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

/** RFC 3339 (any fraction, Z or offset) → seconds and nanos, without losing the sub-millisecond digits. */
function parseTime(s: unknown, field: string): { seconds: number; nanos: number } {
  const m =
    typeof s === 'string' ? /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i.exec(s) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3].toUpperCase()}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new ProtobufEncodeError(`${field}: not an RFC 3339 time: ${JSON.stringify(s)}`);
  return { seconds: ms / 1000, nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

// ---- decode: protobuf message → JSON ------------------------------------------------------------------------------

const SCHEMA_TYPE = root.lookupType(SCHEMA);
const schemaType = () => SCHEMA_TYPE;

function parseRaw(raw: Uint8Array, path: string, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (e) {
    throw new ProtobufDecodeError(`${path}: invalid JSON in ${what}: ${(e as Error).message}`);
  }
}

/** An entry of a list or map is never left out (an empty message stays `{}`, an empty string ''). */
const orZero = (field: protobuf.Field, v: unknown) =>
  v !== undefined ? v : field.resolvedType instanceof protobuf.Type ? {} : '';

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === '' ||
  v === 0 ||
  v === false ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

function decodeValue(field: protobuf.Field, v: any, path: string): unknown {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) {
    switch (nameOf(t)) {
      case `${META}.Time`:
      case `${META}.MicroTime`:
        if (!v.seconds && !v.nanos) return undefined; // Go's zero time is null in JSON
        return formatTime(Number(v.seconds ?? 0), Number(v.nanos ?? 0), nameOf(t).endsWith('MicroTime'));
      case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
        return v.string ?? '';
      case `${META}.FieldsV1`:
        return v.Raw?.length ? parseRaw(v.Raw, path, 'FieldsV1') : {};
      case `${APIEXT}.JSON`:
        return v.raw?.length ? parseRaw(v.raw, path, 'a JSON field') : undefined;
      case `${APIEXT}.JSONSchemaPropsOrArray`: // Go's JSON: the list when it has items, else the schema
        if (v.jSONSchemas?.length)
          return v.jSONSchemas.map((x: any, i: number) => decodeMessage(schemaType(), x, `${path}[${i}]`));
        return v.schema ? decodeMessage(schemaType(), v.schema, path) : undefined;
      case `${APIEXT}.JSONSchemaPropsOrBool`: // the schema when there is one, else the boolean
        return v.schema ? decodeMessage(schemaType(), v.schema, path) : !!v.allows;
      case `${APIEXT}.JSONSchemaPropsOrStringArray`:
        if (v.property?.length) return v.property;
        return v.schema ? decodeMessage(schemaType(), v.schema, path) : undefined;
      default:
        return decodeMessage(t, v, path);
    }
  }
  if (field.type === 'bytes') return Buffer.from(v).toString('base64');
  if (field.type === 'int64' || field.type === 'uint64') return Number(v);
  return v;
}

function decodeMessage(type: protobuf.Type, obj: Record<string, any>, path = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { field, json: name, keepZero } of planOf(type)) {
    const v = obj[field.name];
    const p = path ? `${path}.${name}` : name;
    if (v === undefined || v === null) continue;
    if (field.map) {
      const m = Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, x]) => [
          k,
          orZero(field, decodeValue(field, x, `${p}[${k}]`)),
        ]),
      );
      if (Object.keys(m).length) out[name] = m;
    } else if (field.repeated) {
      const a = (v as unknown[]).map((x, i) => orZero(field, decodeValue(field, x, `${p}[${i}]`)));
      if (a.length) out[name] = a;
    } else {
      const d = decodeValue(field, v, p);
      if (d !== undefined && (keepZero || !isEmpty(d))) out[name] = d;
    }
  }
  return out;
}

/** Decodes raw message bytes of `type` into its JSON form. */
export function decodeMessageBytes(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  let msg: protobuf.Message;
  try {
    msg = type.decode(bytes);
  } catch (e) {
    throw new ProtobufDecodeError(`invalid ${type.name} message: ${(e as Error).message}`);
  }
  return decodeMessage(type, type.toObject(msg, { longs: Number }));
}

// ---- encode: JSON → protobuf message ------------------------------------------------------------------------------

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function encodeScalar(type: string, v: unknown, path: string): unknown {
  switch (type) {
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      break;
    case 'bytes':
      if (typeof v === 'string') return Buffer.from(v, 'base64');
      break;
    case 'bool':
      if (typeof v === 'boolean') return v;
      break;
    case 'double':
    case 'float':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      break;
    default: // int32, int64
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  }
  throw new ProtobufEncodeError(`${path}: cannot encode ${JSON.stringify(v)} as ${type}`);
}

function encodeValue(field: protobuf.Field, v: unknown, path: string): unknown {
  const t = field.resolvedType;
  if (!(t instanceof protobuf.Type)) return encodeScalar(field.type, v, path);
  switch (nameOf(t)) {
    case `${META}.Time`:
    case `${META}.MicroTime`:
      return parseTime(v, path);
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return { string: encodeScalar('string', v, path) };
    case `${META}.FieldsV1`:
      return { Raw: Buffer.from(JSON.stringify(v ?? {})) };
    case `${APIEXT}.JSON`:
      return { raw: Buffer.from(JSON.stringify(v)) };
    case `${APIEXT}.JSONSchemaPropsOrArray`:
      return Array.isArray(v)
        ? { jSONSchemas: v.map((x, i) => encodeSchema(x, `${path}[${i}]`)) }
        : { schema: encodeSchema(v, path) };
    case `${APIEXT}.JSONSchemaPropsOrBool`:
      return typeof v === 'boolean' ? { allows: v } : { allows: true, schema: encodeSchema(v, path) };
    case `${APIEXT}.JSONSchemaPropsOrStringArray`:
      return Array.isArray(v)
        ? { property: v.map((x, i) => encodeScalar('string', x, `${path}[${i}]`)) }
        : { schema: encodeSchema(v, path) };
    default:
      if (!isObject(v)) throw new ProtobufEncodeError(`${path}: expected an object`);
      return encodeMessage(t, v, path);
  }
}

function encodeSchema(v: unknown, path: string): Record<string, unknown> {
  if (!isObject(v)) throw new ProtobufEncodeError(`${path}: expected a schema object`);
  return encodeMessage(schemaType(), v, path);
}

function encodeMessage(type: protobuf.Type, json: Record<string, unknown>, path = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { field, json: name } of planOf(type)) {
    const v = json[name];
    const p = path ? `${path}.${name}` : name;
    if (v === undefined || v === null) continue;
    if (field.map) {
      if (!isObject(v)) throw new ProtobufEncodeError(`${p}: expected a map`);
      out[field.name] = Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== null)
          .map(([k, x]) => [k, encodeValue(field, x, `${p}[${k}]`)]),
      );
    } else if (field.repeated) {
      if (!Array.isArray(v)) throw new ProtobufEncodeError(`${p}: expected a list`);
      out[field.name] = v.map((x, i) => encodeValue(field, x, `${p}[${i}]`));
    } else out[field.name] = encodeValue(field, v, p);
  }
  return out;
}

/** Encodes the JSON form of a `type` message (fields the schema does not know are not written). */
export function encodeMessageBytes(type: protobuf.Type, json: Record<string, unknown>): Uint8Array {
  // encodeMessage already gives every field its wire type (numbers, Buffers, nested plain objects): no fromObject pass.
  return type.encode(encodeMessage(type, json)).finish();
}
