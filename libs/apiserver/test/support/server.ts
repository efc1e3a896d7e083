// The semantic suite's API server: the embedded ApiServer, or etcd + kube-apiserver (ENVTEST_TARGET=kube), with the
// test CRDs installed and both suite clients. kube-apiserver is the reference the embedded server is held to.
import {
  envtestTarget,
  startKubeControlPlane,
  type EnvtestTarget,
  type KubeControlPlane,
} from '@capi/kube-control-plane';
import { ApiServer, renderKubeconfig, type ApiServerOptions } from '../../src';
import { ClientNodeClient } from './client-node-client';
import { RawClient } from './raw-client';
import { widgetCrd, gadgetCrd } from './fixtures';
import type { Conn, TestClient } from './test-client';

export type TestTarget = EnvtestTarget;
/** ENVTEST_TARGET (default embedded), read as @capi/envtest reads it. */
export const testTarget = envtestTarget;

export interface TestServer {
  target: TestTarget;
  /** The embedded server; undefined on kube (read it through embedded(ts), in an itEmbedded case). */
  server?: ApiServer;
  /** etcd + kube-apiserver; undefined on the embedded target. */
  kube?: KubeControlPlane;
  conn: Conn;
  kubeconfig: string;
  clients: TestClient[];
  /** Installs CRDs; resolves once they are Established and their resources served. */
  installCrds(crds: object[]): Promise<void>;
  stop(): Promise<void>;
}

/** The embedded ApiServer, for cases about its internals; throws on kube (such a case must be itEmbedded). */
export function embedded(ts: TestServer): ApiServer {
  if (!ts.server) throw new Error(`this case reads the embedded API server's internals; the target is ${ts.target}`);
  return ts.server;
}

/**
 * `it` on the embedded target, skipped on kube, with an "(embedded server only)" suffix: for cases that read the
 * embedded server's internals or options kube-apiserver doesn't take, or that need a controller the kube target
 * doesn't run (it has no kube-controller-manager, as controller-runtime's envtest).
 */
export function itEmbedded(name: string, fn: () => Promise<unknown> | void, timeoutMs?: number): void {
  const define = testTarget() === 'embedded' ? it : it.skip;
  define(`${name} (embedded server only)`, fn as () => Promise<void>, timeoutMs);
}

/**
 * Compacts the history watches resume from, up to now: on kube etcd's compaction (kube-apiserver runs one every 5
 * minutes); the embedded server keeps `historySize` events (its option), so a suite that needs old resourceVersions
 * compacted starts it with a small one and writes more than that.
 */
export async function compactHistory(ts: TestServer): Promise<void> {
  if (!ts.kube) return;
  const etcd = ts.kube.etcd.clientUrls.split(',')[0];
  const post = async (path: string, body: object) => {
    const r = await fetch(`${etcd}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`etcd ${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<{ header: { revision: string } }>;
  };
  // etcd's JSON gateway (etcdserverpb.KV): the current revision from any range, then a compaction to it.
  const { header } = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
  await post('/v3/kv/compaction', { revision: header.revision, physical: true });
}

async function startKube(crds: object[]): Promise<TestServer> {
  const kube = await startKubeControlPlane();
  try {
    const conn: Conn = { url: kube.url, token: kube.token, caData: kube.caData };
    const kubeconfig = renderKubeconfig({ ...conn, name: 'semantic-kube' });
    await kube.installCrds(crds);
    return {
      target: 'kube',
      kube,
      conn,
      kubeconfig,
      clients: [new RawClient(conn), new ClientNodeClient(kubeconfig, conn)],
      installCrds: (more) => kube.installCrds(more),
      stop: () => kube.stop(),
    };
  } catch (e) {
    await kube.stop();
    throw e;
  }
}

/**
 * An API server with `crds` (default: the widget and gadget CRDs) installed, and both suite clients. On the embedded
 * target an in-memory HTTPS server on 127.0.0.1:0 with `opts`; kube-apiserver takes none of them.
 */
export async function startTestServer(
  opts: Partial<ApiServerOptions> = {},
  crds: object[] = [widgetCrd, gadgetCrd],
): Promise<TestServer> {
  if (testTarget() === 'kube') return startKube(crds);
  const server = new ApiServer({ storage: { type: 'memory' }, bookmarkIntervalMs: 100, ...opts });
  const conn = await server.start();
  try {
    await server.installCrds(crds);
    const kubeconfig = server.kubeconfig();
    return {
      target: 'embedded',
      server,
      conn,
      kubeconfig,
      clients: [new RawClient(conn), new ClientNodeClient(kubeconfig, conn)],
      installCrds: (more) => server.installCrds(more),
      stop: () => server.stop(),
    };
  } catch (e) {
    await server.stop();
    throw e;
  }
}
