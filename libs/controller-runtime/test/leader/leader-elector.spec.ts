import { KubeClient, LeaderElector, Lease } from '@capi/controller-runtime';
import { FakeClock } from '@capi/apimachinery/testing';
import { eventually } from '../../src/testing/eventually';
import { FakeApiServer } from '../support/fake-apiserver';
import { decideLease, microTime } from '../../src/leader/lease';

describe('decideLease', () => {
  const lease = (holder: string, transitions = 0): Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'ns', resourceVersion: '5' },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      renewTime: microTime(0),
      acquireTime: microTime(0),
      leaseTransitions: transitions,
    },
  });

  it('creates a missing lease and renews its own', () => {
    expect(
      decideLease({ lease: undefined, identity: 'a', now: 1000, leaseDurationSeconds: 15, observedAt: 1000 }).action,
    ).toBe('create');
    const renew = decideLease({
      lease: lease('a', 2),
      identity: 'a',
      now: 5000,
      leaseDurationSeconds: 15,
      observedAt: 0,
    });
    expect(renew).toEqual({
      action: 'update',
      spec: expect.objectContaining({
        holderIdentity: 'a',
        renewTime: microTime(5000),
        leaseTransitions: 2,
        acquireTime: microTime(0),
      }),
    });
  });

  it('waits while another holder is within its duration, measured from local observation', () => {
    expect(
      decideLease({ lease: lease('b'), identity: 'a', now: 14_999, leaseDurationSeconds: 15, observedAt: 0 }),
    ).toEqual({ action: 'wait', holder: 'b' });
    const takeover = decideLease({
      lease: lease('b', 3),
      identity: 'a',
      now: 15_000,
      leaseDurationSeconds: 15,
      observedAt: 0,
    });
    expect(takeover).toEqual({
      action: 'update',
      spec: expect.objectContaining({ holderIdentity: 'a', leaseTransitions: 4, acquireTime: microTime(15_000) }),
    });
  });

  it('takes a released lease at once without counting a transition from nobody', () => {
    const d = decideLease({ lease: lease('', 1), identity: 'a', now: 1, leaseDurationSeconds: 15, observedAt: 1 });
    expect(d).toEqual({
      action: 'update',
      spec: expect.objectContaining({ holderIdentity: 'a', leaseTransitions: 1 }),
    });
  });

  it('formats MicroTime with microseconds', () => {
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05.678000Z');
  });
});

