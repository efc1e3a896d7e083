// kube's protobuf body: the magic "k8s\0" then a runtime.Unknown carrying the TypeMeta and the raw message.
import { decodeMessageBytes, encodeMessageBytes, messageType, ProtobufDecodeError, ProtobufEncodeError, typeOfKind } from './codec';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
const DeleteOptions = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');

interface Envelope { apiVersion: string; kind: string; raw: Uint8Array }

function openEnvelope(body: Uint8Array): Envelope {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    throw new ProtobufDecodeError('the body does not start with the protobuf magic prefix "k8s\\x00"');
  }
  let u: Record<string, any>;
  try {
    u = Unknown.toObject(Unknown.decode(body.subarray(MAGIC.length)));
  } catch (e) {
    throw new ProtobufDecodeError(`invalid runtime.Unknown envelope: ${(e as Error).message}`);
  }
  if (u.contentEncoding) throw new ProtobufDecodeError(`unsupported content encoding "${u.contentEncoding}"`);
  return { apiVersion: u.typeMeta?.apiVersion ?? '', kind: u.typeMeta?.kind ?? '', raw: u.raw ?? new Uint8Array() };
}

function sealEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const u = Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish();
  return Buffer.concat([MAGIC, u]);
}

/** True when objects (and lists) of this kind can be read and written as protobuf. */
export function protobufSupported(apiVersion: string, kind: string): boolean {
  return typeOfKind(apiVersion, kind) !== undefined;
}

/** A protobuf request body → the JSON object it encodes (apiVersion/kind from the envelope). */
export function decodeObject(body: Uint8Array): Record<string, unknown> {
  const env = openEnvelope(body);
  const type = typeOfKind(env.apiVersion, env.kind);
  if (!type) throw new ProtobufDecodeError(`no protobuf schema on this server for ${env.apiVersion || '<no apiVersion>'}, Kind=${env.kind || '<no kind>'}`);
  try {
    return { apiVersion: env.apiVersion, kind: env.kind, ...decodeMessageBytes(type, env.raw) };
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError(`invalid ${env.kind} message: ${(e as Error).message}`);
  }
}

/** DeleteOptions sent as protobuf (typed clients do; any group version's DeleteOptions is the meta/v1 one). */
export function decodeDeleteOptions(body: Uint8Array): Record<string, unknown> {
  const env = openEnvelope(body);
  if (env.kind !== 'DeleteOptions') throw new ProtobufDecodeError(`expected DeleteOptions in the body, got Kind=${env.kind || '<no kind>'}`);
  return decodeMessageBytes(DeleteOptions, env.raw);
}

/** A JSON object (or list, or Status) → its protobuf body. */
export function encodeObject(obj: Record<string, any>): Buffer {
  const { apiVersion, kind } = obj;
  const type = typeOfKind(apiVersion, kind);
  if (!type) throw new ProtobufEncodeError(`no protobuf schema on this server for ${apiVersion}, Kind=${kind}`);
  return sealEnvelope(apiVersion, kind, encodeMessageBytes(type, obj));
}
