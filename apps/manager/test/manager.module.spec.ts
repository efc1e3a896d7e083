import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type INestApplicationContext,
  type OnModuleInit,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Counter, Registry } from 'prom-client';
import YAML from 'yaml';
import { renderKubeconfig } from '@capi/apiserver';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import {
  FEATURE_GATES,
  FeatureGates,
  KUBE_CLIENT,
  MANAGER,
  METRICS_REGISTRY,
  type Client,
  type Manager,
  type Reconciler,
  ReconcilerFor,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTER_CLIENT_OPTIONS } from '@capi/clustercache';
import { KcpControllerModule } from '@capi/kcp';
import { MachineControllerModule } from '@capi/machine';
import { MachineSetModule } from '@capi/machineset';
import { MachineHealthCheckControllerModule } from '@capi/mhc';
import { EXTENSION_CONFIG_MODULE_OPTIONS, ExtensionConfigModule } from '@capi/runtime-client';
import {
  buildManagerModule,
  type CheckRegistry,
  type ControllerName,
  type ControllerRegistry,
  ControllerSetupError,
  ControllerUnavailableError,
  DEFAULT_CONTROLLERS,
  EMBEDDED_ENVIRONMENT,
  type EmbeddedEnvironment,
  EmbeddedProviderModule,
  JsonLogger,
  KUBECONFIG,
  LEADER_ELECTION_ID,
  loadManagerConfig,
  LOGGER,
  type ManagerConfig,
  ManagerEndpoints,
  type ManagerOverrides,
  READINESS_CHECKS,
  selectControllers,
} from '@capi/manager';
import { get } from './support/http';

function config(...argv: string[]): ManagerConfig {
  // Nothing kept on disk and no in-memory provider: these tests are about the manager's own wiring.
  const r = loadManagerConfig([
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--data-dir=',
    '--embedded-provider=false',
    ...argv,
  ]);
  if (r.help) throw new Error('help');
  return r.config;
}

// Start-up includes TLS cert generation for the embedded API server; allow for busy shared cores.
jest.setTimeout(20_000);

const quietLogger = { provide: LOGGER, useValue: JsonLogger.create({ destination: { write: () => undefined } }) };

/** The value of the series with exactly these labels in a Prometheus text exposition (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m && m[1] === name && m[2].split(',').sort().join(',') === want) return Number(m[3]);
  }
  return undefined;
}

/** A stand-in for a controller lib's module: reads the injected gates and kubeconfig like a real controller would. */
@Injectable()
class ProbeController {
  constructor(
    @Inject(FEATURE_GATES) readonly gates: FeatureGates,
    @Inject(KUBECONFIG) readonly kubeconfig: string,
    @Inject(METRICS_REGISTRY) readonly registry: Registry,
  ) {}
}
@Module({ providers: [ProbeController] })
class ProbeModule {}

// Loopback port 1: nothing listens, and no test here needs the API (no controller watches anything).
const fakeKubeconfig = renderKubeconfig({ url: 'https://127.0.0.1:1', token: 'fake', name: 'fake' });
class FakeEmbedded implements EmbeddedEnvironment {
  starts = 0;
  stops = 0;
  async start() {
    this.starts++;
    return { kubeconfig: fakeKubeconfig };
  }
  async stop() {
    this.stops++;
  }
}

const probeRegistry: ControllerRegistry = { ...DEFAULT_CONTROLLERS, kcp: { module: () => ProbeModule } };

const apps: INestApplicationContext[] = [];
async function start(c: ManagerConfig, overrides: ManagerOverrides = {}): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(
    buildManagerModule(c, {
      controllers: probeRegistry,
      ...overrides,
      providers: [quietLogger, ...(overrides.providers ?? [])],
    }),
    { logger: false, abortOnError: false },
  );
  apps.push(app);
  await app.init();
  return app;
}
afterAll(async () => {
  for (const app of apps) await app.close();
});

