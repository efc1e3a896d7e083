// pods/portforward: kube-apiserver's checks before it proxies to the kubelet (both targets), and kubelet's WebSocket
// port-forward protocol through the embedded server to a backend (embedded only: the kube target runs no kubelet).
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Duplex, once, PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { ApiServer, type PortForwardBackend, type PortForwardTarget } from '../src';
import { waitFor } from './support/fixtures';
import { forwardPath, openForward, Refused, startEchoServer, type EchoServer } from './support/portforward';
import { itEmbedded, startTestServer, type TestServer } from './support/server';
import { rawRequest } from './support/test-client';

let ts: TestServer;
let echo: EchoServer;
const targets: PortForwardTarget[] = [];
const ECHO = 2379;
const REJECTED = 13;
const REFUSED = 9;
const SINK = 5001; // a Pod side that never finishes a write
const SOURCE = 5002; // a Pod side with endless data
const sinks: Duplex[] = [];
const sources: { produced: number }[] = [];
const CHUNK = Buffer.alloc(64 * 1024, 7);

const backend: PortForwardBackend = async (target) => {
  targets.push(target);
  if (target.port === REJECTED) throw new Error(`nothing listens on port ${target.port}`);
  if (target.port === SINK) {
    const sink = new Duplex({ read() {}, write() {} }); // the write callback never runs: writes only queue
    sinks.push(sink);
    return sink;
  }
  if (target.port === SOURCE) {
    const state = { produced: 0 };
    sources.push(state);
    return new Duplex({
      read() {
        // Asynchronously, as a socket delivers data.
        setImmediate(() => {
          state.produced += CHUNK.length;
          this.push(CHUNK);
        });
      },
      write(_c, _e, cb) {
        cb();
      },
    });
  }
  // A port nothing listens on: the socket fails after the backend resolved.
  const s: Socket = connect(target.port === REFUSED ? 1 : echo.port, '127.0.0.1');
  if (target.port !== REFUSED) await once(s, 'connect');
  return s;
};

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'pf-node' } };
const pod = (name: string, nodeName?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'kube-system' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.6.14' }] },
});

beforeAll(async () => {
  echo = await startEchoServer();
  ts = await startTestServer({ portForward: backend }, []);
  const c = ts.clients[0];
  await c.create(node as never);
  await c.create(pod('etcd-pf-node', 'pf-node') as never);
  await c.create(pod('unscheduled') as never);
  await c.create(pod('lost', 'gone-node') as never);
}, 60_000);
afterAll(async () => {
  await ts?.stop();
  await echo?.close();
});

const get = (path: string, method = 'GET') => rawRequest(ts.conn, method, path);
const status = (text: string) => JSON.parse(text) as { code: number; reason: string; message: string };

