// pods/portforward: what kube-apiserver checks before proxying to the kubelet (pkg/registry/core/pod/rest/
// subresources.go PortForwardREST, pkg/registry/core/pod/strategy.go PortForwardLocation), and the kubelet's WebSocket
// side (pkg/kubelet/cri/streaming/portforward/websocket.go), with a pluggable backend standing in for the container
// runtime's PortForward.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { KubeObject } from '@capi/apimachinery';
import type { Registry, ResourceInfo } from './registry';
import type { Resources } from './resources';
import { notFound, StatusError } from './status';
import {
  checkPorts,
  chooseProtocol,
  decodeFrame,
  encodeFrame,
  parsePorts,
  portPrefix,
  unsupportedProtocols,
} from './portforward-wire';

/** The Pod and port a port-forward stream is for. */
export interface PortForwardTarget {
  namespace: string;
  pod: string;
  port: number;
  /** The Pod as stored when the stream was opened. */
  podObject: KubeObject;
}

/**
 * What the container runtime does for kubelet: a byte stream to `port` inside the Pod. A rejection or an error of the
 * stream is reported to the client on the port's error channel, as kubelet reports "error forwarding port".
 */
export type PortForwardBackend = (target: PortForwardTarget) => Promise<Duplex>;

export const isPortForward = (info: ResourceInfo, subresource: string | undefined) =>
  subresource === 'portforward' && info.group === '' && info.kind === 'Pod';

/**
 * kube-apiserver's checks, in its order: the `ports` query decodes, the method is GET or POST, the Pod exists, it has
 * a Node, and that Node exists. Returns the Pod and the requested ports.
 */
export function portForwardPreflight(
  registry: Registry,
  resources: Resources,
  info: ResourceInfo,
  ns: string,
  name: string,
  method: string,
  query: URLSearchParams,
): { pod: KubeObject; ports: number[] } {
  if (method !== 'GET' && method !== 'POST')
    throw new StatusError(
      405,
      'the server does not allow this method on the requested resource',
      'MethodNotAllowed',
      {},
    );
  const ports = parsePorts(query.getAll('ports'));
  const pod = resources.get(info, ns, name);
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!nodeName) throw new StatusError(400, `pod ${name} does not have a host assigned`);
  const nodes = registry.lookup('', 'v1', 'nodes')!;
  // kube words a missing Node as the pod getter's not-found: `pods "<node>" not found` (kind pods).
  if (!resources.exists(nodes, '', nodeName)) throw notFound('', 'pods', nodeName);
  return { pod, ports };
}

/** A request that is not a WebSocket upgrade (a SPDY client, or plain HTTP) cannot be served by this server. */
export const webSocketRequired = () =>
  new StatusError(
    400,
    'pods/portforward on this server speaks only the WebSocket protocol (Upgrade: websocket, subprotocol v4.channel.k8s.io); SPDY is not supported',
  );

const HIGH_WATER = 1 << 20; // bytes queued on the WebSocket before the Pod side is paused
const END_GRACE_MS = 5_000; // how long an ended backend stream may take to close before it is destroyed

/** Opens WebSocket port-forward sessions on upgraded requests that passed the preflight. */
export class PortForwardSessions {
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (set) => chooseProtocol([...set]) ?? false,
  });

  constructor(
    private readonly backend: PortForwardBackend | undefined,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** The WebSocket handshake's checks (kubelet answers them before upgrading); throws a StatusError. */
  check(req: IncomingMessage, ports: number[]): void {
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') throw webSocketRequired();
    const offered = (req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    // Before the ports: kubectl's SPDY tunnelling sends none (they travel in SPDY stream headers).
    if (chooseProtocol(offered) === undefined) throw unsupportedProtocols(offered);
    checkPorts(ports);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, pod: KubeObject, ports: number[]): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      try {
        this.session(ws, pod, ports);
      } catch (e) {
        this.onError(e);
        ws.terminate();
      }
    });
  }

  /** Closes every open session (the server is stopping). */
  close(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  private session(ws: WebSocket, pod: KubeObject, ports: number[]): void {
    const protocol = ws.protocol;
    const send = (channel: number, data: Buffer, cb?: (err?: Error) => void) => {
      if (ws.readyState === ws.OPEN) ws.send(encodeFrame(protocol, channel, data), cb);
    };
    ports.forEach((port, i) => {
      send(2 * i, portPrefix(port));
      send(2 * i + 1, portPrefix(port));
    });
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const streams: (Duplex | undefined)[] = ports.map(() => undefined);
    const done = new Set<number>();
    const blocked = new Set<number>();
    let closed = false;

    const shutdown = (code: number) => {
      if (closed) return;
      closed = true;
      for (const s of streams) {
        if (!s || s.destroyed) continue;
        // Nothing more goes to the client; what the client sent is flushed to the Pod side before it is destroyed.
        s.pause();
        s.end();
        s.once('finish', () => s.destroy());
        setTimeout(() => s.destroy(), END_GRACE_MS).unref();
      }
      // A paused WebSocket would never read the client's answer to the close frame.
      ws.resume();
      if (ws.readyState === ws.OPEN) ws.close(code);
    };
    const fail = (i: number, err: unknown) => {
      // kubelet's websocketStreamHandler.portForward: the error text on the port's error channel, then close.
      const msg = `error forwarding port ${ports[i]} to pod ${name}_${namespace}, uid ${pod.metadata.uid ?? ''}: ${(err as Error)?.message ?? String(err)}`;
      send(2 * i + 1, Buffer.from(msg));
      shutdown(1011);
    };
    const finished = (i: number) => {
      done.add(i);
      if (done.size === ports.length) shutdown(1000);
    };

    ws.pause(); // client data waits until the backends have answered
    ws.on('close', () => shutdown(1000));
    ws.on('error', () => shutdown(1011));
    ws.on('message', (raw: Buffer, isBinary: boolean) => {
      const frame = decodeFrame(protocol, raw, isBinary);
      if (!frame || frame.channel % 2 !== 0) return; // error channels are the server's to write
      const i = frame.channel / 2;
      const s = streams[i];
      if (!s || s.destroyed || s.writableEnded || !frame.data.length) return;
      if (!s.write(frame.data)) {
        // Backpressure: stop reading the WebSocket until the Pod side drains.
        blocked.add(i);
        ws.pause();
        s.once('drain', () => {
          blocked.delete(i);
          if (!blocked.size && !closed) ws.resume();
        });
      }
    });

    const connect = async (i: number): Promise<void> => {
      if (!this.backend)
        throw new Error('no container runtime serves Pods on this API server (no port-forward backend)');
      const s = await this.backend({ namespace, pod: name, port: ports[i], podObject: pod });
      if (closed) return void s.destroy();
      streams[i] = s;
      s.on('data', (chunk: Buffer) =>
        send(2 * i, chunk, () => {
          if (s.isPaused() && ws.bufferedAmount < HIGH_WATER / 2) s.resume();
        }),
      );
      s.on('data', () => {
        if (ws.bufferedAmount > HIGH_WATER) s.pause();
      });
      s.on('error', (e) => fail(i, e));
      s.on('end', () => finished(i));
      s.on('close', () => finished(i));
    };
    Promise.all(ports.map((_, i) => connect(i).catch((e) => fail(i, e)))).then(
      () => !closed && ws.resume(),
      (e) => this.onError(e),
    );
  }
}
