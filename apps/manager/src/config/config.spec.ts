import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManagerConfig, isBindAddress, levelFromVerbosity, resolveApiServer, type ManagerConfig } from './config';
import { ConfigError, parseDuration, parseFlags, usage } from './flags';
import { leaderElectionNamespace } from '../manager.module';

function load(argv: string[], env: Record<string, string> = {}): ManagerConfig {
  const r = loadManagerConfig(argv, env);
  if (r.help) throw new Error('unexpected help');
  return r.config;
}

function errorOf(argv: string[], env: Record<string, string> = {}): ConfigError {
  try {
    loadManagerConfig(argv, env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseFlags', () => {
  it('accepts --flag=value and --flag value, bools without a value', () => {
    expect(parseFlags(['--kubeconfig', '/k', '--namespace=ns', '--leader-elect', '--v=2'])).toEqual({
      kubeconfig: '/k',
      namespace: 'ns',
      leaderElect: true,
      v: '2',
    });
    expect(parseFlags(['--leader-elect=false'])).toEqual({ leaderElect: false });
  });

  it('a repeated flag takes its last value (pflag)', () => {
    expect(parseFlags(['--v=1', '--v', '2'])).toEqual({ v: '2' });
  });

  it('rejects unknown flags, missing values and positional args naming the flag', () => {
    expect(() => parseFlags(['--bogus'])).toThrow('invalid --bogus: unknown flag');
    expect(() => parseFlags(['--kubeconfig'])).toThrow('invalid --kubeconfig: flag needs an argument');
    expect(() => parseFlags(['--kubeconfig', '--leader-elect'])).toThrow(
      'invalid --kubeconfig: flag needs an argument',
    );
    expect(() => parseFlags(['--leader-elect=yes'])).toThrow(/invalid --leader-elect: "yes" is not a boolean/);
    expect(() => parseFlags(['extra'])).toThrow(/unexpected argument/);
  });

  it('usage lists every flag with defaults', () => {
    const u = usage();
    for (const f of [
      '--feature-gates',
      '--controllers',
      '--kubeconfig',
      '--leader-elect',
      '--metrics-bind-address',
      '--health-addr',
      '--health-probe-bind-address',
      '--kube-api-qps',
      '--kube-api-burst',
      '--machineset-concurrency',
      '--cluster-concurrency',
      '--heap-growing-percent',
      '--event-ttl',
      '--sync-period',
    ])
      expect(u).toContain(f);
    expect(u).toContain('"127.0.0.1:8080" in the embedded default');
    expect(u).toContain('(default "30")');
  });
});

describe('parseDuration', () => {
  it.each([
    ['15s', 15000],
    ['1m30s', 90000],
    ['250ms', 250],
    ['1.5h', 5400000],
    ['0', 0],
  ])('%s = %d ms', (s, ms) => expect(parseDuration(s)).toBe(ms));
  it.each(['', '15', 's', '1x', '1m 2s'])('rejects %p', (s) => expect(parseDuration(s)).toBeUndefined());
});

describe('isBindAddress', () => {
  it.each([':8080', '0', '127.0.0.1:0', 'localhost:9440', '[::1]:8443', ':65535'])('accepts %s', (a) =>
    expect(isBindAddress(a)).toBe(true),
  );
  it.each(['8080', 'abc', ':65536', ':', 'host:port', '1.2.3.4:80:80', ''])('rejects %p', (a) =>
    expect(isBindAddress(a)).toBe(false),
  );
});

describe('loadManagerConfig', () => {
  it('has upstream defaults', () => {
    const c = load([]);
    expect(load(['--kubeconfig=/k']).featureGates.enabled('InPlaceUpdates')).toBe(false);
    expect(load(['--kubeconfig=/k']).featureGates.enabled('RuntimeSDK')).toBe(false);
    expect(c.dataDir).toBe('.capi');
    expect(c.embeddedProvider).toBe(true);
    expect(c.controllers).toEqual(['cluster', 'kcp', 'machineset', 'machine', 'mhc', 'extensionconfig']);
    expect(c.controllersDefaulted).toBe(true);
    // Embedded default (no --kubeconfig, not in a pod): endpoints on loopback, no client-side rate limit.
    expect(c.metricsBindAddress).toBe('127.0.0.1:8080');
    expect(c.healthProbeBindAddress).toBe('127.0.0.1:9440');
    expect(c.kubeApiRateLimit).toBeUndefined();
    expect(c.clusterCacheClientRateLimit).toBeUndefined();
    // Upstream's defaults (core/main.go, controlplane/kubeadm/main.go at ae7ff047).
    expect(c.concurrency).toEqual({
      kubeadmcontrolplane: 100,
      machinedeployment: 50,
      machineset: 50,
      machine: 100,
      machinehealthcheck: 50,
      extensionconfig: 10,
      cluster: 50,
    });
    // Deployed (--kubeconfig or in a pod): upstream's all-interfaces addresses, 100 QPS / 200 burst to the management
    // cluster and 20 / 30 to each workload cluster.
    const deployed = load(['--kubeconfig=/k']);
    expect(deployed.metricsBindAddress).toBe(':8080');
    expect(deployed.healthProbeBindAddress).toBe(':9440');
    expect(deployed.kubeApiRateLimit).toEqual({ qps: 100, burst: 200 });
    expect(deployed.clusterCacheClientRateLimit).toEqual({ qps: 20, burst: 30 });
    expect(c.kubeconfig).toBeUndefined();
    expect(c.leaderElection).toEqual({
      enabled: false,
      leaseDurationMs: 15000,
      renewDeadlineMs: 10000,
      retryPeriodMs: 2000,
    });
    expect(c.logFormat).toBe('json');
    expect(c.logLevel).toBe('info');
  });

  it('reads every flag', () => {
    const c = load([
      '--feature-gates=InPlaceUpdates=true,RuntimeSDK=true',
      '--controllers',
      'kcp, machineset,kcp',
      '--kubeconfig=/tmp/kc',
      '--namespace=capi',
      '--leader-elect',
      '--leader-elect-lease-duration=30s',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=127.0.0.1:0',
      '--log-format=text',
      '--v=5',
    ]);
    expect(c.featureGates.enabled('InPlaceUpdates')).toBe(true);
    expect(c.controllers).toEqual(['kcp', 'machineset']);
    expect(c.metricsBindAddress).toBe('0');
    expect(c.healthProbeBindAddress).toBe('127.0.0.1:0');
    expect(load(['--health-addr=:9441']).healthProbeBindAddress).toBe(':9441');
    expect(c.controllersDefaulted).toBe(false);
    expect(c.kubeconfig).toBe('/tmp/kc');
    expect(c.namespace).toBe('capi');
    expect(c.leaderElection.enabled).toBe(true);
    expect(c.leaderElection.leaseDurationMs).toBe(30000);
    expect(c.metricsBindAddress).toBe('0');
    expect(c.logFormat).toBe('text');
    expect(c.logLevel).toBe('trace');
  });

  it('--live-view-address: off by default, :port on loopback, a given host as is, bad values rejected', () => {
    expect(load([]).liveView).toBeUndefined();
    expect(load(['--live-view-address=']).liveView).toBeUndefined();
    expect(load(['--live-view-address=:8090']).liveView).toEqual({ host: '127.0.0.1', port: 8090, loopback: true });
    expect(load(['--live-view-address', '0.0.0.0:8090']).liveView).toEqual({
      host: '0.0.0.0',
      port: 8090,
      loopback: false,
    });
    expect(errorOf(['--live-view-address=8090']).message).toMatch(
      /^invalid --live-view-address: "8090" must be host:port/,
    );
  });

  it('--log-level overrides --v', () => {
    expect(load(['--v=3', '--log-level=warn']).logLevel).toBe('warn');
    expect(levelFromVerbosity(2)).toBe('debug');
  });

  it('the embedded default turns RuntimeSDK and InPlaceUpdates on; env seeds and flags win', () => {
    expect(load([]).featureGates.enabled('InPlaceUpdates')).toBe(true);
    expect(load([]).featureGates.enabled('RuntimeSDK')).toBe(true);
    expect(load([], { EXP_IN_PLACE_UPDATES: 'false' }).featureGates.enabled('InPlaceUpdates')).toBe(false);
    expect(load(['--feature-gates=RuntimeSDK=false']).featureGates.enabled('RuntimeSDK')).toBe(false);
    expect(load(['--data-dir=']).dataDir).toBeUndefined();
    expect(load(['--embedded-provider=false']).embeddedProvider).toBe(false);
  });

  it('--embedded-provider: on in the embedded default, off against a given API server unless asked for', () => {
    expect(load([]).embeddedProvider).toBe(true);
    expect(load(['--kubeconfig=/k']).embeddedProvider).toBe(false);
    expect(load(['--kubeconfig=/k', '--embedded-provider']).embeddedProvider).toBe(true);
    expect(
      load(['--kubeconfig=/k', '--embedded-provider', '--embedded-workload-servers=child-process'])
        .embeddedWorkloadServers,
    ).toBe('child-process');
  });

  it('the Lease namespace: --leader-elect-resource-namespace, else --namespace; with --kubeconfig one of them is required', () => {
    const e = errorOf(['--kubeconfig=/k', '--leader-elect']);
    expect(e.flag).toBe('--leader-elect');
    expect(e.message).toContain('--leader-elect-resource-namespace');
    const ns = (argv: string[]) => leaderElectionNamespace(load(argv));
    expect(ns(['--kubeconfig=/k', '--leader-elect', '--leader-elect-resource-namespace=capi-system'])).toBe(
      'capi-system',
    );
    expect(ns(['--kubeconfig=/k', '--leader-elect', '--namespace=capi'])).toBe('capi');
    expect(
      ns(['--kubeconfig=/k', '--leader-elect', '--namespace=capi', '--leader-elect-resource-namespace=capi-system']),
    ).toBe('capi-system');
    expect(ns(['--leader-elect'])).toBe('default'); // the embedded default: its own API server, no RBAC
    expect(load(['--kubeconfig=/k']).leaderElection.enabled).toBe(false); // no Lease, nothing required
  });

  it('--embedded-workload-servers: in-process by default, child-process on request, anything else refused', () => {
    expect(load([]).embeddedWorkloadServers).toBe('in-process');
    expect(load(['--embedded-workload-servers=child-process']).embeddedWorkloadServers).toBe('child-process');
    expect(errorOf(['--embedded-workload-servers=thread']).message).toContain('--embedded-workload-servers');
  });

  it('reads the rate limit and concurrency flags', () => {
    const c = load([
      '--kubeconfig=/k',
      '--kube-api-qps=50.5',
      '--kube-api-burst',
      '100',
      '--machineset-concurrency=3',
      '--kubeadmcontrolplane-concurrency=1',
    ]);
    expect(c.kubeApiRateLimit).toEqual({ qps: 50.5, burst: 100 });
    expect(c.concurrency).toMatchObject({ machineset: 3, kubeadmcontrolplane: 1, machine: 100 });
    expect(load(['--kubeconfig=/k', '--kube-api-qps=-1']).kubeApiRateLimit).toBeUndefined();
    // The embedded default turns the limit on when asked.
    expect(load(['--kube-api-qps=5']).kubeApiRateLimit).toEqual({ qps: 5, burst: 200 });
    // The workload cluster clients' own limit.
    const cache = load(['--kubeconfig=/k', '--clustercache-client-qps=7.5', '--clustercache-client-burst=9']);
    expect(cache.clusterCacheClientRateLimit).toEqual({ qps: 7.5, burst: 9 });
    expect(cache.kubeApiRateLimit).toEqual({ qps: 100, burst: 200 });
    expect(load(['--kubeconfig=/k', '--clustercache-client-qps=-1']).clusterCacheClientRateLimit).toBeUndefined();
    expect(load(['--clustercache-client-qps=3']).clusterCacheClientRateLimit).toEqual({ qps: 3, burst: 30 });
  });

  it('reads --heap-growing-percent: twice the live heap by default (as GOGC=100), 0 leaves it to V8', () => {
    expect(load([]).heapGrowingPercent).toBe(100);
    expect(load(['--kubeconfig=/k']).heapGrowingPercent).toBe(100);
    expect(load(['--heap-growing-percent=50']).heapGrowingPercent).toBe(50);
    expect(load(['--heap-growing-percent', '0']).heapGrowingPercent).toBe(0);
  });

  it("reads --event-ttl as kube-apiserver's (Go duration, default 1h; 0 keeps Events)", () => {
    expect(load([]).eventTtlMs).toBe(3_600_000);
    expect(load(['--event-ttl=1h30m']).eventTtlMs).toBe(5_400_000);
    expect(load(['--event-ttl', '0']).eventTtlMs).toBe(0);
    expect(() => load(['--event-ttl=1d'])).toThrow('invalid --event-ttl: "1d" must be a duration');
  });

  it("reads KCP's etcd timeouts as upstream's KCP manager (--etcd-dial/call-timeout-duration, 10s / 15s)", () => {
    expect(load([])).toMatchObject({ etcdDialTimeoutMs: 10_000, etcdCallTimeoutMs: 15_000 });
    expect(load(['--etcd-dial-timeout-duration=3s', '--etcd-call-timeout-duration=1m'])).toMatchObject({
      etcdDialTimeoutMs: 3_000,
      etcdCallTimeoutMs: 60_000,
    });
    expect(() => load(['--etcd-call-timeout-duration=soon'])).toThrow(
      'invalid --etcd-call-timeout-duration: "soon" must be a duration',
    );
  });

  it("reads the webhook server flags as upstream's core/main.go (9443, controller-runtime's cert dir, tls.crt/tls.key)", () => {
    expect(load(['--kubeconfig=/k']).webhook).toEqual({
      port: 9443,
      portGiven: false,
      certDir: '/tmp/k8s-webhook-server/serving-certs/',
      certName: 'tls.crt',
      keyName: 'tls.key',
    });
    expect(
      load([
        '--kubeconfig=/k',
        '--webhook-port=0',
        '--webhook-cert-dir=/certs',
        '--webhook-cert-name=cert.pem',
        '--webhook-key-name',
        'key.pem',
      ]).webhook,
    ).toEqual({ port: 0, portGiven: true, certDir: '/certs', certName: 'cert.pem', keyName: 'key.pem' });
  });

  it("reads --sync-period as upstream's manager (Go duration, default 10m)", () => {
    expect(load([]).syncPeriodMs).toBe(600_000);
    expect(load(['--kubeconfig=/k']).syncPeriodMs).toBe(600_000);
    expect(load(['--sync-period=15m']).syncPeriodMs).toBe(900_000);
    expect(() => load(['--sync-period=-1m'])).toThrow('invalid --sync-period: "-1m" must be a duration');
  });

  it('env seeds gates, flags win', () => {
    const env = { EXP_IN_PLACE_UPDATES: 'true', EXP_RUNTIME_SDK: 'true' };
    expect(load([], env).featureGates.enabled('InPlaceUpdates')).toBe(true);
    expect(load(['--feature-gates=InPlaceUpdates=false'], env).featureGates.enabled('InPlaceUpdates')).toBe(false);
    expect(errorOf([], { EXP_RUNTIME_SDK: 'sure' }).message).toMatch(
      /^invalid --feature-gates: .*EXP_RUNTIME_SDK=sure/,
    );
  });

  it.each([
    [['--feature-gates=Bogus=true'], '--feature-gates', /unrecognized feature gate: Bogus/],
    [['--feature-gates=InPlaceUpdates=maybe'], '--feature-gates', /InPlaceUpdates=maybe, must be true or false/],
    [['--controllers=kcp,foo'], '--controllers', /unknown controller "foo"/],
    [
      ['--controllers=extensionconfig', '--feature-gates=RuntimeSDK=false'],
      '--controllers',
      /requires --feature-gates=RuntimeSDK=true/,
    ],
    [['--metrics-bind-address=8080'], '--metrics-bind-address', /must be host:port, :port or 0/],
    [['--health-probe-bind-address', 'x:99999'], '--health-probe-bind-address', /must be host:port/],
    [['--health-addr=9440'], '--health-addr', /must be host:port/],
    [['--kube-api-qps=0'], '--kube-api-qps', /"0" must be > 0, or -1 to disable/],
    [['--kube-api-qps=fast'], '--kube-api-qps', /"fast" is not a number/],
    [['--kube-api-burst=0'], '--kube-api-burst', /must be an integer >= 1/],
    [['--clustercache-client-qps=-2'], '--clustercache-client-qps', /"-2" must be > 0, or -1 to disable/],
    [['--clustercache-client-burst=1.5'], '--clustercache-client-burst', /must be an integer >= 1/],
    [['--machine-concurrency=2.5'], '--machine-concurrency', /"2.5" must be an integer >= 1/],
    [['--cluster-concurrency='], '--cluster-concurrency', /is not a number/],
    [['--leader-elect-renew-deadline=soon'], '--leader-elect-renew-deadline', /must be a duration/],
    [['--log-format=xml'], '--log-format', /must be json or text/],
    [['--log-level=loud'], '--log-level', /must be one of/],
    [['--v=-1'], '--v', /must be an integer between 0 and 10/],
    [['--webhook-port=70000'], '--webhook-port', /"70000" must be a port number \(0-65535; 0 runs no webhook server\)/],
    [['--webhook-port=https'], '--webhook-port', /"https" is not a number/],
    [['--webhook-cert-name='], '--webhook-cert-name', /should not be empty/],
    [['--heap-growing-percent=-5'], '--heap-growing-percent', /"-5" must be an integer between 0 and 1000/],
    [['--heap-growing-percent=1.5'], '--heap-growing-percent', /must be an integer between 0 and 1000/],
    [
      ['--runtime-extension-client-cert-file=/c.pem'],
      '--runtime-extension-client-key-file',
      /both .* must be set, or neither/,
    ],
    [
      ['--runtime-extension-client-key-file=/k.pem'],
      '--runtime-extension-client-cert-file',
      /both .* must be set, or neither/,
    ],
  ])('%j is rejected naming %s', (argv, flag, msg) => {
    const e = errorOf(argv);
    expect(e.flag).toBe(flag);
    expect(e.message.startsWith(`invalid ${flag}: `)).toBe(true);
    expect(e.message).toMatch(msg);
  });

  it('--help short-circuits validation', () => {
    expect(loadManagerConfig(['--help', '--v=99'])).toEqual({ help: true });
    expect(loadManagerConfig(['-h'])).toEqual({ help: true });
  });

  it('--runtime-extension-client-cert-file/-key-file (upstream names) configure mTLS towards extensions', () => {
    expect(
      load(['--runtime-extension-client-cert-file=/c.pem', '--runtime-extension-client-key-file', '/k.pem'])
        .runtimeExtensionClientCertificate,
    ).toEqual({ certFile: '/c.pem', keyFile: '/k.pem' });
    expect(load([]).runtimeExtensionClientCertificate).toBeUndefined();
  });

  it('extensionconfig with RuntimeSDK on is accepted', () => {
    expect(load(['--controllers=extensionconfig', '--feature-gates=RuntimeSDK=true']).controllers).toEqual([
      'extensionconfig',
    ]);
  });
});

describe('resolveApiServer (--kubeconfig, --api-server, in a pod or not)', () => {
  const notInPod = 'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined';
  it('--kubeconfig wins; in a pod without it: in-cluster; elsewhere: the embedded default, with the reason', () => {
    expect(resolveApiServer('/k', 'auto', undefined)).toEqual({ mode: 'kubeconfig', path: '/k' });
    expect(resolveApiServer(undefined, 'auto', undefined)).toMatchObject({
      mode: 'in-cluster',
      reason: expect.stringContaining('running in a pod'),
    });
    expect(resolveApiServer(undefined, 'auto', notInPod)).toEqual({
      mode: 'embedded',
      reason: `no --kubeconfig and not in a pod (${notInPod})`,
    });
  });

  it('--api-server forces either; forcing in-cluster outside a pod or combining it with --kubeconfig is a flag error', () => {
    expect(resolveApiServer(undefined, 'embedded', undefined)).toEqual({
      mode: 'embedded',
      reason: '--api-server=embedded',
    });
    expect(resolveApiServer(undefined, 'in-cluster', undefined)).toMatchObject({
      mode: 'in-cluster',
      reason: '--api-server=in-cluster',
    });
    expect(() => resolveApiServer(undefined, 'in-cluster', notInPod)).toThrow(
      `invalid --api-server: "in-cluster" but not running in a pod: ${notInPod}`,
    );
    expect(() => resolveApiServer('/k', 'embedded', undefined)).toThrow(
      'invalid --api-server: "embedded" conflicts with --kubeconfig',
    );
  });

  it('loadManagerConfig detects the pod from the environment and the service-account token', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-'));
    const pod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const withDir = (argv: string[], env: Record<string, string>) => {
      const r = loadManagerConfig(argv, env, { serviceAccountDir: dir });
      if (r.help) throw new Error('help');
      return r.config;
    };
    expect(withDir([], pod).apiServer).toMatchObject({ mode: 'embedded', reason: expect.stringContaining('token') }); // no token yet
    writeFileSync(join(dir, 'token'), 't');
    expect(withDir([], pod).apiServer.mode).toBe('in-cluster');
    expect(withDir([], pod).featureGates.enabled('InPlaceUpdates')).toBe(false);
    expect(withDir([], {}).apiServer.mode).toBe('embedded');
    expect(errorOf(['--api-server=cloud']).message).toMatch(
      /^invalid --api-server: "cloud" must be one of: auto, in-cluster, embedded/,
    );
  });
});
