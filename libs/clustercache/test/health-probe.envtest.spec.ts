// The health probe against a real API server behind a proxy that can stop answering: the cluster is disconnected
// after the failure threshold (its Node informer stops, reads fail at once), connection attempts wait the retry
// interval, and once the server answers again the scheduled job connects it again. Intervals are shortened through
// the cache options; the defaults are upstream's (health-probe.spec.ts).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { workloadClusterHealthProbeJob } from '../src/health-probe.job';
import {
  kubeconfigSecretClientProvider,
  WorkloadClusterCache,
  WorkloadClusterConnectionError,
} from '@capi/clustercache';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A TCP proxy to the API server. Not answering: connections are accepted and held, nothing is forwarded. */
class SwitchableProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private answering = true;

  constructor(private readonly target: URL) {
    this.server = createServer((down) => this.accept(down));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, this.target.hostname, resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Switches answering on or off; open connections are cut either way (clients then open new ones). */
  answer(on: boolean): void {
    this.answering = on;
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.answer(false);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => s.destroy());
  }

  private accept(down: Socket): void {
    this.track(down);
    if (!this.answering) return;
    const up = connect(Number(this.target.port), this.target.hostname);
    this.track(up);
    up.on('close', () => down.destroy());
    down.on('close', () => up.destroy());
    down.pipe(up).pipe(down);
  }
}

describe('WorkloadClusterCache health probe (envtest)', () => {
  const probe = { intervalMs: 100, timeoutMs: 300, failureThreshold: 3, connectionCreationRetryIntervalMs: 1500 };
  const cluster = { namespace: 'probe', name: 'c1' };
  const CACHE = Symbol('test.WorkloadClusterCache');
  let env: Envtest;
  let client: KubeClient;
  let proxy: SwitchableProxy;
  let provider: ReturnType<typeof kubeconfigSecretClientProvider>;
  let cache: WorkloadClusterCache;
  let mod: TestingModule | undefined;
  let registry: SchedulerRegistry;

  beforeAll(async () => {
    env = await startEnvtest();
    client = clientFor(env);
    const target = new URL(env.url);
    proxy = new SwitchableProxy(target);
    const port = await proxy.listen();
    const proxied = env.kubeconfig.replace(/server: .*/, `server: ${target.protocol}//${target.hostname}:${port}`);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'probe' } });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'c1-kubeconfig', namespace: 'probe' },
      data: { value: Buffer.from(proxied).toString('base64') },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      spec: { providerID: 'test://n1' },
    });
    provider = kubeconfigSecretClientProvider(client);
    cache = new WorkloadClusterCache(provider, { syncTimeoutMs: 1000, healthProbe: probe });
    mod = await Test.createTestingModule({
      imports: [ScheduleModule.forRoot()],
      providers: [{ provide: CACHE, useValue: cache }, workloadClusterHealthProbeJob(CACHE)],
    }).compile();
    await mod.init();
    registry = mod.get(SchedulerRegistry);
  });

  afterAll(async () => {
    await mod?.close();
    await cache?.closeAll();
    provider?.closeAll();
    await proxy?.close();
    client?.close();
    await env?.stop();
  });

  it('runs the probe as an interval job of the SchedulerRegistry', () => {
    expect(registry.getIntervals()).toEqual([expect.stringMatching(/^workload-cluster-health-probe-\d+$/)]);
  });

  it('disconnects a cluster that stops answering after the failure threshold and reconnects it once it answers', async () => {
    const adds: string[] = [];
    const unsubscribe = cache.watchNodes((_c, node, type) => void (type === 'add' && adds.push(node.metadata.name!)));
    expect((await cache.nodeByProviderID(cluster, 'test://n1'))?.metadata.name).toBe('n1');
    const connectedAt = cache.healthCheckingState(cluster)!.lastProbeSuccessTime!;
    await eventually(() => cache.healthCheckingState(cluster)!.lastProbeSuccessTime! > connectedAt, 'a probe success');
    expect(cache.healthCheckingState(cluster)).toMatchObject({ connected: true, consecutiveFailures: 0 });

    proxy.answer(false);
    await eventually(() => !cache.isWatching(cluster), 'the disconnect');
    const disconnected = cache.healthCheckingState(cluster)!;
    expect(disconnected).toMatchObject({ connected: false, consecutiveFailures: probe.failureThreshold });
    expect(disconnected.retryAt).toBeGreaterThan(Date.now());
    // Reads fail at once with a connection error instead of serving the stopped informer's stale Nodes.
    await expect(cache.nodeByProviderID(cluster, 'test://n1')).rejects.toThrow(WorkloadClusterConnectionError);
    await expect(cache.nodeByProviderID(cluster, 'test://n1')).rejects.toThrow(/is not connected/);

    // Still not answering for two retry intervals: one or two connection attempts (each a failure), not one per tick.
    await sleep(2 * probe.connectionCreationRetryIntervalMs + 200);
    const attempts = cache.healthCheckingState(cluster)!.consecutiveFailures - probe.failureThreshold;
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(2);
    expect(cache.isWatching(cluster)).toBe(false);

    proxy.answer(true);
    await eventually(() => cache.isWatching(cluster), 'the reconnect by the probe job');
    expect(cache.healthCheckingState(cluster)).toMatchObject({ connected: true, consecutiveFailures: 0 });
    expect((await cache.nodeByProviderID(cluster, 'test://n1'))?.metadata.name).toBe('n1');
    // The new informer lists again: its Nodes reach the handlers as adds.
    await eventually(() => adds.length === 2, 'the Node add of the new informer');
    expect(adds).toEqual(['n1', 'n1']);
    unsubscribe();
  });

  it('stops the job with the module', async () => {
    await mod!.close();
    mod = undefined;
    expect(registry.getIntervals()).toEqual([]);
  });
});
