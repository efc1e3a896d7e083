import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer, RequestMetrics } from '@capi/apiserver';
import { ApiEventRecorder, KubeClient } from '@capi/controller-runtime';
import { type KubeObject } from '@capi/apimachinery';

// The recorder against the embedded API server: what it writes, counted at the server.
describe('ApiEventRecorder against @capi/apiserver', () => {
  let server: ApiServer;
  let client: KubeClient;
  let t = Date.UTC(2026, 5, 1);
  const now = () => new Date(t);
  const machine = (name: string): KubeObject => ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name, namespace: 'default', uid: `${name}-uid` },
  });
  const eventsAbout = async (name: string) =>
    (await client.list<KubeObject & Record<string, any>>('v1', 'Event', { namespace: 'default' })).items.filter(
      (e) => e.involvedObject.name === name,
    );

  beforeAll(async () => {
    server = new ApiServer({ storage: { type: 'memory' }, port: 0, host: '127.0.0.1' });
    await server.start();
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig());
    client = new KubeClient(kc);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('creates a core/v1 Event about the object', async () => {
    const rec = new ApiEventRecorder(client, 'test-controller', now);
    await rec.event(machine('m1'), 'Normal', 'SuccessfulStartInPlaceUpdate', 'Machine starting in-place update');
    expect(await eventsAbout('m1')).toEqual([
      expect.objectContaining({
        reason: 'SuccessfulStartInPlaceUpdate',
        message: 'Machine starting in-place update',
        type: 'Normal',
        count: 1,
        involvedObject: expect.objectContaining({ kind: 'Machine', name: 'm1', uid: 'm1-uid' }),
        source: { component: 'test-controller' },
      }),
    ]);
  });

  it('the same event three times is one Event with count 3: one create and two patches', async () => {
    const rec = new ApiEventRecorder(client, 'test-controller', now);
    server.resetRequests();
    const first = formatted(t);
    for (let i = 0; i < 3; i++) {
      await rec.event(machine('m2'), 'Warning', 'Failed', 'could not start');
      t += 2000;
    }
    const counts = server.countRequests();
    expect(RequestMetrics.writes(counts)).toBe(3);
    expect(counts.byVerb).toMatchObject({ create: 1, patch: 2 });
    expect(await eventsAbout('m2')).toEqual([
      expect.objectContaining({ count: 3, firstTimestamp: first, lastTimestamp: formatted(t - 2000) }),
    ]);
  });

  it('concurrent repeats are written in order onto one Event', async () => {
    const rec = new ApiEventRecorder(client, 'test-controller', now);
    await Promise.all([0, 1, 2, 3].map(() => rec.event(machine('m3'), 'Normal', 'Started', 'started')));
    expect(await eventsAbout('m3')).toEqual([expect.objectContaining({ count: 4 })]);
  });

  it('an Event deleted meanwhile is created again', async () => {
    const rec = new ApiEventRecorder(client, 'test-controller', now);
    await rec.event(machine('m4'), 'Normal', 'Started', 'started');
    const [e] = await eventsAbout('m4');
    await client.delete({ apiVersion: 'v1', kind: 'Event', namespace: 'default', name: e.metadata.name! });
    await rec.event(machine('m4'), 'Normal', 'Started', 'started');
    expect(await eventsAbout('m4')).toEqual([expect.objectContaining({ count: 2, message: 'started' })]);
  });
});

const formatted = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
