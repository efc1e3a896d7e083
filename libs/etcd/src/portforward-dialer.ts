// Connections to a Pod's port through the workload cluster's API server (upstream controlplane/kubeadm/pkg/proxy/
// dial.go): GET pods/<name>/portforward?ports=N upgraded to a WebSocket with subprotocol v4.channel.k8s.io, the
// framing of kubelet's WebSocket port-forward (k8s pkg/kubelet/cri/streaming/portforward/websocket.go): binary
// messages whose first byte is the channel (0 data, 1 error); the first message the server sends on each channel
// starts with the port, 2 bytes little-endian. The connection is a Duplex of channel 0; what arrives on channel 1
// fails it.
import { Duplex } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import WebSocket from 'ws';

export const PORT_FORWARD_PROTOCOL = 'v4.channel.k8s.io';
/** Upstream proxy defaultTimeout: how long establishing a port-forward may take. */
export const DEFAULT_PORT_FORWARD_TIMEOUT_MS = 10_000;

const DATA_CHANNEL = 0;
const ERROR_CHANNEL = 1;

/** What is forwarded (upstream proxy.Proxy): Pods of a namespace, one port. */
export interface PortForwardProxy {
  namespace: string;
  port: number;
  /** Upgrade timeout (default DEFAULT_PORT_FORWARD_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** The message of a Kubernetes Status body, else the body, else the HTTP status. */
function statusMessage(code: number | undefined, body: string): string {
  try {
    const status = JSON.parse(body) as { kind?: string; message?: string };
    if (status.kind === 'Status' && status.message) return status.message;
  } catch {
    // not JSON: the body as it is
  }
  return body.trim() || `HTTP ${code}`;
}

/** Channel 0 of a port-forward WebSocket as a Duplex. */
class PortForwardStream extends Duplex {
  /** Per channel, how many bytes of the port prefix are still to be skipped. */
  private readonly prefix = [2, 2];
  private errorText = '';

  constructor(
    private readonly ws: WebSocket,
    private readonly what: string,
  ) {
    super({ allowHalfOpen: false });
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(isBinary ? data : Buffer.from(data)));
    ws.on('close', () => {
      if (this.errorText) this.destroy(new Error(`error forwarding ${what}: ${this.errorText.trim()}`));
      else this.push(null);
    });
    ws.on('error', (err) => this.destroy(err));
  }

  private onMessage(message: Buffer): void {
    if (message.length === 0) return;
    const channel = message[0];
    let payload = message.subarray(1);
    if (channel === DATA_CHANNEL || channel === ERROR_CHANNEL) {
      const skip = Math.min(this.prefix[channel], payload.length);
      this.prefix[channel] -= skip;
      payload = payload.subarray(skip);
    }
    if (payload.length === 0) return;
    if (channel === DATA_CHANNEL) {
      if (!this.push(payload)) this.ws.pause();
    } else if (channel === ERROR_CHANNEL) {
      this.errorText += payload.toString('utf8');
      this.destroy(new Error(`error forwarding ${this.what}: ${this.errorText.trim()}`));
    }
  }

  override _read(): void {
    if (this.ws.isPaused) this.ws.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.ws.readyState !== WebSocket.OPEN) return cb(new Error(`port-forward to ${this.what} is closed`));
    this.ws.send(Buffer.concat([Buffer.of(DATA_CHANNEL), chunk]), { binary: true }, (err) => cb(err));
  }

  override _final(cb: (err?: Error | null) => void): void {
    // The protocol has no half-close: the end of what we send ends the forward.
    this.ws.close(1000);
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    cb(err);
  }
}

/** Dials `<pod>:<port>` through the API server of `kubeConfig` (its current context: server, CA, token or cert). */
export class PortForwardDialer {
  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly proxy: PortForwardProxy,
  ) {
    if (!proxy.port) throw new Error('port required');
  }

  /** A connection to the port of Pod `podName`; rejects with the API server's reason when it refuses. */
  async dial(podName: string): Promise<Duplex> {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig has no current cluster');
    const url = new URL(server);
    url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
    url.pathname = `${url.pathname.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(
      this.proxy.namespace,
    )}/pods/${encodeURIComponent(podName)}/portforward`;
    url.search = `ports=${this.proxy.port}`;
    const options: WebSocket.ClientOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const timeoutMs = this.proxy.timeoutMs ?? DEFAULT_PORT_FORWARD_TIMEOUT_MS;
    const what = `port ${this.proxy.port} of pod ${this.proxy.namespace}/${podName}`;
    const ws = new WebSocket(url, [PORT_FORWARD_PROTOCOL], { ...options, handshakeTimeout: timeoutMs });
    return new Promise<Duplex>((resolve, reject) => {
      const fail = (e: Error) => {
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(new Error(`error upgrading connection to ${what}: ${e.message}`, { cause: e }));
      };
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d.length + body.length <= 4096 ? d : ''));
        res.on('end', () => fail(new Error(statusMessage(res.statusCode, body))));
        res.on('error', fail);
      });
      ws.once('error', fail);
      ws.once('open', () => {
        ws.removeAllListeners();
        if (ws.protocol !== PORT_FORWARD_PROTOCOL) {
          ws.on('error', () => undefined);
          ws.terminate();
          reject(
            new Error(
              `error upgrading connection to ${what}: the server chose subprotocol "${ws.protocol}", not ${PORT_FORWARD_PROTOCOL}`,
            ),
          );
          return;
        }
        resolve(new PortForwardStream(ws, what));
      });
    });
  }
}
