import { KubeClient, LeadershipFence, LeadershipLostError, Manager } from '@capi/controller-runtime';
import { eventually } from '../../src/testing/eventually';
import { FakeApiServer } from '../support/fake-apiserver';

describe('Manager', () => {
  let server: FakeApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await new FakeApiServer().start();
    client = new KubeClient(server.kubeConfig());
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });
  const forWidgets = { apiVersion: 'test.capi.io/v1', kind: 'Widget' };

  it('stops its controllers and reports when another holder takes the lease', async () => {
    let lost = 0;
    const reconciled: string[] = [];
    const manager = new Manager({
      client,
      namespace: 'mgr1',
      leaderElection: {
        namespace: 'mgr1',
        name: 'lock',
        identity: 'me',
        leaseDurationMs: 1000,
        renewDeadlineMs: 150,
        retryPeriodMs: 20,
      },
      onLeadershipLost: () => lost++,
    });
    let listened = 0;
    manager.onLeadershipLost(() => listened++);
    manager.addController({ reconcile: async (r) => void reconciled.push(r.name) }, { name: 'w', for: forWidgets });
    await manager.start();
    await manager.elected();
    expect(manager.controller('w')).toBeDefined();
    const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'mgr1', name: 'lock' };
    const lease = await client.get(ref);
    await client.update({
      ...lease,
      spec: { ...(lease.spec as object), holderIdentity: 'thief', leaseDurationSeconds: 3600 },
    });
    // A slow renewal under load may already have cost (and regained) the lease once; the thief's lease is final.
    await eventually(() => lost >= 1 && !manager.isLeader(), 'leadership lost');
    expect(listened).toBe(lost);
    expect(manager.controller('w')).toBeUndefined();
    await client.create({
      apiVersion: 'test.capi.io/v1',
      kind: 'Widget',
      metadata: { name: 'late', namespace: 'mgr1' },
    });
    await manager.stop();
    expect(reconciled).not.toContain('late');
    expect((await client.get(ref)).spec).toMatchObject({ holderIdentity: 'thief' }); // not ours to release
  });

  it('a leader paused past its renew deadline writes nothing when it resumes, before its renew loop runs', async () => {
    const fence = new LeadershipFence();
    const fenced = new KubeClient(server.kubeConfig(), { fence });
    const outcome: unknown[] = [];
    const manager = new Manager({
      client: fenced,
      fence,
      namespace: 'mgr-paused',
      leaderElection: {
        namespace: 'mgr-paused',
        name: 'lock',
        identity: 'paused',
        leaseDurationMs: 2000,
        renewDeadlineMs: 1000,
        retryPeriodMs: 100,
      },
    });
    const widget = (name: string) => ({
      apiVersion: 'test.capi.io/v1',
      kind: 'Widget',
      metadata: { name, namespace: 'mgr-paused' },
    });
    manager.addController(
      {
        reconcile: async (r) => {
          if (r.name !== 'pause-me') return;
          await fenced.create(widget('written-while-leading'));
          // The whole process stops (SIGSTOP, a frozen VM) for longer than the renew deadline, mid-reconcile.
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
          outcome.push(await fenced.create(widget('written-after-pause')).catch((e: unknown) => e));
        },
      },
      { name: 'w', for: forWidgets },
    );
    await manager.start();
    await manager.elected();
    await client.create(widget('pause-me'));
    await eventually(() => outcome.length === 1, 'the paused reconcile resumed');
    await manager.stop();
    fenced.close();
    expect(outcome[0]).toBeInstanceOf(LeadershipLostError);
    expect((outcome[0] as Error).message).toBe(
      'create Widget refused: leader election lost (the lease was not renewed within the renew deadline)',
    );
    const names = (await client.list('test.capi.io/v1', 'Widget', { namespace: 'mgr-paused' })).items.map(
      (w) => w.metadata.name,
    );
    expect(names.sort()).toEqual(['pause-me', 'written-while-leading']);
  });

  it('rejects duplicate controller names and a second start', async () => {
    const manager = new Manager({ client, namespace: 'mgr2' });
    manager.addController({ reconcile: async () => undefined }, { name: 'x', for: forWidgets });
    expect(() => manager.addController({ reconcile: async () => undefined }, { name: 'x', for: forWidgets })).toThrow(
      /already registered/,
    );
    await manager.start();
    await expect(manager.start()).rejects.toThrow(/cannot start/);
    await manager.stop();
  });

  it('fails start with a clear error when caches cannot sync', async () => {
    const manager = new Manager({ client, namespace: 'mgr3', cacheSyncTimeoutMs: 200 });
    manager.addController(
      { reconcile: async () => undefined },
      { name: 'y', for: { apiVersion: 'missing.capi.io/v1', kind: 'Nope' } },
    );
    await expect(manager.start()).rejects.toThrow(/did not sync/);
    await manager.stop();
  });
});
