// core/v1 Pods as kube-apiserver serves them: the create strategy (status, QoS class, generation), the status
// subresource, validation, server-side apply's list-map keys, and kubectl (get tables, patch, apply, port-forward).
import YAML from 'yaml';
import type { KubeObject } from '@capi/apimachinery';
import { kubectlSuite, tableRows } from './support/kubectl';
import { itEmbedded } from './support/server';
import { HttpError, type Ev, type TestClient } from './support/test-client';

const { suite, ok, run } = kubectlSuite('apiserver-pods-');

const ref = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', name, namespace: 'default' });
const pod = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'busybox:1' }], ...extra },
  }) as KubeObject;

describe.each([0, 1])('Pods via client #%i', (idx) => {
  let c: TestClient;
  beforeAll(() => {
    c = suite.ts.clients[idx];
  });
  const name = (n: string) => `${n}-${idx}`;

  it('create: the status sent is replaced by Pending and the QoS class; generation 1', async () => {
    const created = await c.create(pod(name('create'), {}) as KubeObject);
    expect(created.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(created.metadata.generation).toBe(1);
    const withStatus = { ...pod(name('status-sent')), status: { phase: 'Running' } } as KubeObject;
    expect((await c.create(withStatus)).status).toMatchObject({ phase: 'Pending' });
    const guaranteed = pod(name('guaranteed'), {
      containers: [{ name: 'app', image: 'busybox:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
    });
    expect((await c.create(guaranteed)).status).toMatchObject({ qosClass: 'Guaranteed' });
    const burstable = pod(name('burstable'), {
      containers: [{ name: 'app', image: 'busybox:1', resources: { requests: { cpu: '100m' } } }],
    });
    expect((await c.create(burstable)).status).toMatchObject({ qosClass: 'Burstable' });
  });

  it('get, list by label, watch', async () => {
    const events: Ev[] = [];
    const w = await c.watch('v1', 'Pod', 'default', { labelSelector: `w=${idx}` }, (e) => events.push(e));
    try {
      const p = pod(name('listed'));
      p.metadata.labels = { w: String(idx) };
      await c.create(p);
      expect((await c.get(ref(name('listed')))).metadata.uid).toBeTruthy();
      const list = await c.list('v1', 'Pod', 'default', { labelSelector: `w=${idx}` });
      expect(list.items.map((i) => i.metadata.name)).toEqual([name('listed')]);
      for (let i = 0; i < 100 && !events.some((e) => e.type === 'ADDED'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(events.find((e) => e.type === 'ADDED')?.object.metadata.name).toBe(name('listed'));
    } finally {
      w.stop();
    }
  });

  it('the status subresource: written through /status only; a spec change bumps generation', async () => {
    await c.create(pod(name('sub')));
    const running = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const s = await c.patch(ref(name('sub')), 'merge', { status: running }, { subresource: 'status' });
    expect(s.status).toMatchObject({ phase: 'Running', qosClass: 'BestEffort' });
    expect(s.metadata.generation).toBe(1);
    const main = await c.patch(ref(name('sub')), 'merge', {
      status: { phase: 'Failed' },
      spec: { activeDeadlineSeconds: 60 },
    });
    expect(main.status).toMatchObject({ phase: 'Running' });
    expect(main.metadata.generation).toBe(2);
    const image = await c.patch(ref(name('sub')), 'json', [
      { op: 'replace', path: '/spec/containers/0/image', value: 'busybox:2' },
    ]);
    expect(image.metadata.generation).toBe(3);
  });

  it('validation: containers required with a name and an image; the spec is immutable but for images', async () => {
    const err = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: HttpError) => e,
      );
    const none = await err(c.create(pod(name('bad'), { containers: [] })));
    expect(none?.code).toBe(422);
    expect(none?.status?.message).toContain('spec.containers: Required value');
    const noImage = await err(c.create(pod(name('bad'), { containers: [{ name: 'x' }] })));
    expect(noImage?.code).toBe(422);
    expect(noImage?.status?.message).toContain('spec.containers[0].image: Required value');
    await c.create(pod(name('immutable')));
    const changed = await err(c.patch(ref(name('immutable')), 'merge', { spec: { restartPolicy: 'Never' } }));
    expect(changed?.code).toBe(422);
    expect(changed?.status?.message).toContain('pod updates may not change fields other than');
  });

  it('server-side apply merges containers by name and conditions by type across managers', async () => {
    const n = name('ssa');
    const intent = (container: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: n, namespace: 'default' },
        spec: { containers: [{ name: container, image: 'busybox:1' }] },
      }) as KubeObject;
    await c.apply(intent('a'), 'one');
    // A second manager cannot add a container (the spec is immutable), but owns the image it sets on the same key.
    const applied = await c.apply(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: n, namespace: 'default' },
        spec: { containers: [{ name: 'a', image: 'busybox:2' }] },
      } as KubeObject,
      'two',
      { force: true },
    );
    expect((applied.spec as any).containers).toHaveLength(1);
    expect((applied.spec as any).containers[0].image).toBe('busybox:2');
    const statusIntent = (type: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: n, namespace: 'default' },
        status: { conditions: [{ type, status: 'True' }] },
      }) as KubeObject;
    await c.apply(statusIntent('Ready'), 'kubelet', { subresource: 'status' });
    const both = await c.apply(statusIntent('EtcdMemberHealthy'), 'other', { subresource: 'status' });
    expect(((both.status as any).conditions as { type: string }[]).map((x) => x.type).sort()).toEqual([
      'EtcdMemberHealthy',
      'Ready',
    ]);
  });
});

