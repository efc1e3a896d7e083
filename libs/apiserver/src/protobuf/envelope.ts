// kube's protobuf body: the magic "k8s\0" then a runtime.Unknown carrying the TypeMeta and the raw message.
import { withGoZeroFields } from '../schema/go-zero';
import {
  decodeMessageBytes,
  encodeMessageBytes,
  messageType,
  ProtobufDecodeError,
  ProtobufEncodeError,
  typeOfKind,
} from './codec';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
const DeleteOptions = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
const WatchEvent = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');

/** The Content-Type of a protobuf watch stream. */
export const PROTOBUF_WATCH_MEDIA_TYPE = `${PROTOBUF_MEDIA_TYPE};stream=watch`;

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

function openEnvelope(body: Uint8Array): Envelope {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    // gogo/protobuf's wording in kube's protobuf serializer (apimachinery/pkg/runtime/serializer/protobuf).
    throw new ProtobufDecodeError(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  let u: Record<string, any>;
  try {
    u = Unknown.toObject(Unknown.decode(body.subarray(MAGIC.length)));
  } catch (e) {
    // protobufjs reads past the end of a truncated message where Go's decoder reports io.ErrUnexpectedEOF.
    const m = (e as Error).message;
    throw new ProtobufDecodeError(
      /index out of range/.test(m) ? 'unexpected EOF' : `invalid runtime.Unknown envelope: ${m}`,
    );
  }
  if (u.contentEncoding) throw new ProtobufDecodeError(`unsupported content encoding "${u.contentEncoding}"`);
  return { apiVersion: u.typeMeta?.apiVersion ?? '', kind: u.typeMeta?.kind ?? '', raw: u.raw ?? new Uint8Array() };
}

function sealEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const u = Unknown.encode(
    Unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }),
  ).finish();
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
  if (!type) {
    throw new ProtobufDecodeError(
      `no kind "${env.kind}" is registered for version "${env.apiVersion}" in scheme "pkg/runtime/scheme.go:111"`,
      { apiVersion: env.apiVersion, kind: env.kind },
    );
  }
  try {
    // The zero fields Go's JSON writes (and kube's JSON answers carry), which the wire leaves out.
    const obj: Record<string, unknown> = {
      apiVersion: env.apiVersion,
      kind: env.kind,
      ...decodeMessageBytes(type, env.raw),
    };
    if (Array.isArray(obj.items)) {
      const itemKind = { apiVersion: env.apiVersion, kind: env.kind.replace(/List$/, '') };
      obj.items = obj.items.map((i: Record<string, unknown>) => {
        const { apiVersion: _a, kind: _k, ...rest } = withGoZeroFields({ ...itemKind, ...i });
        return rest;
      });
    }
    return withGoZeroFields(obj);
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError(`invalid ${env.kind} message: ${(e as Error).message}`);
  }
}

/** DeleteOptions sent as protobuf (typed clients do; any group version's DeleteOptions is the meta/v1 one). */
export function decodeDeleteOptions(body: Uint8Array): Record<string, unknown> {
  const env = openEnvelope(body);
  if (env.kind !== 'DeleteOptions')
    throw new ProtobufDecodeError(`expected DeleteOptions in the body, got Kind=${env.kind || '<no kind>'}`);
  return decodeMessageBytes(DeleteOptions, env.raw);
}

/** A JSON object (or list, or Status) → its protobuf body. */
export function encodeObject(obj: Record<string, any>): Buffer {
  const { apiVersion, kind } = obj;
  const type = typeOfKind(apiVersion, kind);
  if (!type) throw new ProtobufEncodeError(`no protobuf schema on this server for ${apiVersion}, Kind=${kind}`);
  return sealEnvelope(apiVersion, kind, encodeMessageBytes(type, obj));
}

/**
 * One frame of a protobuf watch stream, as kube writes it: a 4-byte big-endian length, then a WatchEvent message
 * (no envelope of its own) whose object is the object's full protobuf body.
 */
export function encodeWatchFrame(type: string, obj: Record<string, any>): Buffer {
  const event = WatchEvent.encode(WatchEvent.fromObject({ type, object: { raw: encodeObject(obj) } })).finish();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

/** The events of a protobuf watch stream (for tests and tools): frames → { type, object }. */
export function decodeWatchFrames(stream: Buffer): { type: string; object: Record<string, unknown> }[] {
  const out: { type: string; object: Record<string, unknown> }[] = [];
  for (let at = 0; at < stream.length;) {
    if (at + 4 > stream.length) throw new ProtobufDecodeError('truncated watch frame length');
    const end = at + 4 + stream.readUInt32BE(at);
    if (end > stream.length) throw new ProtobufDecodeError('truncated watch frame');
    const ev = WatchEvent.toObject(WatchEvent.decode(stream.subarray(at + 4, end))) as {
      type?: string;
      object?: { raw?: Uint8Array };
    };
    out.push({ type: ev.type ?? '', object: decodeObject(ev.object?.raw ?? new Uint8Array()) });
    at = end;
  }
  return out;
}
