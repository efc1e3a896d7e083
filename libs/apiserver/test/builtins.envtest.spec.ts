// The built-in kinds: Secret, ConfigMap, Event (v1 and events.k8s.io/v1), Lease, Node.
import { startTestServer, type TestServer } from './support/server';
import { HttpError, type TestClient } from './support/test-client';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.stop();
});

describe.each([0, 1])('built-in kinds via client #%i', (idx) => {
  let c: TestClient;
  beforeAll(() => {
    c = ts.clients[idx];
  });

  it('Secret, Lease and both Event groups round-trip', async () => {
    const s = await c.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `s-${idx}`, namespace: 'default' },
      type: 'Opaque',
      data: { k: Buffer.from('v').toString('base64') },
    });
    expect(s.data).toEqual({ k: 'dg==' });
    const lease = await c.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: `l-${idx}`, namespace: 'kube-system' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    });
    expect(lease.spec).toMatchObject({ holderIdentity: 'me' });
    const ev = await c.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `e-${idx}`, namespace: 'default' },
      involvedObject: { kind: 'ConfigMap', name: 'x' },
      reason: 'Tested',
      message: 'hi',
      type: 'Normal',
    });
    expect(ev.reason).toBe('Tested');
    const ev2 = await c.create({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `e2-${idx}`, namespace: 'default' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'test',
      reportingInstance: 'test-1',
      action: 'Test',
      reason: 'Tested',
      type: 'Normal',
    });
    expect(ev2.reportingController).toBe('test');
    const byReason = await c.list('v1', 'Event', 'default', { fieldSelector: 'reason=Tested' });
    expect(byReason.items.map((e) => e.metadata.name)).toContain(`e-${idx}`);
  });

  it('events.k8s.io/v1 and core v1 Events are two views of the same objects', async () => {
    const created = await c.create({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `shared-${idx}`, namespace: 'default' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'ctl',
      reportingInstance: 'ctl-1',
      action: 'Scale',
      reason: 'Scaled',
      type: 'Normal',
      regarding: { kind: 'Widget', name: 'w' },
      note: 'scaled up',
    });
    expect(created).toMatchObject({ apiVersion: 'events.k8s.io/v1', regarding: { name: 'w' }, note: 'scaled up' });
    const core = await c.get({ apiVersion: 'v1', kind: 'Event', name: `shared-${idx}`, namespace: 'default' });
    expect(core).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { kind: 'Widget', name: 'w' },
      message: 'scaled up',
      reportingComponent: 'ctl',
    });
    expect(core.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const listed = await c.list('events.k8s.io/v1', 'Event', 'default', {
      fieldSelector: `metadata.name=shared-${idx}`,
    });
    expect(listed.items[0]).toMatchObject({ note: 'scaled up' });
  });

  it('Node status conditions are a map keyed by type for server-side apply', async () => {
    const name = `node-${idx}`;
    await c.create({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });
    const status = (conditions: unknown[]) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      status: { conditions },
    });
    await c.apply(status([{ type: 'Ready', status: 'True', reason: 'KubeletReady' }]), 'kubelet', {
      subresource: 'status',
    });
    const both = await c.apply(status([{ type: 'MemoryPressure', status: 'False', reason: 'Fine' }]), 'monitor', {
      subresource: 'status',
    });
    expect((both.status as any).conditions.map((x: any) => x.type).sort()).toEqual(['MemoryPressure', 'Ready']);
    const kubelet = both.metadata.managedFields!.find((m) => m.manager === 'kubelet')!;
    expect(kubelet.subresource).toBe('status');
    expect(JSON.stringify(kubelet.fieldsV1)).toContain('k:{\\"type\\":\\"Ready\\"}');
    try {
      await c.apply(status([{ type: 'Ready', status: 'False', reason: 'Broken' }]), 'monitor', {
        subresource: 'status',
      });
      throw new Error('expected a conflict');
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).code).toBe(409);
      expect((e as HttpError).status.details?.causes?.map((x) => x.field)).toEqual(
        expect.arrayContaining(['.status.conditions[type="Ready"].status']),
      );
    }
  });

  it('invalid labels on a built-in kind are 422', async () => {
    try {
      await c.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `bad-labels-${idx}`, namespace: 'default', labels: { 'not valid!': 'x' } },
      });
      throw new Error('expected 422');
    } catch (e) {
      expect((e as HttpError).code).toBe(422);
      expect((e as HttpError).status.details?.causes?.[0]?.field).toMatch(/^metadata\.labels/);
    }
  });
});