describe('kubectl', () => {
  it('get po shows READY, STATUS, RESTARTS; -o wide the node', async () => {
    await ok(['create', '-f', '-'], YAML.stringify(pod('kubectl-pod', { nodeName: 'node-a' })));
    const restarted = {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'app',
          image: 'busybox:1',
          imageID: '',
          ready: true,
          restartCount: 2,
          started: true,
          state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        },
      ],
    };
    await ok([
      'patch',
      'pod',
      'kubectl-pod',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: restarted }),
    ]);
    const rows = tableRows(await ok(['get', 'po', 'kubectl-pod']));
    expect(rows[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows[1].slice(0, 4)).toEqual(['kubectl-pod', '1/1', 'Running', '2']);
    const wide = tableRows(await ok(['get', 'pods', 'kubectl-pod', '-o', 'wide']));
    expect(wide[0]).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    expect(wide[1].slice(5)).toEqual(['<none>', 'node-a', '<none>', '<none>']);
  });

  it('apply --server-side and patch', async () => {
    await ok(['apply', '--server-side', '-f', '-'], YAML.stringify(pod('kubectl-ssa')));
    await ok(['patch', 'pod', 'kubectl-ssa', '-p', '{"spec":{"containers":[{"name":"app","image":"busybox:3"}]}}']);
    const out = JSON.parse(await ok(['get', 'pod', 'kubectl-ssa', '-o', 'json']));
    expect(out.spec.containers).toHaveLength(1);
    expect(out.spec.containers[0].image).toBe('busybox:3');
    expect(out.metadata.generation).toBe(2);
  });

  // kubectl ≥ 1.31 port-forwards by tunnelling SPDY through a WebSocket (subprotocol SPDY/3.1+portforward.k8s.io, no
  // `ports` query: the ports travel in SPDY stream headers), then falls back to a plain SPDY upgrade. The embedded
  // server speaks neither (no SPDY), so kubectl must fail with a message saying why, not hang.
  itEmbedded('port-forward: kubectl (SPDY) is refused with a clear message', async () => {
    await ok(['create', '-f', '-'], YAML.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'pf-node' } }));
    await ok(['create', '-f', '-'], YAML.stringify(pod('kubectl-pf', { nodeName: 'pf-node' })));
    await ok([
      'patch',
      'pod',
      'kubectl-pf',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Running"}}',
    ]);
    const r = await run(['port-forward', 'pod/kubectl-pf', ':2379', '--pod-running-timeout=5s']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('speaks only the WebSocket protocol');
  });
});
