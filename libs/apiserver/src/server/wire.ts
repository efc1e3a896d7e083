// The HTTP layer's hook into the protobuf codec: request bodies in, negotiated response bodies out.
import {
  decodeDeleteOptions,
  decodeObject,
  encodeObject,
  encodeWatchFrame,
  negotiateResponse,
  PROTOBUF_MEDIA_TYPE,
  PROTOBUF_WATCH_MEDIA_TYPE,
  ProtobufDecodeError,
  ProtobufEncodeError,
  protobufSupported,
  type ResponseFormat,
} from '../protobuf';
import { stringifyKnown } from './known-json';
import { apiVersionOf, type ResourceInfo } from './registry';
import { badRequest, StatusError } from './status';
import { cannotBeHandled, unrecognized } from './identity';

export type { ResponseFormat };

export const isProtobuf = (contentType: string) => contentType === PROTOBUF_MEDIA_TYPE;

/** Whether objects of this resource are read and written as protobuf (built-in kinds with a schema here). */
export const supported = (info: ResourceInfo) => !info.custom && protobufSupported(apiVersionOf(info), info.kind);

function decoding<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw badRequest(`error decoding protobuf ${what}: ${e.message}`);
    throw e;
  }
}

/**
 * A protobuf create/update body. Worded as kube's handlers (transformDecodeError): a body whose envelope named a kind
 * "cannot be handled", one without "is unrecognized" with a summary of its bytes. Kinds without a protobuf schema
 * (custom resources) answer 415.
 */
export function decodeProtobufBody(info: ResourceInfo, raw: Buffer): unknown {
  if (!supported(info)) {
    throw new StatusError(
      415,
      `the body of the request was in an unknown format - ${PROTOBUF_MEDIA_TYPE} is not supported for ${info.plural}${info.group ? `.${info.group}` : ''}; accepted media types include: application/json, application/yaml`,
      'UnsupportedMediaType',
    );
  }
  try {
    return decodeObject(raw);
  } catch (e) {
    if (!(e instanceof ProtobufDecodeError)) throw e;
    throw e.gvk ? cannotBeHandled(info, e.gvk.apiVersion, e.gvk.kind, e.message) : unrecognized(info, e.message, raw);
  }
}

export function decodeProtobufDeleteOptions(raw: Buffer): Record<string, unknown> {
  return decoding('DeleteOptions', () => decodeDeleteOptions(raw));
}

/** The negotiated format of a resource response (watch streams included); 406 when the client accepts only a format this kind lacks. */
export function responseFormat(accept: string | undefined, info: ResourceInfo): ResponseFormat {
  const format = negotiateResponse(accept, supported(info));
  // kube lists its serializers (the same for custom resources), and writes this Status itself in protobuf: a
  // built-in kind, and what the client asked for.
  if (!format) throw new NotAcceptable();
  return format;
}

/** 406: the client accepts only protobuf for a kind that has none (custom resources). */
export class NotAcceptable extends StatusError {
  constructor() {
    super(
      406,
      `only the following media types are accepted: application/json, application/yaml, ${PROTOBUF_MEDIA_TYPE}`,
      'NotAcceptable',
    );
  }
}

/**
 * The bytes and content type of a response body. An object protobuf cannot carry (a value of the wrong type in a
 * loosely-typed stored field) is sent as JSON, which every client that asks for protobuf also accepts.
 */
export function encodeBody(body: unknown, format: ResponseFormat): { data: string | Buffer; contentType?: string } {
  if (format === 'protobuf') {
    try {
      return { data: encodeObject(body as Record<string, unknown>), contentType: PROTOBUF_MEDIA_TYPE };
    } catch (e) {
      if (!(e instanceof ProtobufEncodeError)) throw e;
    }
  }
  return { data: stringifyKnown(body) };
}

type WatchFrame = (ev: { type: string; object: Record<string, any> }) => string | Buffer;

/**
 * Encoded frames of the last few shared (frozen) watch objects by format and event type: one encoding per event, not
 * per watcher. The store calls every watcher of an event one after the other, so only the latest objects' frames are
 * ever reused; keeping each stored object's last frame (a WeakMap on the object, alive as long as the store caches
 * it) held a second copy of every object's JSON text.
 */
const RECENT_FRAMED_OBJECTS = 16;
const frames = new Map<object, Map<string, string | Buffer>>();

/** Whether a frame of `object` is still kept (tests). */
export function hasCachedFrame(object: object): boolean {
  return frames.has(object);
}

function once(format: ResponseFormat, frame: WatchFrame): WatchFrame {
  return (ev) => {
    if (!Object.isFrozen(ev.object)) return frame(ev);
    let byType = frames.get(ev.object);
    if (!byType) {
      frames.set(ev.object, (byType = new Map()));
      if (frames.size > RECENT_FRAMED_OBJECTS) frames.delete(frames.keys().next().value!);
    }
    const k = `${format} ${ev.type}`;
    let bytes = byType.get(k);
    if (bytes === undefined) byType.set(k, (bytes = frame(ev)));
    return bytes;
  };
}

/** A watch stream's Content-Type and event framing: JSON lines, or kube's length-prefixed protobuf WatchEvents. */
export function watchEncoding(format: ResponseFormat): { contentType: string; frame: WatchFrame } {
  if (format === 'json')
    return {
      contentType: 'application/json',
      frame: once(format, (ev) => `{"type":${JSON.stringify(ev.type)},"object":${stringifyKnown(ev.object)}}\n`),
    };
  return {
    contentType: PROTOBUF_WATCH_MEDIA_TYPE,
    frame: once(format, (ev) => {
      try {
        return encodeWatchFrame(ev.type, ev.object);
      } catch (e) {
        if (!(e instanceof ProtobufEncodeError)) throw e;
        // Mid-stream there is no falling back to JSON: the client gets an ERROR event and re-lists.
        return encodeWatchFrame(
          'ERROR',
          new StatusError(500, `cannot encode the object as protobuf: ${e.message}`).toStatus() as Record<string, any>,
        );
      }
    }),
  };
}