describe('buildManagerModule: feature gate injection', () => {
  it.each([
    [['--feature-gates=InPlaceUpdates=true'], true],
    [['--feature-gates=InPlaceUpdates=false'], false],
    [[], true], // the embedded default (no --kubeconfig) turns InPlaceUpdates on
  ])('a controller module sees the gates it was given (%j → %s)', async (flags, expected) => {
    const fake = new FakeEmbedded();
    const app = await start(config('--controllers=kcp', ...flags), {
      providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: fake }],
    });
    expect(app.get(ProbeController).gates.enabled('InPlaceUpdates')).toBe(expected);
  });
});

describe('buildManagerModule: the in-memory provider', () => {
  const imports = (c: ManagerConfig) => (buildManagerModule(c).imports ?? []).map((m) => (m as DynamicModule).module);
  it('runs with --embedded-provider against a --kubeconfig API server too, not by default', () => {
    const kubeconfig = ['--kubeconfig=/k', '--metrics-bind-address=0', '--health-probe-bind-address=0'];
    const of = (...argv: string[]) => {
      const r = loadManagerConfig(argv);
      if (r.help) throw new Error('help');
      return r.config;
    };
    expect(imports(of(...kubeconfig))).not.toContain(EmbeddedProviderModule);
    expect(imports(of(...kubeconfig, '--embedded-provider'))).toContain(EmbeddedProviderModule);
    expect(imports(of('--data-dir='))).toContain(EmbeddedProviderModule);
  });
});

describe('buildManagerModule: downstream provider override', () => {
  it('replaces the embedded environment by token, for every module, and starts it before controllers', async () => {
    const fake = new FakeEmbedded();
    const app = await start(config('--controllers=kcp'), {
      providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: fake }],
    });
    expect(fake.starts).toBe(1);
    expect(app.get(ProbeController).kubeconfig).toBe(fakeKubeconfig);
    expect(app.get(EMBEDDED_ENVIRONMENT)).toBe(fake);
    await app.close();
    expect(fake.stops).toBe(1);
  });

  it('replaces the feature gates by token; the FeatureGates class token follows', async () => {
    const gates = FeatureGates.parse('InPlaceUpdates=true,RuntimeSDK=true');
    const app = await start(config('--controllers=kcp'), {
      providers: [
        { provide: EMBEDDED_ENVIRONMENT, useValue: new FakeEmbedded() },
        { provide: FEATURE_GATES, useValue: gates },
      ],
    });
    expect(app.get(ProbeController).gates).toBe(gates);
    expect(app.get(FeatureGates)).toBe(gates);
  });

  it('gives every module the workload cluster client options from --clustercache-client-qps/-burst', async () => {
    const app = await start(
      config('--controllers=kcp', '--clustercache-client-qps=5', '--clustercache-client-burst=6'),
      {
        providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: new FakeEmbedded() }],
      },
    );
    expect(app.get(WORKLOAD_CLUSTER_CLIENT_OPTIONS)).toEqual({ rateLimit: { qps: 5, burst: 6 } });
  });

  it("imports a downstream provider's own modules, which see the global core and controller-runtime tokens", async () => {
    @Injectable()
    class ProviderController {
      constructor(
        @Inject(KUBECONFIG) readonly kubeconfig: string,
        @Inject(KUBE_CLIENT) readonly client: Client,
      ) {}
    }
    @Module({ providers: [ProviderController] })
    class ProviderModule {}
    const app = await start(config('--controllers=kcp'), {
      modules: [ProviderModule],
      providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: new FakeEmbedded() }],
    });
    expect(app.get(ProviderController).kubeconfig).toBe(fakeKubeconfig);
    expect(app.get(ProviderController).client).toBe(app.get(KUBE_CLIENT));
  });

  it('a --kubeconfig without a current cluster fails start-up naming the flag', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'manager-')), 'kubeconfig');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\n');
    const c = config('--controllers=kcp', `--kubeconfig=${file}`);
    await expect(
      start(c, { providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: new FakeEmbedded() }] }),
    ).rejects.toThrow('invalid --kubeconfig: no current cluster');
  });

  it('a --kubeconfig that cannot be read fails start-up naming the flag', async () => {
    const c = config('--controllers=kcp', '--kubeconfig=/nonexistent/kubeconfig');
    await expect(
      start(c, { providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: new FakeEmbedded() }] }),
    ).rejects.toThrow('invalid --kubeconfig: cannot read /nonexistent/kubeconfig: ENOENT');
  });
});