describe("kube-apiserver's checks before the upgrade", () => {
  it('an unknown Pod is 404', async () => {
    const r = await get(forwardPath('kube-system', 'nope', '2379'));
    expect(r.code).toBe(404);
    expect(status(r.text)).toMatchObject({ reason: 'NotFound', message: 'pods "nope" not found' });
  });

  it.each([
    ['abc', 'cannot convert to []int32: strconv.ParseUint: parsing "abc": invalid syntax'],
    ['70000', 'cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range'],
    ['-1', 'cannot convert to []int32: strconv.ParseUint: parsing "-1": invalid syntax'],
  ])('ports=%s is 400 before the Pod is looked up', async (ports, message) => {
    const r = await get(forwardPath('kube-system', 'nope', ports), 'POST');
    expect(r.code).toBe(400);
    expect(status(r.text)).toMatchObject({ reason: 'BadRequest', message });
  });

  it('a Pod without a Node is 400; a Pod on a missing Node 404 (worded as kube words it)', async () => {
    const r = await get(forwardPath('kube-system', 'unscheduled', '2379'));
    expect(r.code).toBe(400);
    expect(status(r.text).message).toBe('pod unscheduled does not have a host assigned');
    const lost = await get(forwardPath('kube-system', 'lost', '2379'));
    expect(lost.code).toBe(404);
    expect(status(lost.text).message).toBe('pods "gone-node" not found');
  });

  it('discovery lists pods/portforward (legacy and aggregated)', async () => {
    const legacy = JSON.parse((await get('/api/v1')).text);
    expect(legacy.resources.find((r: { name: string }) => r.name === 'pods/portforward')).toEqual({
      name: 'pods/portforward',
      singularName: '',
      namespaced: true,
      kind: 'PodPortForwardOptions',
      verbs: ['create', 'get'],
    });
    const agg = await rawRequest(ts.conn, 'GET', '/api', undefined, undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const pods = JSON.parse(agg.text).items[0].versions[0].resources.find(
      (r: { resource: string }) => r.resource === 'pods',
    );
    expect(pods.subresources).toEqual(
      expect.arrayContaining([
        {
          subresource: 'portforward',
          responseKind: { group: '', version: '', kind: 'PodPortForwardOptions' },
          verbs: ['create', 'get'],
        },
      ]),
    );
  });

  it('PUT is 405', async () => {
    const r = await get(forwardPath('kube-system', 'etcd-pf-node', '2379'), 'PUT');
    expect(r.code).toBe(405);
  });
});

describe('the WebSocket protocol (v4.channel.k8s.io)', () => {
  itEmbedded('a request that does not upgrade to a WebSocket (plain or SPDY) is 400, saying so', async () => {
    const plain = await get(forwardPath('kube-system', 'etcd-pf-node', '2379'));
    expect(plain.code).toBe(400);
    expect(status(plain.text).message).toMatch(/only the WebSocket protocol.*SPDY is not supported/);
    const spdy = await rawRequest(
      ts.conn,
      'POST',
      forwardPath('kube-system', 'etcd-pf-node', '2379'),
      undefined,
      undefined,
      {
        Connection: 'Upgrade',
        Upgrade: 'SPDY/3.1',
        'X-Stream-Protocol-Version': 'portforward.k8s.io',
      },
    );
    expect(spdy.code).toBe(400);
    expect(status(spdy.text).message).toMatch(/only the WebSocket protocol/);
  });

  itEmbedded('authentication as for every request: no or a wrong token is 401 before anything else', async () => {
    for (const token of [null, 'wrong']) {
      const err = await openForward(ts.conn, forwardPath('kube-system', 'nope', '2379'), { token }).catch((e) => e);
      expect(err).toBeInstanceOf(Refused);
      expect((err as Refused).code).toBe(401);
    }
  });

  itEmbedded(
    'refusals of the upgrade are Status bodies: unknown Pod, missing port, port 0, SPDY tunnelling',
    async () => {
      const refused = (path: string, protocols?: string[]) =>
        openForward(ts.conn, path, { protocols }).then(
          () => {
            throw new Error('upgraded');
          },
          (e: Refused) => ({ code: e.code, message: status(e.body).message }),
        );
      expect(await refused(forwardPath('kube-system', 'nope', '2379'))).toEqual({
        code: 404,
        message: 'pods "nope" not found',
      });
      expect(await refused('/api/v1/namespaces/kube-system/pods/etcd-pf-node/portforward')).toEqual({
        code: 400,
        message: 'query parameter "ports" is required',
      });
      expect(await refused(forwardPath('kube-system', 'etcd-pf-node', '0'))).toEqual({
        code: 400,
        message: 'port "0" must be > 0',
      });
      const spdy = await refused(forwardPath('kube-system', 'etcd-pf-node', '2379'), ['SPDY/3.1+portforward.k8s.io']);
      expect(spdy.code).toBe(400);
      expect(spdy.message).toMatch(/requested protocol\(s\) are not supported: \[SPDY\/3.1\+portforward.k8s.io\]/);
    },
  );

  itEmbedded('the port prefixes each channel, then bytes flow both ways; the backend gets the Pod', async () => {
    targets.length = 0;
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(ECHO)), {
      protocols: ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
    });
    expect(c.protocol).toBe('v4.channel.k8s.io');
    c.send(0, Buffer.from('ping'));
    expect((await c.waitFor(0, 4)).toString()).toBe('ping');
    const prefix = Buffer.from([ECHO & 0xff, ECHO >> 8]);
    expect(c.received.get(0)![0]).toEqual(prefix);
    expect(c.received.get(1)).toEqual([prefix]);
    expect(targets).toHaveLength(1);
    expect(targets[0]).toMatchObject({ namespace: 'kube-system', pod: 'etcd-pf-node', port: ECHO });
    expect(targets[0].podObject.metadata.uid).toBeTruthy();
    c.ws.close();
    await c.closed;
  });

  itEmbedded('several ports: a data and an error channel each (2i, 2i+1), one backend stream per port', async () => {
    targets.length = 0;
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', `${ECHO},2380`));
    c.send(2, Buffer.from('second'));
    c.send(0, Buffer.from('first'));
    expect((await c.waitFor(2, 6)).toString()).toBe('second');
    expect((await c.waitFor(0, 5)).toString()).toBe('first');
    expect(c.received.get(2)![0]).toEqual(Buffer.from([2380 & 0xff, 2380 >> 8]));
    expect(c.received.get(3)).toEqual([Buffer.from([2380 & 0xff, 2380 >> 8])]);
    expect(targets.map((t) => t.port).sort()).toEqual([2379, 2380]);
    c.ws.close();
    await c.closed;
  });

  itEmbedded('the base64 variant (v4.base64.channel.k8s.io) carries the same bytes as text', async () => {
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(ECHO)), {
      protocols: ['v4.base64.channel.k8s.io'],
    });
    expect(c.protocol).toBe('v4.base64.channel.k8s.io');
    const payload = randomBytes(1000);
    c.send(0, payload);
    expect(await c.waitFor(0, payload.length)).toEqual(payload);
    c.ws.close();
    await c.closed;
  });

  itEmbedded(
    'large payloads both ways, and concurrent forwards stay apart',
    async () => {
      const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      const run = async (bytes: number) => {
        const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(ECHO)));
        const payload = randomBytes(bytes);
        for (let off = 0; off < payload.length; off += 64 * 1024) c.send(0, payload.subarray(off, off + 64 * 1024));
        const back = await c.waitFor(0, bytes, 60_000);
        c.ws.close();
        await c.closed;
        return sha(back) === sha(payload) && back.length === bytes;
      };
      expect(await run(16 * 1024 * 1024)).toBe(true);
      expect(await Promise.all(Array.from({ length: 8 }, (_, i) => run(256 * 1024 + i)))).toEqual(Array(8).fill(true));
    },
    120_000,
  );

  itEmbedded('backpressure: a Pod side that does not read stops the WebSocket being read', async () => {
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(SINK)));
    const chunk = randomBytes(256 * 1024);
    for (let i = 0; i < 128; i++) c.send(0, chunk); // 32 MiB
    // Until data has reached the Pod side (on a busy machine that can take more than a second), then a little more.
    await waitFor(() => (sinks.at(-1)?.writableLength ?? 0) > 0, 20_000, 'data queued at the Pod side');
    await new Promise((r) => setTimeout(r, 1000));
    const queued = sinks.at(-1)!.writableLength;
    expect(queued).toBeGreaterThan(0);
    expect(queued).toBeLessThan(8 * 1024 * 1024);
    expect(c.ws.bufferedAmount).toBeGreaterThan(16 * 1024 * 1024); // the rest waits at the client
    c.ws.terminate();
  });

  itEmbedded('backpressure: a client that does not read stops the Pod side being read', async () => {
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(SOURCE)));
    const socket = (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    await new Promise((r) => setTimeout(r, 1000));
    const state = sources.at(-1)!;
    const stalled = state.produced;
    expect(stalled).toBeLessThan(32 * 1024 * 1024);
    await new Promise((r) => setTimeout(r, 300));
    expect(state.produced).toBe(stalled);
    socket.resume();
    await c.waitFor(0, stalled + 1024 * 1024);
    expect(state.produced).toBeGreaterThan(stalled);
    c.ws.terminate();
  });

  itEmbedded('closing the WebSocket closes the Pod side', async () => {
    const before = echo.sockets.length;
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(ECHO)));
    c.send(0, Buffer.from('x'));
    await c.waitFor(0, 1);
    const pair = echo.sockets[before];
    const ended = once(pair, 'close');
    c.ws.close();
    await ended;
    expect(pair.destroyed).toBe(true);
  });

  itEmbedded('the Pod side closing closes the WebSocket (normal closure)', async () => {
    const before = echo.sockets.length;
    const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(ECHO)));
    c.send(0, Buffer.from('x'));
    await c.waitFor(0, 1);
    echo.sockets[before].end();
    expect(await c.closed).toEqual({ code: 1000 });
  });

  itEmbedded('a backend rejection and a stream error are kubelet\'s "error forwarding port" on channel 1', async () => {
    for (const [port, cause] of [
      [REJECTED, `nothing listens on port ${REJECTED}`],
      [REFUSED, 'ECONNREFUSED'],
    ] as const) {
      const c = await openForward(ts.conn, forwardPath('kube-system', 'etcd-pf-node', String(port)));
      const { code } = await c.closed;
      expect(code).toBe(1011);
      const uid = targets.at(-1)!.podObject.metadata.uid;
      const message = c.data(1).toString();
      expect(message).toContain(`error forwarding port ${port} to pod etcd-pf-node_kube-system, uid ${uid}: `);
      expect(message).toContain(cause);
    }
  });

  itEmbedded('without a backend, channel 1 says no runtime serves the Pod', async () => {
    const server = new ApiServer({ storage: { type: 'memory' } });
    const conn = await server.start();
    try {
      const { RawClient } = await import('./support/raw-client');
      const c0 = new RawClient(conn);
      await c0.create(node as never);
      await c0.create(pod('etcd-pf-node', 'pf-node') as never);
      const c = await openForward(conn, forwardPath('kube-system', 'etcd-pf-node', '2379'));
      await c.closed;
      expect(c.data(1).toString()).toMatch(/error forwarding port 2379 to pod .*: no container runtime serves Pods/);
    } finally {
      await server.stop();
    }
  });

  itEmbedded("@kubernetes/client-node's PortForward speaks it", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(ts.kubeconfig);
    const input = new PassThrough();
    const output = new PassThrough();
    const errors = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (c: Buffer) => chunks.push(c));
    const ws = (await new k8s.PortForward(kc).portForward(
      'kube-system',
      'etcd-pf-node',
      [ECHO],
      output,
      errors,
      input,
    )) as unknown as { close(): void; protocol: string };
    expect(ws.protocol).toBe('v4.channel.k8s.io');
    const payload = randomBytes(300_000);
    input.write(payload);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`got ${Buffer.concat(chunks).length} bytes`)), 20_000);
      output.on('data', () => {
        if (Buffer.concat(chunks).length >= payload.length) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    expect(Buffer.concat(chunks)).toEqual(payload);
    ws.close();
  });
});
