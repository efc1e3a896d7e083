import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { Registry } from 'prom-client';
import {
  annotationChangedPredicate,
  anyOf,
  generationChangedPredicate,
  ItemExponentialFailureRateLimiter,
  KubeClient,
  Manager,
  MapContext,
  ReconcileContext,
  Request,
  Result,
  STRUCTURED_LOGGER,
} from '@capi/controller-runtime';
import { eventually } from '../../src/testing/eventually';
import { FakeApiServer } from '../support/fake-apiserver';
import { coalesceDelayMs, decideRequeue } from '../../src/controller/controller';
import { controllerOwnerRequests } from '../../src/controller/mapping';
import { KubeObject } from '@capi/apimachinery';
import { statusOnlyUpdate } from '../../src/controller/predicates';

const meta = (over: Partial<KubeObject['metadata']>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'x', namespace: 'ns', ...over },
});

describe('controller decisions', () => {
  it('maps reconcile outcomes to queue actions', () => {
    expect(decideRequeue(undefined, new Error('x'))).toEqual({ outcome: 'error' });
    expect(decideRequeue({ requeueAfterMs: 50, requeue: true }, undefined)).toEqual({
      outcome: 'requeue_after',
      afterMs: 50,
    });
    expect(decideRequeue({ requeue: true }, undefined)).toEqual({ outcome: 'requeue' });
    expect(decideRequeue(undefined, undefined)).toEqual({ outcome: 'success' });
    expect(decideRequeue({ requeueAfterMs: 0 }, undefined)).toEqual({ outcome: 'success' });
  });

  it('delays child events by a multiple of the last reconcile duration, capped, and not at all when cheap or off', () => {
    const policy = { factor: 4, maxDelayMs: 1000 };
    expect(coalesceDelayMs(undefined, 500)).toBe(0);
    expect(coalesceDelayMs(policy, undefined)).toBe(0);
    expect(coalesceDelayMs(policy, 1)).toBe(0);
    expect(coalesceDelayMs(policy, 50)).toBe(200);
    expect(coalesceDelayMs(policy, 800)).toBe(1000);
  });

  it('tells status-only updates from any other change', () => {
    const a = {
      ...meta({ generation: 1, resourceVersion: '1', labels: { l: 'a' } }),
      spec: { n: 1 },
      status: { r: 1 },
    };
    const statusWrite = {
      ...a,
      metadata: { ...a.metadata, resourceVersion: '2', managedFields: [{ manager: 'm' }] },
      status: { r: 2 },
    };
    expect(statusOnlyUpdate(a, statusWrite)).toBe(true);
    expect(statusOnlyUpdate(a, { ...statusWrite, metadata: { ...statusWrite.metadata, generation: 2 } })).toBe(false);
    expect(statusOnlyUpdate(a, { ...statusWrite, spec: { n: 2 } })).toBe(false);
    expect(statusOnlyUpdate(a, { ...statusWrite, metadata: { ...statusWrite.metadata, labels: { l: 'b' } } })).toBe(
      false,
    );
    expect(
      statusOnlyUpdate(a, { ...statusWrite, metadata: { ...statusWrite.metadata, annotations: { x: 'y' } } }),
    ).toBe(false);
    expect(statusOnlyUpdate(a, { ...statusWrite, metadata: { ...statusWrite.metadata, finalizers: ['f'] } })).toBe(
      false,
    );
    expect(
      statusOnlyUpdate(a, {
        ...statusWrite,
        metadata: { ...statusWrite.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      }),
    ).toBe(false);
  });

  it('maps owned objects to their controller owner of the right group and kind', () => {
    const owned = meta({
      ownerReferences: [
        { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'other', uid: '1' },
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'ms', uid: '2', controller: true },
      ],
    });
    expect(controllerOwnerRequests(owned, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet' })).toEqual([
      { namespace: 'ns', name: 'ms' },
    ]);
    expect(controllerOwnerRequests(owned, { apiVersion: 'other.io/v1', kind: 'MachineSet' })).toEqual([]);
    expect(controllerOwnerRequests(meta({}), { apiVersion: 'v1', kind: 'X' })).toEqual([]);
  });

  it('filters updates with generation and annotation predicates', () => {
    const a = meta({ generation: 1, annotations: { k: 'v' } });
    expect(generationChangedPredicate.update!(a, meta({ generation: 1 }))).toBe(false);
    expect(generationChangedPredicate.update!(a, meta({ generation: 2 }))).toBe(true);
    expect(annotationChangedPredicate.update!(a, meta({ annotations: { k: 'v' } }))).toBe(false);
    expect(annotationChangedPredicate.update!(a, meta({ annotations: { k: 'w' } }))).toBe(true);
    const either = anyOf(generationChangedPredicate, annotationChangedPredicate);
    expect(either.update!(a, meta({ generation: 1, annotations: {} }))).toBe(true);
    expect(either.update!(a, meta({ generation: 1, annotations: { k: 'v' } }))).toBe(false);
  });
});

