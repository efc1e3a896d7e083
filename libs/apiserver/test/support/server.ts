// The semantic suite's API server: the embedded ApiServer, or etcd + kube-apiserver (ENVTEST_TARGET=kube), with the
// test CRDs installed and both suite clients. kube-apiserver is the reference the embedded server is held to.
import { startKubeControlPlane, type KubeControlPlane } from '@capi/kube-control-plane';
import { ApiServer, renderKubeconfig, type ApiServerOptions } from '../../src';
import { ClientNodeClient } from './client-node-client';
import { RawClient } from './raw-client';
import { widgetCrd, gadgetCrd, waitFor } from './fixtures';
import { rawRequest, type Conn, type TestClient } from './test-client';

export type TestTarget = 'embedded' | 'kube';

/** ENVTEST_TARGET (default embedded), as @capi/envtest reads it (which this library cannot import: a cycle). */
export function testTarget(env: NodeJS.ProcessEnv = process.env): TestTarget {
  const t = env.ENVTEST_TARGET || 'embedded';
  if (t !== 'embedded' && t !== 'kube') throw new Error(`ENVTEST_TARGET=${t}: want embedded or kube`);
  return t;
}

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

interface CrdLike { metadata: { name: string }; spec: { group: string; names: { plural: string }; scope: string; versions: { name: string; served: boolean }[] } }

/** CRDs on kube-apiserver: created (or replaced), then awaited until Established and served, as envtest's WaitForCRDs. */
export async function installKubeCrds(conn: Conn, crds: object[]): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (const crd of crds as CrdLike[]) {
    const r = await rawRequest(conn, 'PATCH', `${base}/${crd.metadata.name}?fieldManager=semantic-suite&force=true`, crd, 'application/apply-patch+yaml');
    if (r.code >= 300) throw new Error(`installing CRD ${crd.metadata.name}: ${r.code} ${r.text}`);
  }
  for (const crd of crds as CrdLike[]) {
    await waitFor(async () => {
      const r = await rawRequest(conn, 'GET', `${base}/${crd.metadata.name}`);
      return r.code === 200 && JSON.parse(r.text).status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True');
    }, 30_000, `CRD ${crd.metadata.name} Established`);
    for (const v of crd.spec.versions.filter((x) => x.served)) {
      const path = `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}?limit=1`;
      await waitFor(async () => (await rawRequest(conn, 'GET', path)).code === 200, 30_000, `${path} served`);
    }
  }
}

async function startKube(crds: object[]): Promise<TestServer> {
  const kube = await startKubeControlPlane();
  try {
    const conn: Conn = { url: kube.url, token: kube.token, caData: kube.caData };
    const kubeconfig = renderKubeconfig({ ...conn, name: 'semantic-kube' });
    await installKubeCrds(conn, crds);
    return {
      target: 'kube', kube, conn, kubeconfig, clients: [new RawClient(conn), new ClientNodeClient(kubeconfig, conn)],
      installCrds: (more) => installKubeCrds(conn, more), stop: () => kube.stop(),
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
export async function startTestServer(opts: Partial<ApiServerOptions> = {}, crds: object[] = [widgetCrd, gadgetCrd]): Promise<TestServer> {
  if (testTarget() === 'kube') return startKube(crds);
  const server = new ApiServer({ storage: { type: 'memory' }, bookmarkIntervalMs: 100, ...opts });
  const conn = await server.start();
  try {
    await server.installCrds(crds);
    const kubeconfig = server.kubeconfig();
    return {
      target: 'embedded', server, conn, kubeconfig, clients: [new RawClient(conn), new ClientNodeClient(kubeconfig, conn)],
      installCrds: (more) => server.installCrds(more), stop: () => server.stop(),
    };
  } catch (e) {
    await server.stop();
    throw e;
  }
}