describe('buildManagerModule: metrics and health endpoints', () => {
  let app: INestApplicationContext;
  let endpoints: ManagerEndpoints;
  let cacheSynced = false;

  @Injectable()
  class CacheReadiness implements OnModuleInit {
    constructor(@Inject(READINESS_CHECKS) private readonly checks: CheckRegistry) {}
    onModuleInit() {
      this.checks.add('runtime-client-warm', () => cacheSynced || 'runtime client not warmed up');
    }
  }
  /** A real controller on the manager's client, cache and registry: ConfigMap "broken" fails, "later" requeues. */
  @ReconcilerFor({ name: 'probe-configmap', for: { apiVersion: 'v1', kind: 'ConfigMap' } })
  class ConfigMapProbe implements Reconciler {
    async reconcile(req: Request): Promise<Result | void> {
      if (req.name === 'broken') throw new Error('probe: broken');
      if (req.name === 'later') return { requeueAfterMs: 60_000 };
    }
  }
  @Module({ providers: [CacheReadiness, ProbeController, ConfigMapProbe] })
  class ControllerWithReadiness {}

  beforeAll(async () => {
    // The real embedded environment (in-memory API server, --data-dir=): the probe controller lists, watches and
    // reconciles through it, so the scrape below sees the series of a running controller and its API client.
    app = await start(
      config('--controllers=kcp', '--metrics-bind-address=127.0.0.1:0', '--health-probe-bind-address=127.0.0.1:0'),
      { controllers: { ...probeRegistry, kcp: { module: () => ControllerWithReadiness } } },
    );
    endpoints = app.get(ManagerEndpoints);
  });

  it('serves controller-runtime metrics from the injected registry', async () => {
    const registry = app.get<Registry>(METRICS_REGISTRY);
    (registry.getSingleMetric('controller_runtime_reconcile_total') as Counter<string>).inc({
      controller: 'kcp',
      result: 'success',
    });
    const res = await get(endpoints.metrics!.port, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toContain('text/plain');
    expect(res.body).toContain('controller_runtime_reconcile_total{controller="kcp",result="success"} 1');
    for (const name of [
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'workqueue_depth',
      'process_cpu_user_seconds_total',
    ]) {
      expect(res.body).toContain(`# TYPE ${name}`);
    }
  });

  it("a running controller's reconcile, workqueue and REST client series, shaped as controller-runtime's", async () => {
    const client = app.get<Client>(KUBE_CLIENT);
    for (const name of ['ok', 'broken', 'later'])
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
    const scrape = async () => (await get(endpoints.metrics!.port, '/metrics')).body;
    const c = { controller: 'probe-configmap' };
    const q = { controller: 'probe-configmap', name: 'probe-configmap' };
    // "broken" fails and is retried with backoff (two errors at least), "later" asks for a requeue in a minute.
    await eventually(async () => {
      const text = await scrape();
      return (
        (sample(text, 'controller_runtime_reconcile_errors_total', c) ?? 0) >= 2 &&
        sample(text, 'controller_runtime_reconcile_total', { ...c, result: 'requeue_after' }) === 1
      );
    }, 'errors and a requeue_after');
    const body = await scrape();
    for (const [name, type] of [
      ['controller_runtime_terminal_reconcile_errors_total', 'counter'],
      ['controller_runtime_reconcile_panics_total', 'counter'],
      ['controller_runtime_reconcile_timeouts_total', 'counter'],
      ['controller_runtime_active_workers', 'gauge'],
      ['controller_runtime_max_concurrent_reconciles', 'gauge'],
      ['workqueue_work_duration_seconds', 'histogram'],
      ['workqueue_unfinished_work_seconds', 'gauge'],
      ['workqueue_longest_running_processor_seconds', 'gauge'],
      ['rest_client_requests_total', 'counter'],
    ])
      expect(body).toContain(`# TYPE ${name} ${type}\n`);
    const at = (name: string, labels: Record<string, string>) => sample(body, name, labels);
    expect(at('controller_runtime_reconcile_total', { ...c, result: 'success' })).toBeGreaterThanOrEqual(1);
    expect(at('controller_runtime_reconcile_total', { ...c, result: 'requeue_after' })).toBe(1);
    expect(at('controller_runtime_reconcile_total', { ...c, result: 'error' })).toBeGreaterThanOrEqual(2);
    expect(at('controller_runtime_reconcile_panics_total', c)).toBe(0);
    expect(at('controller_runtime_terminal_reconcile_errors_total', c)).toBe(0);
    expect(at('controller_runtime_max_concurrent_reconciles', c)).toBe(1);
    expect([0, 1]).toContain(at('controller_runtime_active_workers', c));
    expect(at('controller_runtime_reconcile_time_seconds_count', c)).toBeGreaterThanOrEqual(4);
    expect(at('controller_runtime_reconcile_time_seconds_bucket', { ...c, le: '0.005' })).toBeDefined();
    expect(at('workqueue_adds_total', q)).toBeGreaterThanOrEqual(3);
    expect(at('workqueue_retries_total', q)).toBeGreaterThanOrEqual(3); // 2+ backoffs and one RequeueAfter
    expect(at('workqueue_depth', { ...q, priority: '' })).toBeGreaterThanOrEqual(0);
    expect(at('workqueue_work_duration_seconds_count', q)).toBeGreaterThanOrEqual(4);
    expect(at('workqueue_queue_duration_seconds_bucket', { ...q, le: '1e-8' })).toBeDefined();
    expect(at('workqueue_unfinished_work_seconds', q)).toBeGreaterThanOrEqual(0);
    expect(at('workqueue_longest_running_processor_seconds', q)).toBeGreaterThanOrEqual(0);
    // The API client's requests by HTTP method and the embedded server's host:port; the list and watch are GETs.
    const host = app.get<string>(KUBECONFIG).match(/server: https:\/\/([^\s/]+)/)![1];
    expect(at('rest_client_requests_total', { code: '201', host, method: 'POST' })).toBeGreaterThanOrEqual(3);
    expect(at('rest_client_requests_total', { code: '200', host, method: 'GET' })).toBeGreaterThanOrEqual(1);
    expect(body).not.toMatch(/rest_client_requests_total\{[^}]*method="(get|list|create|watch)"/);
  });

  it('/readyz runs checks registered by modules; /healthz and /livez stay ok', async () => {
    const port = endpoints.health!.port;
    expect((await get(port, '/healthz')).status).toBe(200);
    expect(await get(port, '/livez')).toEqual(expect.objectContaining({ status: 200, body: 'ok' }));
    // The webhook server's StartedChecker is a liveness check too, as upstream core/main.go adds it to healthz.
    expect((await get(port, '/livez?verbose')).body).toBe('[+]ping ok\n[+]webhook ok\nlivez check passed\n');
    const notReady = await get(port, '/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain('[-]runtime-client-warm failed: runtime client not warmed up');
    expect(notReady.body).toContain('[+]manager-started ok');
    expect(notReady.body).toContain('[+]informers-synced ok');
    expect((await get(port, '/livez')).status).toBe(200); // liveness does not wait for readiness
    cacheSynced = true;
    expect(await get(port, '/readyz')).toEqual(expect.objectContaining({ status: 200, body: 'ok' }));
  });
});

describe('controller selection', () => {
  it('skips a gated controller when defaulted, rejects it when asked for', () => {
    const registry: ControllerRegistry = Object.fromEntries(
      Object.keys(DEFAULT_CONTROLLERS).map((k) => [
        k,
        { module: () => ProbeModule, gate: k === 'extensionconfig' ? 'RuntimeSDK' : undefined },
      ]),
    ) as ControllerRegistry;
    const defaulted = selectControllers(config('--feature-gates=RuntimeSDK=false'), registry);
    expect(defaulted.enabled).toEqual(['cluster', 'kcp', 'machineset', 'machine', 'mhc']);
    expect(defaulted.skipped).toEqual([{ name: 'extensionconfig', reason: 'feature gate RuntimeSDK is disabled' }]);
    const on = selectControllers(config(), registry);
    expect(on.enabled).toContain('extensionconfig');
    const asked = {
      ...config('--controllers=kcp', '--feature-gates=RuntimeSDK=false'),
      controllers: ['extensionconfig' as const],
    };
    expect(() => selectControllers(asked, registry)).toThrow(ControllerUnavailableError);
  });

  it('InPlaceUpdates without a runtime client is a setup error naming the in-place controllers (upstream SetupWithManager)', () => {
    const registry: ControllerRegistry = Object.fromEntries(
      Object.entries(DEFAULT_CONTROLLERS).map(([k, e]) => [
        k,
        { module: () => ProbeModule, gate: e.gate, inPlace: e.inPlace },
      ]),
    ) as ControllerRegistry;
    // The embedded default turns InPlaceUpdates on; RuntimeSDK off skips extensionconfig -> nothing provides RUNTIME_CLIENT.
    expect(() => selectControllers(config('--feature-gates=RuntimeSDK=false'), registry)).toThrow(
      new ControllerSetupError(
        'unable to create controller(s) kcp, machineset, machine: RuntimeClient must not be nil when InPlaceUpdates feature gate is enabled: the RuntimeSDK feature gate is disabled (set --feature-gates=RuntimeSDK=true,InPlaceUpdates=true, or InPlaceUpdates=false)',
      ),
    );
    expect(() => selectControllers(config('--controllers=machine,mhc'), registry)).toThrow(
      /controller\(s\) machine: .*extensionconfig controller, which provides it, is not in --controllers/,
    );
    // Fine: both gates, in-place off, or no in-place controller selected.
    expect(selectControllers(config(), registry).enabled).toEqual([
      'cluster',
      'kcp',
      'machineset',
      'machine',
      'mhc',
      'extensionconfig',
    ]);
    expect(
      selectControllers(config('--feature-gates=RuntimeSDK=false,InPlaceUpdates=false'), registry).enabled,
    ).toEqual(['cluster', 'kcp', 'machineset', 'machine', 'mhc']);
    expect(
      selectControllers(config('--controllers=mhc', '--feature-gates=RuntimeSDK=false'), registry).enabled,
    ).toEqual(['mhc']);
  });

  it('ReconcilerRateLimiting without PriorityQueue is a setup error (upstream util/controller Build); both off is fine', () => {
    const registry: ControllerRegistry = Object.fromEntries(
      Object.entries(DEFAULT_CONTROLLERS).map(([k, e]) => [
        k,
        { module: () => ProbeModule, gate: e.gate, inPlace: e.inPlace },
      ]),
    ) as ControllerRegistry;
    expect(() =>
      selectControllers(config('--controllers=mhc', '--feature-gates=PriorityQueue=false'), registry),
    ).toThrow(
      new ControllerSetupError(
        'unable to create controller(s) mhc: if feature gate ReconcilerRateLimiting is enabled, feature gate PriorityQueue must be enabled as well',
      ),
    );
    const off = config('--controllers=mhc', '--feature-gates=PriorityQueue=false,ReconcilerRateLimiting=false');
    expect(selectControllers(off, registry).enabled).toEqual(['mhc']);
  });

  it('the extensionconfig controller gets the runtime extension client certificate files; an unreadable one fails start-up', async () => {
    const c = config(
      '--controllers=extensionconfig',
      '--feature-gates=RuntimeSDK=true',
      '--runtime-extension-client-cert-file=/nonexistent/tls.crt',
      '--runtime-extension-client-key-file=/nonexistent/tls.key',
      // The start-up fails after the webhook server started, and a failed start leaves no app to close it.
      '--webhook-port=0',
    );
    await expect(
      start(c, {
        controllers: DEFAULT_CONTROLLERS,
        providers: [{ provide: EMBEDDED_ENVIRONMENT, useValue: new FakeEmbedded() }],
      }),
    ).rejects.toThrow(/failed to read runtime extension client certificate: ENOENT.*\/nonexistent\/tls\.crt/);
  });

  it('every default controller resolves to its lib module', () => {
    for (const [name, entry] of Object.entries(DEFAULT_CONTROLLERS))
      expect([name, typeof entry.module()]).toEqual([name, expect.stringMatching(/^(object|function)$/)]);
  });

  it("each default controller is its lib's module, built by forRoot() (the extensionconfig one from the config)", () => {
    const built = (name: ControllerName, c?: ManagerConfig) => DEFAULT_CONTROLLERS[name].module(c) as DynamicModule;
    expect(built('kcp').module).toBe(KcpControllerModule);
    expect(built('machineset').module).toBe(MachineSetModule);
    expect(built('machine').module).toBe(MachineControllerModule);
    expect(built('mhc').module).toBe(MachineHealthCheckControllerModule);
    const extensionconfig = built(
      'extensionconfig',
      config('--runtime-extension-client-cert-file=/c.pem', '--runtime-extension-client-key-file=/k.pem'),
    );
    expect(extensionconfig.module).toBe(ExtensionConfigModule);
    expect(extensionconfig.providers).toContainEqual({
      provide: EXTENSION_CONFIG_MODULE_OPTIONS,
      useValue: { clientCertificateFiles: { certFile: '/c.pem', keyFile: '/k.pem' } },
    });
  });

  it('buildManagerModule surfaces a controller module that cannot be built instead of running without it', () => {
    const withoutKcp: ControllerRegistry = {
      ...DEFAULT_CONTROLLERS,
      kcp: {
        module: () => {
          throw new ControllerUnavailableError('kcp', 'its module failed to build');
        },
      },
    };
    expect(() => buildManagerModule(config('--controllers=kcp'), { controllers: withoutKcp })).toThrow(
      ControllerUnavailableError,
    );
  });
});

describe('embedded default (ApiServer)', () => {
  it('without --kubeconfig the manager starts the embedded API server and yields a working kubeconfig', async () => {
    const app = await start(config('--controllers='));
    const kc = YAML.parse(app.get<string>(KUBECONFIG));
    const cluster = kc.clusters[0].cluster;
    const user = kc.users[0].user;
    expect(cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        `${cluster.server}/api/v1/namespaces/default`,
        {
          ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
          headers: { authorization: `Bearer ${user.token}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    await app.close();
  });

  it('--embedded-workload-servers=child-process: the in-memory provider starts workload clusters in a child process that exits with the manager', async () => {
    const c = loadManagerConfig([
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--data-dir=',
      '--controllers=',
      '--embedded-workload-servers=child-process',
    ]);
    if (c.help) throw new Error('help');
    const app = await start(c.config);
    const workloads = app.get<WorkloadClusters>(WORKLOAD_CLUSTERS, { strict: false });
    const running = await workloads.ensure({ namespace: 'default', name: 'w', uid: 'uid-w' });
    const pid = workloads.serversPid()!;
    expect(pid).not.toBe(process.pid);
    expect(running.server.alive).toBe(true);
    await app.close();
    expect(() => process.kill(pid, 0)).toThrow(); // gone with the manager
  });

  it('--leader-elect makes the controller-runtime Manager take the upstream lease', async () => {
    const app = await start(config('--controllers=', '--leader-elect', '--leader-elect-retry-period=100ms'));
    const manager = app.get<Manager>(MANAGER);
    await manager.elected();
    expect(manager.isLeader()).toBe(true);
    const client = app.get<Client>(KUBE_CLIENT);
    const lease = await client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'default',
      name: LEADER_ELECTION_ID,
    });
    expect((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity).toBeTruthy();
    await app.close();
  });
});
