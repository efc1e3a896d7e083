// Guards against an unexplained exit of the whole process tree, seen once after large objects were stored.
// The embedded manager runs as a child process (its own process tree); oversize, deeply nested and huge-annotation
// objects are sent to it (each refused with kube's Status), objects just inside the limits are stored, then the demo
// runs (three control plane Machines, as with one KCP always surges like upstream, and one worker) and must succeed
// with the manager still alive (~10 s).
//
// What it found, before the limits (server/limits.ts): bodies up to 8 MiB were stored whole; JSON nested past about
// 1700 levels failed with a 500 "Maximum call stack size exceeded" (RangeError from structuredClone in
// Resources.create and the recursive merge patch walk); between about 900 and 1700 levels YAML apply failed (the yaml
// parser's recursion) while JSON writes were stored and then walked by every later write. No native crash (SIGABRT)
// reproduced here: V8's JSON.parse is iterative and structuredClone/JSON.stringify check the stack and throw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoRun, type DemoResult } from '../demo/flow';
import { limitCases, NAMESPACE } from './apiserver-cases';
import { jsonBody, rawRequest, type Endpoint } from './support/http';
import { startManagerProcess, type ManagerProcess } from './support/manager-process';
import { statusViolation } from './support/status';

jest.setTimeout(120_000);

const MiB = 1024 * 1024;
const clusters = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NAMESPACE}/clusters`;
const deepText = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
const cluster = (name: string) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name },
  spec: {},
});

describe('manager process after oversize objects', () => {
  let dir: string;
  let mgr: ManagerProcess;
  let ep: Endpoint;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oversize-e2e-'));
    // No admission webhooks: the Cluster's opaque spec.topology carries the payloads, and the Cluster webhook would
    // refuse a topology (422) before the API server's own limits are reached, as kube-apiserver's order is.
    mgr = await startManagerProcess(dir, (d) => logs.push(d), ['--webhook-port=0']);
    const c = mgr.kubeconfig.getCurrentCluster()!;
    ep = { url: c.server, token: mgr.kubeconfig.getCurrentUser()!.token, caData: c.caData };
  });
  afterAll(async () => {
    mgr?.client.close();
    if (mgr && !mgr.exit()) {
      mgr.proc.kill('SIGTERM');
      await mgr.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(limitCases().map((c) => [c.label, c] as const))("refuses %s with kube's Status", async (_label, c) => {
    const res = await rawRequest(ep, c.request.method, c.request.path, {
      body: c.request.body,
      contentType: c.request.contentType,
      timeoutMs: 20_000,
    });
    expect(statusViolation(res, c.request.method)).toBeUndefined();
    const status = JSON.parse(res.text);
    expect({ code: res.code, reason: status.reason }).toEqual({ code: c.code, reason: c.reason });
    expect(status.message).toMatch(c.message);
  });

  it("refuses a Cluster nested 10000 levels deep in an opaque field (400) and one over 1.5 MiB (500, etcd's error)", async () => {
    const deep = JSON.stringify(cluster('deep')).replace('"spec":{}', `"spec":{"topology":${deepText(10_000)}}`);
    const r1 = await rawRequest(ep, 'POST', clusters, { body: deep, contentType: 'application/json' });
    expect({ code: r1.code, reason: JSON.parse(r1.text).reason }).toEqual({ code: 400, reason: 'BadRequest' });
    const r2 = await rawRequest(
      ep,
      'POST',
      clusters,
      jsonBody({ ...cluster('heavy'), spec: { topology: { x: 'x'.repeat(2 * MiB) } } }),
    );
    // kube passes etcd's error on: a 500 without a reason.
    expect(JSON.parse(r2.text)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 500,
      message: 'etcdserver: request is too large',
    });
  });

  it('stores objects just inside the limits (1.4 MiB, 1 MiB of ConfigMap data, 500 levels deep, 250 KiB of annotations)', async () => {
    const cms = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    const big = await rawRequest(
      ep,
      'POST',
      clusters,
      jsonBody({ ...cluster('big'), spec: { topology: { x: 'x'.repeat(1.4 * MiB) } } }),
    );
    expect(big.code).toBe(201);
    const data = await rawRequest(
      ep,
      'POST',
      cms,
      jsonBody({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data' }, data: { k: 'x'.repeat(MiB - 1) } }),
    );
    expect(data.code).toBe(201);
    const annotated = await rawRequest(
      ep,
      'POST',
      cms,
      jsonBody({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'annotated', annotations: { a: 'x'.repeat(250 * 1024) } },
      }),
    );
    expect(annotated.code).toBe(201);
    const deep = JSON.stringify(cluster('deep-ok')).replace('"spec":{}', `"spec":{"topology":${deepText(500)}}`);
    expect((await rawRequest(ep, 'POST', clusters, { body: deep, contentType: 'application/json' })).code).toBe(201);
  });

  it('then runs the demo to success, with the manager still alive', async () => {
    const lines: string[] = [];
    let result: DemoResult | undefined;
    try {
      result = await new DemoRun({
        client: mgr.client,
        spec: { controlPlaneReplicas: 3, workerReplicas: 1 },
        out: (l) => lines.push(l),
        phaseTimeoutMs: 60_000,
        pollMs: 250,
      }).run();
    } finally {
      if (!result?.ok)
        process.stdout.write(
          `${lines.join('\n')}\nmanager exit: ${JSON.stringify(mgr.exit())}\n${mgr.stderr().slice(-2000)}\n`,
        );
    }
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(mgr.exit()).toBeUndefined();
    expect((await rawRequest(ep, 'GET', '/healthz')).code).toBe(200);
  });
});
