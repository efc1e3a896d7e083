// The live view's HTTP server on a loopback port: the JSON API, the event stream pushing a new state after a change,
// the page's assets and the errors.
import { get, request } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@capi/apimachinery';
import { ObjectStore } from '../src/object-store';
import { startLiveViewServer, type LiveViewServer } from '../src/server';
import { buildLiveViewState, type LiveViewState } from '../src/view';

const cluster = (name: string): KubeObject =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name, namespace: 'ns', uid: `uid-${name}` },
    spec: {},
    status: { phase: 'Provisioned' },
  }) as KubeObject;

let assets: string;
let store: ObjectStore;
let server: LiveViewServer;
let base: string;

async function start(assetsDir: string): Promise<void> {
  store = new ObjectStore();
  server = await startLiveViewServer({
    host: '127.0.0.1',
    port: 0,
    assetsDir,
    source: {
      state: () => buildLiveViewState(store.objects(), store.counts.all(), new Date()),
      onChange: (l) => store.onChange(l),
    },
  });
  base = `http://${server.address}`;
}

function fetchText(path: string, method = 'GET'): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(() => {
  assets = mkdtempSync(join(tmpdir(), 'live-view-assets-'));
  mkdirSync(join(assets, 'assets'));
  writeFileSync(join(assets, 'index.html'), '<!doctype html><title>live view</title>');
  writeFileSync(join(assets, 'assets/app.js'), 'console.log(1)');
});
afterAll(() => rmSync(assets, { recursive: true, force: true }));

describe('with the page built', () => {
  beforeEach(() => start(assets));
  afterEach(() => server.close());

  it('serves the page and its assets, 404 for anything else', async () => {
    expect(await fetchText('/')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(await fetchText('/assets/app.js')).toMatchObject({ status: 200, body: 'console.log(1)' });
    expect((await fetchText('/assets/missing.js')).status).toBe(404);
    expect((await fetchText('/assets')).status).toBe(404);
  });

  it('serves the state, the clusters and one cluster as JSON; a missing cluster is a 404 Status', async () => {
    store.upsert('Cluster', cluster('a'));
    const state = JSON.parse((await fetchText('/api/state')).body) as LiveViewState;
    expect(state.clusters.map((c) => `${c.namespace}/${c.name}`)).toEqual(['ns/a']);
    expect(state.clusters[0].tree.root).toMatchObject({ kind: 'Cluster', name: 'a' });
    expect(JSON.parse((await fetchText('/api/clusters')).body)).toEqual([
      { namespace: 'ns', name: 'a', phase: 'Provisioned' },
    ]);
    expect(JSON.parse((await fetchText('/api/clusters/ns/a')).body)).toMatchObject({ name: 'a', tiles: {} });
    expect(JSON.parse((await fetchText('/api/series')).body)).toEqual([]);
    const missing = await fetchText('/api/clusters/ns/b');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('refuses writes with a 405 Status', async () => {
    const r = await fetchText('/api/state', 'POST');
    expect(r.status).toBe(405);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
  });

  it('streams the state on connect and again after a change', async () => {
    const states: LiveViewState[] = [];
    let buf = '';
    let onState: () => void = () => undefined;
    const req = get(`${base}/api/events`, (res) => {
      expect(res.headers['content-type']).toBe('text/event-stream');
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(event);
          if (/^event: state$/m.test(event) && data) states.push(JSON.parse(data[1]));
          onState();
        }
      });
    });
    const nth = (n: number) =>
      new Promise<void>((resolve) => {
        onState = () => states.length >= n && resolve();
        onState();
      });
    await nth(1);
    expect(states[0].clusters).toEqual([]);
    store.upsert('Cluster', cluster('a'));
    store.upsert('Cluster', cluster('b'));
    await nth(2);
    // Both changes of one turn of the event loop arrive as one state.
    expect(states[1].clusters.map((c) => c.name)).toEqual(['a', 'b']);
    store.remove('Cluster', cluster('a'));
    await nth(3);
    expect(states[2].clusters.map((c) => c.name)).toEqual(['b']);
    req.destroy();
  });
});

it('answers 503 naming the build command when the page is not built', async () => {
  await start(join(assets, 'nowhere'));
  try {
    const r = await fetchText('/');
    expect(r.status).toBe(503);
    expect(r.body).toMatch(/not built.*nx run live-view:build-web/);
    expect((await fetchText('/api/state')).status).toBe(200);
  } finally {
    await server.close();
  }
});

it('rejects with the listen error when the port is taken', async () => {
  await start(assets);
  try {
    await expect(
      startLiveViewServer({
        host: '127.0.0.1',
        port: server.port,
        assetsDir: assets,
        source: { state: () => buildLiveViewState(store.objects(), [], new Date()), onChange: () => () => undefined },
      }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
  } finally {
    await server.close();
  }
});
