// A test-only API server front that speaks kubelet's WebSocket port-forward (k8s pkg/kubelet/cri/streaming/
// portforward/websocket.go, as kube-apiserver proxies it): GET /api/v1/namespaces/<ns>/pods/<pod>/portforward?ports=N
// with subprotocol v4.channel.k8s.io, bearer-token auth, 404 for unknown Pods; binary messages whose first byte is
// the channel (0 data, 1 error), the first message on each channel is the port (2 bytes little-endian). Pods map to
// TCP addresses (e.g. real etcd members).
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { WebSocketServer, type WebSocket } from 'ws';
import { generateCA, signCertificate } from '@capi/certs';

const PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward$/;

export interface PortForwardServer {
  /** `<namespace>/<pod>` → host:port the forward connects to; change it to simulate Pods coming and going. */
  pods: Map<string, string>;
  /** Upgrades accepted so far (one per forwarded connection). */
  upgrades: number;
  /** A kubeconfig for this server with the given token (default: the valid one). */
  kubeConfig(token?: string): KubeConfig;
  /** Stops accepting upgrades without answering them (an API server that hangs). */
  hang: boolean;
  close(): Promise<void>;
}

const portPrefix = (channel: number, port: number) => Buffer.from([channel, port & 0xff, port >> 8]);

function reject(socket: import('node:stream').Duplex, code: number, reason: string, message: string): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export async function startPortForwardServer(token = 'test-token'): Promise<PortForwardServer> {
  const ca = await generateCA('test-apiserver-ca');
  const serving = await signCertificate(ca, {
    commonName: 'kube-apiserver',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
  });
  const server: Server = createServer({ cert: serving.cert, key: serving.key }, (_req, res) =>
    res.writeHead(400).end('WebSocket is required'),
  );
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('v4.channel.k8s.io') ? 'v4.channel.k8s.io' : false),
  });
  const sockets = new Set<import('node:stream').Duplex>();
  const state: PortForwardServer = {
    pods: new Map(),
    upgrades: 0,
    hang: false,
    kubeConfig: (t = token) => {
      const kc = new KubeConfig();
      const { port } = server.address() as AddressInfo;
      kc.loadFromOptions({
        clusters: [
          {
            name: 'c',
            server: `https://127.0.0.1:${port}`,
            caData: Buffer.from(ca.cert).toString('base64'),
            skipTLSVerify: false,
          },
        ],
        users: [{ name: 'u', token: t }],
        contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
        currentContext: 'ctx',
      });
      return kc;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (state.hang) return;
    const url = new URL(req.url ?? '/', 'http://x');
    const match = PATH.exec(url.pathname);
    if (req.headers.authorization !== `Bearer ${token}`) return reject(socket, 401, 'Unauthorized', 'Unauthorized');
    if (!match) return reject(socket, 404, 'NotFound', 'the server could not find the requested resource');
    const [, namespace, pod] = match;
    const port = Number(url.searchParams.get('ports'));
    if (!Number.isInteger(port) || port <= 0 || port > 65535)
      return reject(socket, 400, 'BadRequest', 'query parameter "ports" is required');
    const target = state.pods.get(`${namespace}/${pod}`);
    if (!target) return reject(socket, 404, 'NotFound', `pods "${pod}" not found`);
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      state.upgrades++;
      ws.send(portPrefix(0, port));
      ws.send(portPrefix(1, port));
      const [host, p] = target.split(':');
      const tcp = connect(Number(p), host);
      tcp.on('data', (d) => ws.send(Buffer.concat([Buffer.of(0), d])));
      tcp.on('error', (e) => {
        ws.send(
          Buffer.concat([Buffer.of(1), Buffer.from(`error forwarding port ${port} to pod ${pod}: ${e.message}`)]),
        );
        ws.close();
      });
      tcp.on('close', () => ws.close());
      ws.on('message', (m: Buffer) => {
        if (m[0] === 0) tcp.write(m.subarray(1));
      });
      ws.on('close', () => tcp.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return state;
}
