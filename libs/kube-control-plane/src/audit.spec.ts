import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog, AuditRequestCounter, countAuditEvents, type AuditEvent } from './audit';

const ev = (verb: string, uri: string, ref: AuditEvent['objectRef'], extra: Partial<AuditEvent> = {}): AuditEvent => ({
  verb,
  requestURI: uri,
  objectRef: ref,
  user: { username: 'admin' },
  responseStatus: { code: 200 },
  ...extra,
});
const machines = { apiGroup: 'cluster.x-k8s.io', resource: 'machines', namespace: 'ns', name: 'm1' };

describe('countAuditEvents', () => {
  it('keys requests as the embedded server does: apply told from patch by its body, field manager from the query', () => {
    const counts = countAuditEvents([
      ev(
        'patch',
        '/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines/m1?fieldManager=capi-machineset&force=true',
        machines,
        { requestObject: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', metadata: { name: 'm1' } } },
      ),
      ev(
        'patch',
        '/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines/m1/status',
        { ...machines, subresource: 'status' },
        {
          requestObject: { status: { phase: 'Running' } },
          userAgent: 'capi-machine/v0.1.0 (linux)',
          responseStatus: { code: 409 },
        },
      ),
      ev('patch', '/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines/m1?fieldManager=x', machines, {
        requestObject: [{ op: 'remove', path: '/a' }],
      }),
      ev('list', '/api/v1/nodes?limit=500', { resource: 'nodes' }),
      ev('watch', '/api/v1/nodes?watch=true', { resource: 'nodes' }),
      ev('get', '/apis', undefined),
    ]);
    expect(counts.total).toBe(5);
    expect(counts.byVerbResource).toEqual({
      'apply cluster.x-k8s.io/machines': 1,
      'patch cluster.x-k8s.io/machines/status': 1,
      'patch cluster.x-k8s.io/machines': 1,
      'list /nodes': 1,
      'watch /nodes': 1,
    });
    expect(counts.writesByManager).toEqual({
      'apply cluster.x-k8s.io/machines capi-machineset': 1,
      'patch cluster.x-k8s.io/machines/status capi-machine': 1,
      'patch cluster.x-k8s.io/machines x': 1,
    });
    expect(counts.failedWritesByManager).toEqual({ 'patch cluster.x-k8s.io/machines/status capi-machine': 1 });
    expect(counts.byVerb).toEqual({ apply: 1, patch: 2, list: 1, watch: 1 });
    expect(counts.dryRunWritesByManager).toEqual({});
  });

  it('tells dry-run writes (dryRun=All in the request URI) from writes that persist', () => {
    const apply = { requestObject: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' } };
    const counts = countAuditEvents([
      ev(
        'patch',
        '/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines/m1?dryRun=All&fieldManager=kcp',
        machines,
        apply,
      ),
      ev('patch', '/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines/m1?fieldManager=kcp', machines, apply),
      ev('get', '/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines/m1?dryRun=All', machines),
    ]);
    expect(counts.writesByManager).toEqual({ 'apply cluster.x-k8s.io/machines kcp': 2 });
    expect(counts.dryRunWritesByManager).toEqual({ 'apply cluster.x-k8s.io/machines kcp': 1 });
  });
});

describe('AuditRequestCounter', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'audit-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts one user's requests between its barriers, leaving out the barriers and a partly written line", async () => {
    const path = join(dir, 'audit.log');
    writeFileSync(path, '');
    const line = (e: AuditEvent) => appendFileSync(path, `${JSON.stringify(e)}\n`);
    // The probe stands for the barrier GET: the server logs it after what came before, and may be writing a later
    // request's line when the log is read.
    let tail = '';
    const counter = new AuditRequestCounter(new AuditLog(path), 'admin', async (name) => {
      line(ev('get', `/x/${name}`, { resource: 'configmaps', name }));
      appendFileSync(path, tail);
    });
    line(ev('create', '/api/v1/namespaces/ns/configmaps?fieldManager=before', { resource: 'configmaps' }));
    await counter.reset();
    line(ev('create', '/api/v1/namespaces/ns/configmaps?fieldManager=mine', { resource: 'configmaps' }));
    line(
      ev(
        'create',
        '/api/v1/namespaces/ns/configmaps?fieldManager=apiserver',
        { resource: 'configmaps' },
        { user: { username: 'system:apiserver' } },
      ),
    );
    expect((await counter.counts()).writesByManager).toEqual({ 'create /configmaps mine': 1 });
    tail = '{"verb":"crea';
    expect((await counter.counts()).total).toBe(1);
  });
});
