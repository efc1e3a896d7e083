// JSON objects (as the server stores them) <-> kube's protobuf wire format, driven by protobufjs reflection over the
// schemas in *-proto.ts. The mapping follows the Go types: Time/MicroTime are RFC 3339 strings, Quantity a string,
// FieldsV1 raw JSON, `bytes` base64 strings; non-pointer Go fields are always on the wire, so their zero values are
// dropped on decode (as Go's omitempty does in JSON), while pointer fields keep a present zero (e.g. immutable: false).
import * as protobuf from 'protobufjs';
import { META_V1_PROTO, RESOURCE_PROTO, RUNTIME_PROTO } from './meta-proto';
import { COORDINATION_V1_PROTO, CORE_V1_PROTO, EVENTS_V1_PROTO } from './api-proto';

/** A protobuf body that cannot be decoded (the server answers 400). */
export class ProtobufDecodeError extends Error {}
/** An object that cannot be written as protobuf (no schema for its kind, or a value of the wrong type). */
export class ProtobufEncodeError extends Error {}

const root = new protobuf.Root();
for (const src of [META_V1_PROTO, RUNTIME_PROTO, RESOURCE_PROTO, CORE_V1_PROTO, COORDINATION_V1_PROTO, EVENTS_V1_PROTO]) {
  protobuf.parse(src, root, { keepCase: true });
}
root.resolveAll();

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const CORE = 'k8s.io.api.core.v1';

/** apiVersion/kind → message; every kind comes with its List. */
const KINDS = new Map<string, string>();
function kind(apiVersion: string, k: string, message: string, list = true): void {
  KINDS.set(`${apiVersion}/${k}`, message);
  if (list) KINDS.set(`${apiVersion}/${k}List`, `${message}List`);
}
for (const k of ['Namespace', 'Secret', 'ConfigMap', 'Event', 'Node']) kind('v1', k, `${CORE}.${k}`);
kind('coordination.k8s.io/v1', 'Lease', 'k8s.io.api.coordination.v1.Lease');
kind('events.k8s.io/v1', 'Event', 'k8s.io.api.events.v1.Event');
kind('v1', 'Status', `${META}.Status`, false);

/**
 * Go pointer fields (per message): written only when set, so a zero value on the wire is meaningful and kept.
 * Nested messages not listed are Go values: dropped on decode when empty.
 */
const POINTERS: Record<string, string[]> = {
  [`${META}.ObjectMeta`]: ['deletionTimestamp', 'deletionGracePeriodSeconds'],
  [`${META}.OwnerReference`]: ['controller', 'blockOwnerDeletion'],
  [`${META}.ManagedFieldsEntry`]: ['time', 'fieldsV1'],
  [`${META}.ListMeta`]: ['remainingItemCount'],
  [`${META}.Status`]: ['details'],
  [`${META}.DeleteOptions`]: ['gracePeriodSeconds', 'preconditions', 'orphanDependents', 'propagationPolicy', 'ignoreStoreReadErrorWithClusterBreakingPotential'],
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
  'k8s.io.api.coordination.v1.LeaseSpec': ['holderIdentity', 'leaseDurationSeconds', 'acquireTime', 'renewTime', 'leaseTransitions', 'strategy', 'preferredHolder'],
  'k8s.io.api.events.v1.Event': ['series', 'related'],
};

const nameOf = (t: protobuf.Type) => t.fullName.replace(/^\./, '');
const isPointer = (t: protobuf.Type, field: string) => POINTERS[nameOf(t)]?.includes(field) ?? false;

export function messageType(name: string): protobuf.Type {
  return root.lookupType(name);
}

/** The message of a kind (or its List), or undefined for kinds without a protobuf schema here. */
export function typeOfKind(apiVersion: string, k: string): protobuf.Type | undefined {
  const name = KINDS.get(`${apiVersion}/${k}`);
  return name ? root.lookupType(name) : undefined;
}

// ---- times -------------------------------------------------------------------------------------------------------

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, '');
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

/** RFC 3339 (any fraction, Z or offset) → seconds and nanos, without losing the sub-millisecond digits. */
function parseTime(s: unknown, field: string): { seconds: number; nanos: number } {
  const m = typeof s === 'string' ? /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i.exec(s) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3].toUpperCase()}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new ProtobufEncodeError(`${field}: not an RFC 3339 time: ${JSON.stringify(s)}`);
  return { seconds: ms / 1000, nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

// ---- decode: protobuf message → JSON ------------------------------------------------------------------------------

const isEmpty = (v: unknown) =>
  v === undefined || v === '' || v === 0 || v === false || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

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
        try {
          return v.Raw?.length ? JSON.parse(Buffer.from(v.Raw).toString('utf8')) : {};
        } catch (e) {
          throw new ProtobufDecodeError(`${path}: invalid JSON in FieldsV1: ${(e as Error).message}`);
        }
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
  for (const field of type.fieldsArray) {
    const v = obj[field.name];
    const p = path ? `${path}.${field.name}` : field.name;
    if (v === undefined || v === null) continue;
    if (field.map) {
      const m = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, decodeValue(field, x, `${p}[${k}]`) ?? '']));
      if (Object.keys(m).length) out[field.name] = m;
    } else if (field.repeated) {
      const a = (v as unknown[]).map((x, i) => decodeValue(field, x, `${p}[${i}]`) ?? {});
      if (a.length) out[field.name] = a;
    } else {
      const d = decodeValue(field, v, p);
      if (d !== undefined && (isPointer(type, field.name) || !isEmpty(d))) out[field.name] = d;
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
    default:
      if (!isObject(v)) throw new ProtobufEncodeError(`${path}: expected an object`);
      return encodeMessage(t, v, path);
  }
}

function encodeMessage(type: protobuf.Type, json: Record<string, unknown>, path = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const v = json[field.name];
    const p = path ? `${path}.${field.name}` : field.name;
    if (v === undefined || v === null) continue;
    if (field.map) {
      if (!isObject(v)) throw new ProtobufEncodeError(`${p}: expected a map`);
      out[field.name] = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, encodeValue(field, x, `${p}[${k}]`)]));
    } else if (field.repeated) {
      if (!Array.isArray(v)) throw new ProtobufEncodeError(`${p}: expected a list`);
      out[field.name] = v.map((x, i) => encodeValue(field, x, `${p}[${i}]`));
    } else out[field.name] = encodeValue(field, v, p);
  }
  return out;
}

/** Encodes the JSON form of a `type` message (fields the schema does not know are not written). */
export function encodeMessageBytes(type: protobuf.Type, json: Record<string, unknown>): Uint8Array {
  return type.encode(type.fromObject(encodeMessage(type, json))).finish();
}