describe('Controller in a Manager', () => {
  let server: FakeApiServer;
  let client: KubeClient;
  let manager: Manager | undefined;
  beforeAll(async () => {
    server = await new FakeApiServer().start();
    client = new KubeClient(server.kubeConfig());
  });
  afterEach(async () => {
    await manager?.stop();
    manager = undefined;
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const widget = (ns: string, name: string): KubeObject => ({
    apiVersion: 'test.capi.io/v1',
    kind: 'Widget',
    metadata: { name, namespace: ns },
    spec: {},
  });

  /** `count` Gadgets controlled by the Widget `owner`, created 15 ms apart: a burst of child events for it. */
  const createChildBurst = async (ns: string, owner: KubeObject, count: number) => {
    const ownerReferences = [
      {
        apiVersion: 'test.capi.io/v1',
        kind: 'Widget',
        name: owner.metadata.name!,
        uid: owner.metadata.uid!,
        controller: true,
      },
    ];
    for (let i = 0; i < count; i++) {
      await client.create({
        apiVersion: 'test.capi.io/v1',
        kind: 'Gadget',
        metadata: { name: `g${i}`, namespace: ns, ownerReferences },
      });
      await new Promise((r) => setTimeout(r, 15));
    }
  };

  it('reconciles for-objects, owned objects via owner, and mapped watches; retries errors with backoff', async () => {
    const ns = 'ctl1';
    const calls: string[] = [];
    let failuresLeft = 2;
    const registry = new Registry();
    manager = new Manager({ client, registry, namespace: ns });
    manager.addController(
      {
        reconcile: async (req: Request): Promise<Result | void> => {
          calls.push(req.name);
          if (req.name === 'flaky' && failuresLeft-- > 0) throw new Error('not yet');
        },
      },
      {
        name: 'widget',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        owns: [{ apiVersion: 'test.capi.io/v1', kind: 'Gadget' }],
        watches: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            map: (o) =>
              o.metadata.labels?.widget ? [{ namespace: o.metadata.namespace, name: o.metadata.labels.widget }] : [],
          },
        ],
        rateLimiter: new ItemExponentialFailureRateLimiter(
          { baseDelayMs: 1 },
          (r: Request) => `${r.namespace}/${r.name}`,
        ),
      },
    );
    const w = await client.create(widget(ns, 'w1'));
    await manager.start();
    await eventually(() => calls.includes('w1'), 'initial reconcile');
    calls.length = 0;
    await client.create({
      apiVersion: 'test.capi.io/v1',
      kind: 'Gadget',
      metadata: {
        name: 'g',
        namespace: ns,
        ownerReferences: [
          { apiVersion: 'test.capi.io/v1', kind: 'Widget', name: 'w1', uid: w.metadata.uid!, controller: true },
        ],
      },
    });
    await eventually(() => calls.includes('w1'), 'owner reconcile');
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: ns, labels: { widget: 'mapped' } },
    });
    await eventually(() => calls.includes('mapped'), 'mapped reconcile');
    await client.create(widget(ns, 'flaky'));
    await eventually(() => calls.filter((c) => c === 'flaky').length === 3, 'retries until success');
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_errors_total\{controller="widget"\} 2/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="widget",result="error"\} 2/);
    expect(text).toContain('controller_runtime_reconcile_panics_total{controller="widget"} 0');
    expect(text).toMatch(/controller_runtime_reconcile_time_seconds_count\{controller="widget"\} [1-9]/);
    expect(text).toContain('workqueue_retries_total{controller="widget",name="widget"} 2');
    expect(text).toMatch(/workqueue_adds_total\{controller="widget",name="widget"\} [1-9]/);
    expect(text).toMatch(/workqueue_work_duration_seconds_count\{controller="widget",name="widget"\} [1-9]/);
  });

  it('coalesces a burst of owned-object events into few reconciles once the owner reconcile is known to be slow', async () => {
    const ns = 'ctl-coalesce';
    let calls = 0;
    manager = new Manager({ client, namespace: ns });
    manager.addController(
      {
        reconcile: async () => {
          calls++;
          await new Promise((r) => setTimeout(r, 40));
        },
      },
      {
        name: 'coalesce',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        owns: [{ apiVersion: 'test.capi.io/v1', kind: 'Gadget' }],
        coalesceSecondaryEvents: { factor: 10, maxDelayMs: 400 },
      },
    );
    const w = await client.create(widget(ns, 'owner'));
    await manager.start();
    await eventually(() => calls === 1, 'initial reconcile');
    // 15 child events spread over ~250 ms, within the 400 ms coalescing window: without coalescing, each reconcile
    // (40 ms) would be followed by another for the events that arrived meanwhile (6 or more in all).
    await createChildBurst(ns, w, 15);
    await eventually(() => calls >= 2, 'owner reconciled after the burst');
    await new Promise((r) => setTimeout(r, 600));
    expect(calls).toBeLessThanOrEqual(3);
  });

  it('with ReconcilerRateLimiting, reconciles an object at most once per interval, however many events, and not a requeue sooner', async () => {
    const ns = 'ctl-rate-limit';
    const starts: number[] = [];
    manager = new Manager({ client, namespace: ns, reconcilerRateLimiting: true, rateLimitIntervalMs: 300 });
    manager.addController(
      {
        reconcile: async () => {
          starts.push(Date.now());
          // Asks for a requeue sooner than the interval: it still waits for it (upstream reconcilerWrapper).
          return starts.length === 2 ? { requeueAfterMs: 10 } : undefined;
        },
      },
      {
        name: 'rate-limited',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        owns: [{ apiVersion: 'test.capi.io/v1', kind: 'Gadget' }],
      },
    );
    const w = await client.create(widget(ns, 'owner'));
    await manager.start();
    await eventually(() => starts.length === 1, 'initial reconcile');
    // Ten child events within ~150 ms: one reconcile for all of them, once the interval has passed.
    await createChildBurst(ns, w, 10);
    await eventually(() => starts.length >= 3, 'reconciled after the burst, then after the requeue');
    await new Promise((r) => setTimeout(r, 400));
    expect(starts).toHaveLength(3);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(290);
  });

  it("coalesces the reconciler's own status writes like child events, and still reconciles spec changes at once", async () => {
    const ns = 'ctl-coalesce-self';
    let calls = 0;
    let specSeen = 0;
    manager = new Manager({ client, namespace: ns });
    manager.addController(
      {
        // Writes a changed status every time, as a MachineDeployment aggregating Machines that keep changing: without
        // coalescing each write would start the next reconcile at once (a busy loop of ~45 ms reconciles).
        reconcile: async (req: Request) => {
          calls++;
          await new Promise((r) => setTimeout(r, 40));
          const w = await client.get<KubeObject & { spec: { n?: number } }>({
            apiVersion: 'test.capi.io/v1',
            kind: 'Widget',
            namespace: ns,
            name: req.name,
          });
          if (w.spec.n === 2) specSeen++;
          await client.updateStatus({ ...w, status: { calls } });
        },
      },
      {
        name: 'coalesce-self',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        coalesceSecondaryEvents: { factor: 10, maxDelayMs: 400 },
      },
    );
    await client.create(widget(ns, 'self'));
    await manager.start();
    await eventually(() => calls >= 2, 'reconciled again after its status write');
    const before = calls;
    await new Promise((r) => setTimeout(r, 800));
    // ~400 ms apart: 2 or 3 in 800 ms (a busy loop makes ~17).
    expect(calls - before).toBeLessThanOrEqual(4);
    expect(calls - before).toBeGreaterThanOrEqual(1);
    await client.patch({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace: ns, name: 'self' }, 'merge', {
      spec: { n: 2 },
    });
    await eventually(() => specSeen > 0, 'spec change reconciled');
  });

  it('never reconciles one object twice at once, honours requeueAfter, and stop waits for in-flight work', async () => {
    const ns = 'ctl2';
    let active = 0;
    let maxActive = 0;
    const running = new Set<string>();
    let overlap = false;
    let count = 0;
    let finishedAfterStop = false;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    manager = new Manager({ client, namespace: ns });
    manager.addController(
      {
        reconcile: async (req) => {
          if (running.has(req.name)) overlap = true;
          running.add(req.name);
          active++;
          maxActive = Math.max(maxActive, active);
          count++;
          if (req.name === 'slow') {
            await gate;
            finishedAfterStop = true;
          } else await new Promise((r) => setTimeout(r, 2));
          running.delete(req.name);
          active--;
          return req.name === 'again' && count < 20 ? { requeueAfterMs: 1 } : undefined;
        },
      },
      { name: 'concurrency', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' }, maxConcurrentReconciles: 3 },
    );
    for (const n of ['a', 'b', 'again']) await client.create(widget(ns, n));
    await manager.start();
    for (let i = 0; i < 5; i++)
      await client.patch({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace: ns, name: 'a' }, 'merge', {
        spec: { i },
      });
    await eventually(() => count >= 20, 'requeueAfter loop');
    expect(overlap).toBe(false);
    expect(maxActive).toBeGreaterThan(1);
    await client.create(widget(ns, 'slow'));
    await eventually(() => running.has('slow'), 'slow reconcile running');
    const stopped = manager.stop();
    setTimeout(release, 20);
    await stopped;
    manager = undefined;
    expect(finishedAfterStop).toBe(true);
  });

  it('gives each reconcile a context (bound logger, reconcileID, signal aborted on stop) and map functions the cache', async () => {
    const ns = 'ctl-ctx';
    const contexts: ReconcileContext[] = [];
    let mapCache: MapContext['cache'] | undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((r) => (started = r));
    manager = new Manager({ client, namespace: ns });
    manager.addController(
      {
        reconcile: async (req, ctx) => {
          contexts.push(ctx);
          if (req.name === 'long') {
            started();
            await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
          }
        },
      },
      {
        name: 'ctx',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        watches: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            map: (o, ctx) => {
              mapCache = ctx.cache;
              return ctx.cache
                .listStored('test.capi.io/v1', 'Widget', { namespace: o.metadata.namespace })
                .map((w) => ({ namespace: w.metadata.namespace, name: w.metadata.name! }));
            },
          },
        ],
      },
    );
    await client.create(widget(ns, 'short'));
    await manager.start();
    await eventually(() => contexts.length === 1, 'first reconcile');
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns } });
    await eventually(() => contexts.length === 2, 'reconcile mapped from the ConfigMap through the cache');
    expect(mapCache).toBe(manager.cache);
    const [first, second] = contexts;
    expect(first.log.fields).toEqual({
      controller: 'ctx',
      controllerGroup: 'test.capi.io',
      controllerKind: 'Widget',
      Widget: { namespace: ns, name: 'short' },
      namespace: ns,
      name: 'short',
      reconcileID: first.reconcileID,
    });
    expect(first.reconcileID).not.toEqual(second.reconcileID);
    expect(first.signal.aborted).toBe(false);

    await client.create(widget(ns, 'long'));
    await running;
    const long = contexts[contexts.length - 1];
    expect(long.signal.aborted).toBe(false);
    await manager.stop(); // returns only once the long reconcile saw the abort and ended
    manager = undefined;
    expect(long.signal.aborted).toBe(true);
  });

  it('logs a failed reconcile as "Reconciler error" with `error`, and one that lost a write race (409) at info', async () => {
    const ns = 'ctl-log';
    const lines: Array<{ level: string; message: unknown; fields: unknown }> = [];
    const record = (level: string) => (message: unknown, fields?: unknown) =>
      void lines.push({ level, message, fields });
    // The app's logger, as the manager installs its JsonLogger (app.useLogger), marked as writing fields as keys.
    Logger.overrideLogger({
      [STRUCTURED_LOGGER]: true,
      log: record('info'),
      error: record('error'),
      warn: record('warn'),
      debug: record('debug'),
    } as LoggerService);
    const failed = new Set<string>();
    manager = new Manager({ client, namespace: ns });
    manager.addController(
      {
        reconcile: async (req) => {
          if (failed.has(req.name)) return;
          failed.add(req.name);
          if (req.name === 'broken') throw new Error('boom');
          // A write from a stale copy: someone else updated the object in between.
          const stale = await client.get({
            apiVersion: 'test.capi.io/v1',
            kind: 'Widget',
            namespace: ns,
            name: req.name,
          });
          await client.update({ ...stale, spec: { by: 'someone else' } });
          await client.update({ ...stale, spec: { by: 'us' } });
        },
      },
      {
        name: 'logs',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1 }, (r: Request) => r.name),
      },
    );
    try {
      await client.create(widget(ns, 'broken'));
      await client.create(widget(ns, 'racy'));
      await manager.start();
      await eventually(() => lines.filter((l) => l.message === 'Reconciler error').length === 2, 'two failures logged');
    } finally {
      Logger.overrideLogger(new ConsoleLogger());
    }
    const failures = lines.filter((l) => l.message === 'Reconciler error');
    const bound = (name: string) => ({
      controller: 'logs',
      controllerGroup: 'test.capi.io',
      controllerKind: 'Widget',
      Widget: { name, namespace: ns },
      namespace: ns,
      name,
      reconcileID: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(failures.find((l) => (l.fields as { name: string }).name === 'broken')).toEqual({
      level: 'error',
      message: 'Reconciler error',
      fields: { ...bound('broken'), err: 'boom' },
    });
    expect(failures.find((l) => (l.fields as { name: string }).name === 'racy')).toEqual({
      level: 'info',
      message: 'Reconciler error',
      fields: { ...bound('racy'), err: expect.stringContaining('the object has been modified') },
    });
  });

  it("runs at most the manager's concurrency for a controller (--*-concurrency), overriding its own default", async () => {
    const ns = 'ctl-capped';
    const registry = new Registry();
    let active = 0;
    let maxActive = 0;
    const reconciled = new Set<string>();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    manager = new Manager({ client, registry, namespace: ns, concurrency: { capped: 2 } });
    manager.addController(
      {
        reconcile: async (req) => {
          active++;
          maxActive = Math.max(maxActive, active);
          await gate;
          reconciled.add(req.name);
          active--;
        },
      },
      { name: 'capped', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' }, maxConcurrentReconciles: 8 },
    );
    const names = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
    for (const n of names) await client.create(widget(ns, n));
    await manager.start();
    await eventually(() => active === 2, 'two reconciles running');
    // Give more workers, if there were any, the chance to pick up the four waiting requests.
    await new Promise((r) => setTimeout(r, 100));
    expect(active).toBe(2);
    const series = async (name: string) => {
      const { values } = await registry.getSingleMetric(name)!.get();
      return values.find((v) => v.labels.controller === 'capped')?.value;
    };
    expect(await series('controller_runtime_active_workers')).toBe(2);
    expect(await series('workqueue_depth')).toBe(names.length - 2);
    // client-go refreshes the unfinished-work gauges every 500 ms while items are in flight.
    await eventually(async () => ((await series('workqueue_longest_running_processor_seconds')) ?? 0) > 0.1, 'gauge');
    expect(await series('workqueue_unfinished_work_seconds')).toBeGreaterThan(0.2);
    release();
    await eventually(() => reconciled.size === names.length, 'all reconciled');
    expect(maxActive).toBe(2);
    expect(await registry.metrics()).toMatch(/controller_runtime_max_concurrent_reconciles\{controller="capped"\} 2/);
    await eventually(async () => (await series('controller_runtime_active_workers')) === 0, 'workers idle');
    expect(await registry.metrics()).toContain(
      `workqueue_work_duration_seconds_count{controller="capped",name="capped"} ${names.length}`,
    );
  });

  it('starts controllers only when elected and releases the lease on stop', async () => {
    const ns = 'ctl3';
    const seen: string[] = [];
    manager = new Manager({
      client,
      namespace: ns,
      leaderElection: {
        namespace: ns,
        name: 'mgr',
        identity: 'me',
        leaseDurationMs: 3000,
        renewDeadlineMs: 2000,
        retryPeriodMs: 50,
      },
    });
    manager.addController(
      { reconcile: async (r) => void seen.push(r.name) },
      { name: 'elected', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' } },
    );
    await client.create(widget(ns, 'x'));
    await manager.start();
    await manager.elected();
    await eventually(() => seen.includes('x'), 'reconcile after election');
    await manager.stop();
    manager = undefined;
    const lease = await client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: ns, name: 'mgr' });
    expect((lease.spec as { holderIdentity: string }).holderIdentity).toBe('');
  });
});
