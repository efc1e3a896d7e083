// The WebSocket port-forward dialer against the test port-forward server in front of a local TCP echo server: the
// framing both ways with large payloads, closing, and the API server's refusals.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { LoopbackBridge, PortForwardDialer } from '@capi/etcd';
import { connect } from 'node:net';
import { startPortForwardServer, type PortForwardServer } from '@capi/etcd/testing';

function read(stream: Duplex, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const onData = (d: Buffer) => {
      chunks.push(d);
      n += d.length;
      if (n >= bytes) {
        stream.off('data', onData);
        resolve(Buffer.concat(chunks));
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
  });
}

describe('PortForwardDialer (kubelet WebSocket port-forward framing)', () => {
  let pf: PortForwardServer;
  let echo: Server;
  const opened: Duplex[] = [];

  beforeAll(async () => {
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    pf = await startPortForwardServer();
    pf.pods.set('kube-system/echo', `127.0.0.1:${(echo.address() as AddressInfo).port}`);
  });
  afterEach(() => opened.splice(0).forEach((s) => s.destroy()));
  afterAll(async () => {
    await pf.close();
    await new Promise<void>((r) => echo.close(() => r()));
  });

  const dialer = (token?: string) =>
    new PortForwardDialer(pf.kubeConfig(token), { namespace: 'kube-system', port: 2379 });

  it('carries 4 MiB each way unchanged (the port prefix stripped from what comes back)', async () => {
    const stream = await dialer().dial('echo');
    opened.push(stream);
    const payload = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 31) & 0xff;
    const back = read(stream, payload.length);
    stream.write(payload);
    expect((await back).equals(payload)).toBe(true);
  });

  it("a refused token, an unknown Pod: the API server's reason", async () => {
    await expect(dialer('wrong').dial('echo')).rejects.toThrow(
      'error upgrading connection to port 2379 of pod kube-system/echo: Unauthorized',
    );
    await expect(dialer().dial('nope')).rejects.toThrow(
      'error upgrading connection to port 2379 of pod kube-system/nope: pods "nope" not found',
    );
  });

  it('the target going away ends the stream; destroying the stream closes the WebSocket', async () => {
    pf.pods.set('kube-system/refused', '127.0.0.1:1');
    const refused = await dialer().dial('refused');
    await expect(read(refused, 1)).rejects.toThrow(
      /error forwarding port 2379 of pod kube-system\/refused: .*ECONNREFUSED/,
    );
    const stream = await dialer().dial('echo');
    const closed = new Promise((r) => stream.once('close', r));
    stream.destroy();
    await closed;
  });

  it('through the loopback bridge: one forward per accepted connection, all closed by close()', async () => {
    const before = pf.upgrades;
    const bridge = await LoopbackBridge.listen(() => dialer().dial('echo'));
    const [host, port] = bridge.address.split(':');
    const sockets = [connect(Number(port), host), connect(Number(port), host)];
    for (const [i, s] of sockets.entries()) {
      const back = read(s, 5);
      s.write(`hey-${i}`);
      expect((await back).toString()).toBe(`hey-${i}`);
    }
    expect(pf.upgrades - before).toBe(2);
    const closed = sockets.map((s) => new Promise((r) => s.once('close', r)));
    await bridge.close();
    await Promise.all(closed);
  });
});
