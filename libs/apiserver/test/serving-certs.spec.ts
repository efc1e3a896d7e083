// The embedded server's serving certificate over real HTTPS: renewed while serving under the same CA (new connections
// get it, open ones keep working), re-issued at start when due, and a data dir of an older version (no CA key) gets a
// new CA. Embedded only: kube-apiserver's certificates are the test harness's.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer, type StartedServer } from '../src';
import { generateServingCerts } from '../src/server/tls';

jest.setTimeout(30_000);

const LEAF_MS = 3000;
let dir: string;
const servers: ApiServer[] = [];
const infos: string[] = [];
const logger = { info: (m: string) => infos.push(m), warn: (m: string) => infos.push(m), error: () => undefined };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'apiserver-certs-'));
  infos.length = 0;
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(leafValidityMs = LEAF_MS, now?: () => number): Promise<StartedServer> {
  const s = new ApiServer({
    storage: { type: 'sqlite', path: join(dir, 'state.db') },
    dataDir: dir,
    servingCerts: { leafValidityMs, ...(now && { now }) },
    logger,
  });
  servers.push(s);
  return s.start();
}

const stored = () => JSON.parse(readFileSync(join(dir, 'serving-certs.json'), 'utf8'));

/** GET /version with the kubeconfig's CA (a new connection unless `agent` has one); the certificate the server presented and whether the socket was reused. */
function get(s: StartedServer, agent?: https.Agent): Promise<{ cert: X509Certificate; reused: boolean; code: number }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/version', s.url),
      { ca: Buffer.from(s.caData!, 'base64'), headers: { authorization: `Bearer ${s.token}` }, agent: agent ?? false },
      (res) => {
        const cert = new X509Certificate((res.socket as TLSSocket).getPeerCertificate().raw);
        res.resume();
        res.on('end', () => resolve({ cert, reused: req.reusedSocket, code: res.statusCode ?? 0 }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(f: () => Promise<T | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('renews the serving certificate while serving: same CA, new notAfter for new connections, open ones keep working', async () => {
  const s = await start();
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(s, agent);
    expect(first.code).toBe(200);
    // Two thirds into its 3 s life the certificate is re-issued; a new connection (no agent) sees it.
    const renewed = await until(async () => {
      const r = await get(s);
      return r.cert.serialNumber !== first.cert.serialNumber && r;
    }, 10_000);
    expect(Date.parse(renewed.cert.validTo)).toBeGreaterThan(Date.parse(first.cert.validTo));
    expect(renewed.cert.checkIssued(new X509Certificate(Buffer.from(s.caData!, 'base64')))).toBe(true);
    expect(infos.filter((m) => m.startsWith('serving certificate renewed under the same CA'))).not.toHaveLength(0);
    // The connection opened before the renewal still works, on its certificate, even once that has expired.
    const expired = Date.parse(first.cert.validTo) + 100;
    await new Promise((r) => setTimeout(r, Math.max(0, expired - Date.now())));
    const again = await get(s, agent);
    expect(again).toMatchObject({ code: 200, reused: true });
    expect(again.cert.serialNumber).toBe(first.cert.serialNumber);
    // The data dir holds the renewed one, CA unchanged, 0600.
    const onDisk = stored();
    expect(onDisk.caCert).toBe(Buffer.from(s.caData!, 'base64').toString());
    expect(new X509Certificate(onDisk.cert).validTo).not.toBe(first.cert.validTo);
    expect(statSync(join(dir, 'serving-certs.json')).mode & 0o777).toBe(0o600);
  } finally {
    agent.destroy();
  }
});

it('keeps the CA and serving certificate across a restart, and re-issues a due one under the same CA', async () => {
  const a = await start(60_000);
  const certA = (await get(a)).cert;
  await servers.pop()!.stop();
  const b = await start(60_000);
  expect(b.caData).toBe(a.caData);
  expect((await get(b)).cert.serialNumber).toBe(certA.serialNumber);
  await servers.pop()!.stop();
  // 45 s later, three quarters into its 60 s life: re-issued at start, under the same CA.
  const c = await start(60_000, () => Date.now() + 45_000);
  expect(c.caData).toBe(a.caData);
  const reissued = new X509Certificate(stored().cert);
  expect(reissued.serialNumber).not.toBe(certA.serialNumber);
  expect(Date.parse(reissued.validTo)).toBeGreaterThan(Date.parse(certA.validTo));
  expect(infos).toContainEqual(expect.stringMatching(/^serving certificate re-issued under the same CA: it expires/));
});

it('a data dir of an older version (serving-certs.json without the CA key) gets a new CA, kept with its key (0600)', async () => {
  await start();
  await servers.pop()!.stop();
  const legacy = await generateServingCerts('127.0.0.1');
  const { caKey: _, ...old } = legacy;
  writeFileSync(join(dir, 'serving-certs.json'), JSON.stringify(old), { mode: 0o644 });
  const s = await start();
  const ca = Buffer.from(s.caData!, 'base64').toString();
  expect(ca).not.toBe(legacy.caCert);
  expect((await get(s)).code).toBe(200);
  const onDisk = stored();
  expect(onDisk).toMatchObject({ caCert: ca, caKey: expect.stringContaining('PRIVATE KEY') });
  expect(statSync(join(dir, 'serving-certs.json')).mode & 0o777).toBe(0o600);
  expect(infos).toContainEqual(expect.stringMatching(/^new serving CA and certificate .*the CA key was not kept/));
});
