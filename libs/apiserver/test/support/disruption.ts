// Pods, PodDisruptionBudgets and evictions for the eviction and drain suites, over raw HTTPS on either target.
import type { KubeObject } from '@capi/apimachinery';
import { waitFor } from './fixtures';
import { embedded, type TestServer } from './server';
import { rawRequest } from './test-client';

type Obj = Record<string, any>;

export interface PodSpec {
  labels?: Record<string, string>;
  nodeName?: string;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  ready?: boolean;
  finalizers?: string[];
  ownerReferences?: Obj[];
  volumes?: Obj[];
  terminationGracePeriodSeconds?: number;
}

/** A thin raw client for what these suites do: JSON in and out, the HTTP code kept. */
export function disruptionClient(ts: () => TestServer) {
  const call = async (method: string, path: string, body?: unknown, contentType?: string) => {
    // A length, not chunks: Node's server refuses a chunked DELETE body.
    const length: Record<string, string> =
      body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(JSON.stringify(body))) };
    const r = await rawRequest(ts().conn, method, path, body, contentType, length);
    return { code: r.code, body: r.text ? JSON.parse(r.text) : undefined };
  };
  const must = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const r = await call(method, path, body, contentType);
    if (r.code >= 300) throw new Error(`${method} ${path}: ${r.code} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const podPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;
  const pdbPath = (ns: string, name = '') =>
    `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets${name ? `/${name}` : ''}`;

  /** Creates a Pod and writes its status as a kubelet would (phase, Ready condition). */
  async function pod(ns: string, name: string, p: PodSpec = {}): Promise<KubeObject> {
    const created = await must('POST', podPath(ns), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        labels: p.labels,
        finalizers: p.finalizers,
        ownerReferences: p.ownerReferences,
      },
      spec: {
        containers: [{ name: 'app', image: 'busybox:1' }],
        nodeName: p.nodeName,
        volumes: p.volumes,
        terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
      },
    });
    if (!p.phase || p.phase === 'Pending') return created;
    const conditions = [{ type: 'Ready', status: p.ready ? 'True' : 'False' }];
    return must(
      'PATCH',
      `${podPath(ns, name)}/status`,
      { status: { phase: p.phase, conditions } },
      'application/merge-patch+json',
    );
  }

  async function pdb(ns: string, name: string, spec: Obj): Promise<KubeObject> {
    return must('POST', pdbPath(ns), {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name },
      spec,
    });
  }

  /**
   * The status a PDB must have before an eviction: on kube-apiserver (no kube-controller-manager) the test writes it;
   * on the embedded server the disruption controller must have computed it.
   */
  async function settle(ns: string, name: string, expected: Obj): Promise<KubeObject> {
    if (ts().target === 'kube') {
      const live = await must('GET', pdbPath(ns, name));
      const status = { observedGeneration: live.metadata.generation, ...expected };
      return must('PATCH', `${pdbPath(ns, name)}/status`, { status }, 'application/merge-patch+json');
    }
    await embedded(ts()).disruptionIdle();
    return waitFor(
      async () => {
        const live = await must('GET', pdbPath(ns, name));
        return (
          Object.entries(expected).every(([k, v]) => JSON.stringify(live.status?.[k]) === JSON.stringify(v)) && live
        );
      },
      5000,
      `PDB ${name} status ${JSON.stringify(expected)}`,
    );
  }

  const evict = (ns: string, name: string, extra: Obj = {}, query = '') =>
    call('POST', `${podPath(ns, name)}/eviction${query}`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: ns },
      ...extra,
    });

  const getPod = (ns: string, name: string) => call('GET', podPath(ns, name));
  const deletePod = (ns: string, name: string, options?: Obj) => call('DELETE', podPath(ns, name), options);
  const getPdb = (ns: string, name: string) => must('GET', pdbPath(ns, name));

  return { call, must, pod, pdb, settle, evict, getPod, deletePod, getPdb, podPath, pdbPath };
}

/** A namespace per test, so budgets of one case never select another's Pods. */
export async function namespace(ts: TestServer, name: string): Promise<string> {
  const r = await rawRequest(ts.conn, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  if (r.code !== 201) throw new Error(`namespace ${name}: ${r.code} ${r.text}`);
  return name;
}
