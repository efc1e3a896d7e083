// Idle keep-alive connections stay open as kube-apiserver keeps them (90 s), not for Node's default 5 s: clients pool
// them for longer than that, and one reused just as the server closes it fails with ECONNRESET.
import * as https from 'node:https';
import type { Socket } from 'node:net';
import { startTestServer, type TestServer } from './support/server';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.stop();
});

/** A GET on `agent`, answered with the socket it went over. */
function get(agent: https.Agent, path: string): Promise<{ code: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, ts.conn.url), {
      agent,
      ca: Buffer.from(ts.conn.caData!, 'base64'),
      headers: { Authorization: `Bearer ${ts.conn.token}` },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ code: res.statusCode ?? 0, socket: req.socket as Socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('a connection idle for longer than 5 s is still open and answers the next request', async () => {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(agent, '/api/v1/namespaces/default/configmaps');
    expect(first.code).toBe(200);
    let closed = false;
    first.socket.once('close', () => (closed = true));
    await new Promise((r) => setTimeout(r, 6_000));
    expect(closed).toBe(false);
    const second = await get(agent, '/api/v1/namespaces/default/configmaps');
    expect(second.code).toBe(200);
    expect(second.socket).toBe(first.socket);
  } finally {
    agent.destroy();
  }
}, 20_000);