describe('LeaderElector against a Lease', () => {
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
  const noop = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };

  it('lets one candidate hold the lease; the other takes over only after it expires', async () => {
    const clock = new FakeClock(1_000_000);
    const opts = {
      namespace: 'le1',
      name: 'lock',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    };
    const a = new LeaderElector(client, { ...opts, identity: 'a' }, noop, clock);
    const b = new LeaderElector(client, { ...opts, identity: 'b' }, noop, clock);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.advance(14_000);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.advance(2_000); // b first saw a's record 16 s ago
    expect(await b.tryAcquireOrRenew()).toBe(true);
    const lease = await client.get<Lease>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'le1',
      name: 'lock',
    });
    expect(lease.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1, leaseDurationSeconds: 15 });
    // a's stale view loses on the resourceVersion precondition
    expect(await a.tryAcquireOrRenew()).toBe(false);
  });

  it('runs callbacks, renews, and releases on stop so the next candidate leads at once', async () => {
    const events: string[] = [];
    const opts = { namespace: 'le2', name: 'lock', leaseDurationMs: 60_000, renewDeadlineMs: 5_000, retryPeriodMs: 20 };
    const a = new LeaderElector(
      client,
      { ...opts, identity: 'a' },
      {
        onStartedLeading: () => void events.push('a started'),
        onStoppedLeading: () => void events.push('a stopped'),
      },
    );
    const b = new LeaderElector(
      client,
      { ...opts, identity: 'b' },
      {
        onStartedLeading: () => void events.push('b started'),
        onStoppedLeading: () => void events.push('b stopped'),
      },
    );
    a.start();
    await eventually(() => a.isLeader(), 'a leads');
    b.start();
    const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'le2', name: 'lock' };
    const first = (await client.get<Lease>(ref)).spec!.renewTime;
    await eventually(async () => (await client.get<Lease>(ref)).spec!.renewTime !== first, 'renewal');
    expect(b.isLeader()).toBe(false);
    await a.stop();
    await eventually(() => b.isLeader(), 'b takes over after release'); // well before the 60 s lease duration
    await b.stop();
    expect(events).toEqual(['a started', 'a stopped', 'b started', 'b stopped']);
    expect((await client.get<Lease>(ref)).spec!.holderIdentity).toBe('');
  });

  it('mayAct: true before leading; false once the last renewal is older than the renew deadline', async () => {
    const clock = new FakeClock(2_000_000);
    const opts = { namespace: 'le3', name: 'lock', leaseDurationMs: 15_000, renewDeadlineMs: 10_000 };
    const a = new LeaderElector(client, { ...opts, identity: 'a' }, noop, clock);
    expect(a.mayAct()).toBe(true);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    clock.advance(9_999);
    expect(a.mayAct()).toBe(true);
    clock.advance(1);
    expect(a.mayAct()).toBe(false); // 5 s before another candidate may take the lease over
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(a.mayAct()).toBe(true);
  });

  const leaseWrites = (ns: string) =>
    server.requests.filter((r) => r.method !== 'GET' && r.path.includes(`/namespaces/${ns}/leases`)).length;

  it('a renewal whose read returns after the renew deadline (a pause) writes nothing and steps down', async () => {
    const ns = 'le4';
    const opts = { namespace: ns, name: 'lock', leaseDurationMs: 2_000, renewDeadlineMs: 300, retryPeriodMs: 20 };
    // The read that comes back after a pause: the Lease as it was (still ours), answered 500 ms later.
    let pauseNextRead = false;
    // Counted when the paused read starts: the renewal before it has had its write answered by then (the elector's
    // loop reads, writes, waits), whereas a count taken when the test sets the flag can miss a write in flight.
    let writesBeforePause: number | undefined;
    const pausing = Object.create(client) as KubeClient;
    pausing.tryGet = async (ref) => {
      const lease = await client.tryGet(ref);
      if (pauseNextRead) {
        pauseNextRead = false;
        writesBeforePause = leaseWrites(ns);
        await new Promise((r) => setTimeout(r, 500));
      }
      return lease as never;
    };
    // Taken as it steps down: right after that the elector campaigns again, finds the Lease still its own and renews
    // it, so a count or mayAct() read once the test notices the step-down can see that new term.
    let atStepDown: { writes: number; mayAct: boolean } | undefined;
    const a: LeaderElector = new LeaderElector(
      pausing,
      { ...opts, identity: 'a', releaseOnCancel: false },
      {
        onStartedLeading: () => undefined,
        onStoppedLeading: () => void (atStepDown ??= { writes: leaseWrites(ns), mayAct: a.mayAct() }),
      },
    );
    a.start();
    await eventually(() => a.isLeader(), 'a leads');
    pauseNextRead = true;
    await eventually(() => atStepDown !== undefined, 'a steps down');
    expect(writesBeforePause).toBeDefined();
    expect(atStepDown).toEqual({ writes: writesBeforePause, mayAct: false });
    await a.stop();
  });

  it('a leader that lost the lease does not release it on stop (another candidate holds it)', async () => {
    const ns = 'le5';
    const clock = new FakeClock(3_000_000);
    const opts = {
      namespace: ns,
      name: 'lock',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    };
    const a = new LeaderElector(client, { ...opts, identity: 'a' }, noop, clock);
    const b = new LeaderElector(client, { ...opts, identity: 'b' }, noop, clock);
    a.start();
    await eventually(() => a.isLeader(), 'a leads');
    expect(await b.tryAcquireOrRenew()).toBe(false);
    // a is paused: no renewal for longer than the lease; b takes over.
    clock.advance(16_000);
    expect(await b.tryAcquireOrRenew()).toBe(true);
    await eventually(async () => {
      clock.advance(2_000);
      return !a.isLeader();
    }, 'a steps down');
    const writes = leaseWrites(ns);
    await a.stop();
    expect(leaseWrites(ns)).toBe(writes);
    const lease = await client.get<Lease>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: ns,
      name: 'lock',
    });
    expect(lease.spec?.holderIdentity).toBe('b');
  });

  it('rejects inconsistent durations', () => {
    expect(
      () =>
        new LeaderElector(client, { namespace: 'x', name: 'y', leaseDurationMs: 1000, renewDeadlineMs: 2000 }, noop),
    ).toThrow(/leaseDuration/);
  });
});
