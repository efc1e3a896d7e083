// The pure parts of pods/portforward: the `ports` query as kube-apiserver converts it, and kubelet's WebSocket channel
// framing (kubernetes pkg/kubelet/cri/streaming/portforward/websocket.go over k8s.io/apiserver/pkg/util/wsstream).
import { StatusError } from './status';

export const V4_BINARY_PROTOCOL = 'v4.channel.k8s.io';
export const V4_BASE64_PROTOCOL = 'v4.base64.channel.k8s.io';
/** What kubelet's wsstream.Conn accepts for port-forward; '' is a client that names no subprotocol (binary). */
const SUPPORTED = [V4_BINARY_PROTOCOL, V4_BASE64_PROTOCOL];

/**
 * The `ports` query values as kube-apiserver decodes PodPortForwardOptions (runtime's Convert_Slice_string_To_Slice_int32:
 * comma-separated, each a uint16): a bad value is a 400 BadRequest before the Pod is even looked up.
 */
export function parsePorts(values: string[]): number[] {
  const ports: number[] = [];
  const errors: string[] = [];
  for (const value of values)
    for (const p of value.split(',')) {
      if (!/^\d+$/.test(p))
        errors.push(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(p)}: invalid syntax`);
      else if (Number(p) > 0xffff)
        errors.push(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(p)}: value out of range`);
      else ports.push(Number(p));
    }
  if (errors.length) throw new StatusError(400, errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return ports;
}

/** kubelet's NewV4Options: at least one port, each > 0 (kubelet answers these 400 before upgrading). */
export function checkPorts(ports: number[]): void {
  if (!ports.length) throw new StatusError(400, 'query parameter "ports" is required');
  const zero = ports.find((p) => p < 1);
  if (zero !== undefined) throw new StatusError(400, `port "${zero}" must be > 0`);
}

/**
 * The subprotocol the server answers with: the first the client offers that kubelet supports (wsstream's handshake),
 * '' when the client offers none, undefined when it offers only others (e.g. kubectl's SPDY tunnelling).
 */
export function chooseProtocol(offered: string[]): string | undefined {
  if (!offered.length) return '';
  return offered.find((p) => SUPPORTED.includes(p));
}

export function unsupportedProtocols(offered: string[]): StatusError {
  const spdy = offered.some((p) => p.startsWith('SPDY/'))
    ? ' (SPDY over WebSocket, as kubectl port-forward tunnels it, is not served: use a v4.channel.k8s.io client)'
    : '';
  return new StatusError(
    400,
    `unable to upgrade websocket connection: requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${SUPPORTED.join(' ')}]${spdy}`,
  );
}

/** A message on `channel`: binary protocols prefix the channel byte; base64 ones the channel digit and base64 text. */
export function encodeFrame(protocol: string, channel: number, data: Buffer): Buffer | string {
  if (protocol === V4_BASE64_PROTOCOL) return String.fromCharCode(48 + channel) + data.toString('base64');
  const out = Buffer.allocUnsafe(data.length + 1);
  out[0] = channel;
  data.copy(out, 1);
  return out;
}

/** A client message: its channel and payload (undefined for an empty message, which carries no channel). */
export function decodeFrame(
  protocol: string,
  data: Buffer,
  isBinary: boolean,
): { channel: number; data: Buffer } | undefined {
  if (!data.length) return undefined;
  if (protocol === V4_BASE64_PROTOCOL || !isBinary) {
    const text = data.toString('utf8');
    return { channel: text.charCodeAt(0) - 48, data: Buffer.from(text.slice(1), 'base64') };
  }
  return { channel: data[0], data: data.subarray(1) };
}

/** The first message on each of a port's channels: the port, 2 bytes little-endian. */
export function portPrefix(port: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(port);
  return b;
}
