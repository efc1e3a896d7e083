import 'reflect-metadata';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
  validateSync,
  type ValidationOptions,
} from 'class-validator';
import {
  FeatureGateError,
  FeatureGates,
  featureGatesFromEnv,
  inClusterUnavailableReason,
  type ClientRateLimit,
  type InClusterOptions,
} from '@capi/controller-runtime';
import { WORKLOAD_SERVERS_MODES, type WorkloadServersMode } from '@capi/inmemory';
import { parseLiveViewAddress, type LiveViewAddress } from '@capi/live-view';
import {
  CONCURRENCY_FLAGS,
  ConfigError,
  concurrencyKey,
  FLAGS,
  parseDuration,
  parseFlags,
  type RawFlags,
} from './flags';
import { clientRateLimit, DEFAULT_CLUSTER_CACHE_CLIENT_RATE_LIMIT, DEFAULT_KUBE_API_RATE_LIMIT } from './rate-limits';

/** Controllers the manager knows how to run; `--controllers` picks a subset. */
export const CONTROLLER_NAMES = ['cluster', 'kcp', 'machineset', 'machine', 'mhc', 'extensionconfig'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** Where the embedded default keeps its data, relative to the working directory (gitignored). */
export const DEFAULT_DATA_DIR = '.capi';

/** Gates the embedded default turns on (it exists to show in-place updates); env seeds and --feature-gates win. */
export const EMBEDDED_FEATURE_GATES: Readonly<Record<string, boolean>> = { RuntimeSDK: true, InPlaceUpdates: true };

/** `--api-server` values: how the manager finds its API server when no --kubeconfig is given. */
export const API_SERVER_MODES = ['auto', 'in-cluster', 'embedded'] as const;
export type ApiServerMode = (typeof API_SERVER_MODES)[number];

/** Where the controllers' API server comes from, and why (logged at start-up). */
export type ApiServerSource =
  | { mode: 'kubeconfig'; path: string }
  | { mode: 'in-cluster'; reason: string; inCluster: InClusterOptions }
  | { mode: 'embedded'; reason: string };

/**
 * Picks the API server like controller-runtime's GetConfig, with the embedded default in place of ~/.kube/config:
 * --kubeconfig, else in-cluster config when running in a pod, else the embedded API server; --api-server forces
 * either. `inClusterReason` is undefined in a pod, else why in-cluster config is unavailable.
 */
export function resolveApiServer(
  kubeconfig: string | undefined,
  mode: ApiServerMode,
  inClusterReason: string | undefined,
  inCluster: InClusterOptions = {},
): ApiServerSource {
  if (kubeconfig) {
    if (mode !== 'auto')
      throw new ConfigError('--api-server', `${JSON.stringify(mode)} conflicts with --kubeconfig (give one of them)`);
    return { mode: 'kubeconfig', path: kubeconfig };
  }
  if (mode === 'embedded') return { mode: 'embedded', reason: '--api-server=embedded' };
  if (mode === 'in-cluster') {
    if (inClusterReason)
      throw new ConfigError('--api-server', `"in-cluster" but not running in a pod: ${inClusterReason}`);
    return { mode: 'in-cluster', reason: '--api-server=in-cluster', inCluster };
  }
  if (!inClusterReason)
    return {
      mode: 'in-cluster',
      reason: 'running in a pod (service account token and KUBERNETES_SERVICE_HOST)',
      inCluster,
    };
  return { mode: 'embedded', reason: `no --kubeconfig and not in a pod (${inClusterReason})` };
}

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const BIND_ADDRESS = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/;

/** True for "host:port", ":port", "[::1]:port" (port ≤ 65535) or "0" (disabled). */
export function isBindAddress(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  if (v === '0') return true;
  const m = BIND_ADDRESS.exec(v);
  return !!m && Number(m[1]) <= 65535;
}

function IsBindAddress(opts?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isBindAddress',
      validator: { validate: isBindAddress, defaultMessage: () => 'must be host:port, :port or 0 to disable' },
    },
    opts,
  );
}

function IsDuration(opts?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDuration',
      validator: {
        validate: (v) => typeof v === 'string' && parseDuration(v) !== undefined,
        defaultMessage: () => 'must be a duration such as 15s, 1m30s or 250ms',
      },
    },
    opts,
  );
}

/** The flag values after splitting lists; validated with class-validator before use. */
export class ManagerFlagsDto {
  @IsOptional() @IsString() kubeconfig?: string;
  @IsIn(API_SERVER_MODES, { message: `must be one of: ${API_SERVER_MODES.join(', ')}` }) apiServer: string = 'auto';
  @IsString() dataDir = DEFAULT_DATA_DIR;
  @IsDuration() eventTtl = '1h';
  /** Default depends on the API server mode (on in the embedded default only). */
  @IsOptional() @IsBoolean() embeddedProvider?: boolean;
  @IsIn(WORKLOAD_SERVERS_MODES, { message: `must be one of: ${WORKLOAD_SERVERS_MODES.join(', ')}` })
  embeddedWorkloadServers: string = 'in-process';
  @IsString() namespace = '';
  @IsString() featureGates = '';
  @IsIn(CONTROLLER_NAMES, { each: true, message: `each value must be one of: ${CONTROLLER_NAMES.join(', ')}` })
  controllers: string[] = [...CONTROLLER_NAMES];
  @IsBoolean() leaderElect = false;
  @IsString() leaderElectResourceNamespace = '';
  @IsDuration() leaderElectLeaseDuration = '15s';
  @IsDuration() leaderElectRenewDeadline = '10s';
  @IsDuration() leaderElectRetryPeriod = '2s';
  @IsDuration() syncPeriod = '10m';
  @IsDuration() etcdDialTimeout = '10s';
  @IsDuration() etcdCallTimeout = '15s';
  /** Default depends on the API server mode (see bindDefaults). */
  @IsOptional() @IsBindAddress() metricsBindAddress?: string;
  @IsOptional() @IsBindAddress() healthProbeBindAddress?: string;
  @IsString() liveViewAddress = '';
  @IsString() webhookCertDir = '/tmp/k8s-webhook-server/serving-certs/';
  @IsString() @IsNotEmpty() webhookCertName = 'tls.crt';
  @IsString() @IsNotEmpty() webhookKeyName = 'tls.key';
  @IsString() runtimeExtensionClientCertFile = '';
  @IsString() runtimeExtensionClientKeyFile = '';
  @IsIn(['json', 'text'], { message: 'must be json or text' }) logFormat = 'json';
  @IsOptional() @IsIn(LOG_LEVELS, { message: `must be one of: ${LOG_LEVELS.join(', ')}` }) logLevel?: string;
  @IsInt() @Min(0) @Max(10, { message: 'must be an integer between 0 and 10' }) v = 0;
}

export interface LeaderElectionConfig {
  enabled: boolean;
  /** --leader-elect-resource-namespace; unset: see leaderElectionNamespace in manager.module.ts. */
  namespace?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The validated configuration the manager is built from. */
export interface ManagerConfig {
  kubeconfig?: string;
  /** Resolved from --kubeconfig, --api-server and the environment (see resolveApiServer). */
  apiServer: ApiServerSource;
  /** Embedded default: data directory (SQLite, token/CA, kubeconfig); undefined = in-memory storage, nothing written. */
  dataDir?: string;
  /** Embedded default: how long its API server keeps an Event after its last write (--event-ttl); 0 keeps them. */
  eventTtlMs: number;
  /**
   * Run the in-memory provider and the reference updater in this process: on by default in the embedded default, and
   * with --embedded-provider against any API server (a management cluster given by --kubeconfig or in-cluster).
   */
  embeddedProvider: boolean;
  /** Where the in-memory provider's workload API servers run. */
  embeddedWorkloadServers: WorkloadServersMode;
  namespace?: string;
  featureGates: FeatureGates;
  controllers: ControllerName[];
  /** True when --controllers was not given (gated controllers are then skipped instead of rejected). */
  controllersDefaulted: boolean;
  leaderElection: LeaderElectionConfig;
  /** How often the cache re-delivers every object to its controllers (--sync-period, jittered per informer). */
  syncPeriodMs: number;
  /** KCP's etcd client timeouts (--etcd-dial-timeout-duration, --etcd-call-timeout-duration; upstream's KCP flags). */
  etcdDialTimeoutMs: number;
  etcdCallTimeoutMs: number;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  /** --live-view-address; undefined when the live view is off (the default). */
  liveView?: LiveViewAddress;
  /** Client-side rate limit towards the API server; undefined = off (--kube-api-qps=-1). */
  kubeApiRateLimit?: ClientRateLimit;
  /** The same for each workload cluster's client (--clustercache-client-qps/-burst); undefined = off. */
  clusterCacheClientRateLimit?: ClientRateLimit;
  /** V8's heap growing factor in percent (--heap-growing-percent); 0 = V8's own heuristics. */
  heapGrowingPercent: number;
  /** Parallel reconciles per controller name (--*-concurrency). */
  concurrency: Record<string, number>;
  logFormat: 'json' | 'text';
  logLevel: LogLevel;
  /** The webhook server (--webhook-*); port 0: none. */
  webhook: WebhookServerConfig;
  /** mTLS towards runtime extensions: both files or neither. */
  runtimeExtensionClientCertificate?: { certFile: string; keyFile: string };
}

export interface WebhookServerConfig {
  port: number;
  /** False when --webhook-port was not given: the embedded default may then take another port if 9443 is busy. */
  portGiven: boolean;
  certDir: string;
  certName: string;
  keyName: string;
}

/** Endpoint addresses when not given: all interfaces when deployed (upstream), loopback for the embedded default. */
export function bindDefaults(mode: ApiServerSource['mode']): { metrics: string; health: string } {
  return mode === 'embedded'
    ? { metrics: '127.0.0.1:8080', health: '127.0.0.1:9440' }
    : { metrics: ':8080', health: ':9440' };
}

/** The heap grows to twice the live heap before a full GC: the garbage headroom of a Go manager at GOGC=100. */
export const DEFAULT_HEAP_GROWING_PERCENT = 100;

/** Upstream's --webhook-port default (controller-runtime's webhook.DefaultPort). */
export const DEFAULT_WEBHOOK_PORT = 9443;

function numberFlag(
  raw: RawFlags,
  key: string,
  flag: string,
  check: (n: number) => string | undefined,
): number | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  const n = Number(v);
  const problem = typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n) ? 'is not a number' : check(n);
  if (problem) throw new ConfigError(flag, `${JSON.stringify(v)} ${problem}`);
  return n;
}

const positiveInt = (n: number) => (Number.isInteger(n) && n >= 1 ? undefined : 'must be an integer >= 1');

export type LoadResult = { help: true } | { help: false; config: ManagerConfig };

/**
 * Parses and validates flags (and the EXP_* environment seeds for feature gates; KUBERNETES_SERVICE_HOST/PORT and the
 * service-account token for in-cluster detection). Throws ConfigError naming the first offending flag.
 */
export function loadManagerConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  opts: { serviceAccountDir?: string } = {},
): LoadResult {
  const raw = parseFlags(argv);
  if (raw.help === true) return { help: true };
  const dto = toDto(raw);
  const errors = validateSync(dto, { forbidUnknownValues: true });
  if (errors.length > 0) {
    const e = errors[0];
    // Name the flag as given when several spell the same setting (--health-addr, --health-probe-bind-address).
    const names = FLAGS.filter((f) => f.key === e.property).map((f) => f.name);
    const flag =
      names.find((n) => argv.some((a) => a === `--${n}` || a.startsWith(`--${n}=`))) ?? names[0] ?? e.property;
    const value = (dto as unknown as Record<string, unknown>)[e.property];
    if (e.property === 'controllers') {
      const unknown = dto.controllers.filter((c) => !(CONTROLLER_NAMES as readonly string[]).includes(c));
      throw new ConfigError(
        '--controllers',
        `unknown controller ${unknown.map((c) => JSON.stringify(c)).join(', ')} (known: ${CONTROLLER_NAMES.join(', ')})`,
      );
    }
    throw new ConfigError(
      `--${flag}`,
      `${JSON.stringify(value)} ${Object.values(e.constraints ?? {})[0] ?? 'is invalid'}`,
    );
  }
  const inCluster: InClusterOptions = { env, serviceAccountDir: opts.serviceAccountDir };
  const apiServer = resolveApiServer(
    dto.kubeconfig,
    dto.apiServer as ApiServerMode,
    inClusterUnavailableReason(inCluster),
    inCluster,
  );
  let featureGates: FeatureGates;
  try {
    const embeddedDefaults = apiServer.mode === 'embedded' ? EMBEDDED_FEATURE_GATES : {};
    featureGates = FeatureGates.parse(dto.featureGates, undefined, {
      ...embeddedDefaults,
      ...featureGatesFromEnv(env),
    });
  } catch (err) {
    if (err instanceof FeatureGateError) throw new ConfigError('--feature-gates', err.message);
    throw err;
  }
  if (dto.leaderElect && apiServer.mode === 'kubeconfig' && !dto.leaderElectResourceNamespace && !dto.namespace) {
    // controller-runtime refuses too ("unable to find leader election namespace: not running in-cluster"); guessing
    // "default" would leave a manager whose ServiceAccount may use Leases only in its own namespace waiting forever.
    throw new ConfigError(
      '--leader-elect',
      'with --kubeconfig the Lease namespace cannot be guessed: give --leader-elect-resource-namespace (e.g. capi-system, where deploy/rbac grants Leases)',
    );
  }
  const controllersDefaulted = raw.controllers === undefined;
  const controllers = [...new Set(dto.controllers)] as ControllerName[];
  if (!controllersDefaulted && controllers.includes('extensionconfig') && !featureGates.enabled('RuntimeSDK')) {
    throw new ConfigError('--controllers', 'extensionconfig requires --feature-gates=RuntimeSDK=true');
  }
  const qpsValid = (n: number) =>
    n > 0 || n === -1 ? undefined : 'must be > 0, or -1 to disable client-side rate limiting';
  const qps = numberFlag(raw, 'kubeApiQps', '--kube-api-qps', qpsValid);
  const burst = numberFlag(raw, 'kubeApiBurst', '--kube-api-burst', positiveInt);
  const cacheQps = numberFlag(raw, 'clusterCacheClientQps', '--clustercache-client-qps', qpsValid);
  const cacheBurst = numberFlag(raw, 'clusterCacheClientBurst', '--clustercache-client-burst', positiveInt);
  const heapGrowingPercent =
    numberFlag(raw, 'heapGrowingPercent', '--heap-growing-percent', (n) =>
      Number.isInteger(n) && n >= 0 && n <= 1000 ? undefined : 'must be an integer between 0 and 1000',
    ) ?? DEFAULT_HEAP_GROWING_PERCENT;
  const concurrency: Record<string, number> = {};
  for (const [flag, controller, , defaultConcurrency] of CONCURRENCY_FLAGS) {
    concurrency[controller] =
      numberFlag(raw, concurrencyKey(controller), `--${flag}`, positiveInt) ?? defaultConcurrency;
  }
  const webhookPort =
    numberFlag(raw, 'webhookPort', '--webhook-port', (n) =>
      Number.isInteger(n) && n >= 0 && n <= 65535
        ? undefined
        : 'must be a port number (0-65535; 0 runs no webhook server)',
    ) ?? DEFAULT_WEBHOOK_PORT;
  const binds = bindDefaults(apiServer.mode);
  let liveView: LiveViewAddress | undefined;
  try {
    liveView = parseLiveViewAddress(dto.liveViewAddress);
  } catch (e) {
    throw new ConfigError('--live-view-address', (e as Error).message);
  }
  const certFile = dto.runtimeExtensionClientCertFile;
  const keyFile = dto.runtimeExtensionClientKeyFile;
  if (!!certFile !== !!keyFile) {
    throw new ConfigError(
      certFile ? '--runtime-extension-client-key-file' : '--runtime-extension-client-cert-file',
      'both --runtime-extension-client-cert-file and --runtime-extension-client-key-file must be set, or neither',
    );
  }
  return {
    help: false,
    config: {
      kubeconfig: dto.kubeconfig,
      apiServer,
      dataDir: dto.dataDir || undefined,
      eventTtlMs: parseDuration(dto.eventTtl)!,
      embeddedProvider: dto.embeddedProvider ?? apiServer.mode === 'embedded',
      embeddedWorkloadServers: dto.embeddedWorkloadServers as WorkloadServersMode,
      namespace: dto.namespace || undefined,
      featureGates,
      controllers,
      controllersDefaulted,
      leaderElection: {
        enabled: dto.leaderElect,
        ...(dto.leaderElectResourceNamespace ? { namespace: dto.leaderElectResourceNamespace } : {}),
        leaseDurationMs: parseDuration(dto.leaderElectLeaseDuration)!,
        renewDeadlineMs: parseDuration(dto.leaderElectRenewDeadline)!,
        retryPeriodMs: parseDuration(dto.leaderElectRetryPeriod)!,
      },
      syncPeriodMs: parseDuration(dto.syncPeriod)!,
      etcdDialTimeoutMs: parseDuration(dto.etcdDialTimeout)!,
      etcdCallTimeoutMs: parseDuration(dto.etcdCallTimeout)!,
      metricsBindAddress: dto.metricsBindAddress ?? binds.metrics,
      healthProbeBindAddress: dto.healthProbeBindAddress ?? binds.health,
      ...(liveView ? { liveView } : {}),
      kubeApiRateLimit: clientRateLimit(apiServer.mode === 'embedded', qps, burst, DEFAULT_KUBE_API_RATE_LIMIT),
      clusterCacheClientRateLimit: clientRateLimit(
        apiServer.mode === 'embedded',
        cacheQps,
        cacheBurst,
        DEFAULT_CLUSTER_CACHE_CLIENT_RATE_LIMIT,
      ),
      heapGrowingPercent,
      concurrency,
      logFormat: dto.logFormat as 'json' | 'text',
      logLevel: (dto.logLevel as LogLevel | undefined) ?? levelFromVerbosity(dto.v),
      webhook: {
        port: webhookPort,
        portGiven: raw.webhookPort !== undefined,
        certDir: dto.webhookCertDir,
        certName: dto.webhookCertName,
        keyName: dto.webhookKeyName,
      },
      ...(certFile ? { runtimeExtensionClientCertificate: { certFile, keyFile } } : {}),
    },
  };
}

/** klog verbosity → log level: 0 info, 1-4 debug, 5+ trace. */
export function levelFromVerbosity(v: number): LogLevel {
  if (v >= 5) return 'trace';
  if (v >= 1) return 'debug';
  return 'info';
}

function toDto(raw: RawFlags): ManagerFlagsDto {
  const dto = new ManagerFlagsDto();
  const target = dto as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (
      key === 'help' ||
      key === 'kubeApiQps' ||
      key === 'kubeApiBurst' ||
      key === 'clusterCacheClientQps' ||
      key === 'clusterCacheClientBurst' ||
      key === 'heapGrowingPercent' ||
      key === 'webhookPort' ||
      key.startsWith('concurrency.')
    )
      continue; // parsed by numberFlag
    if (key === 'controllers')
      target[key] = String(value)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (key === 'v') {
      if (!/^\d+$/.test(String(value)))
        throw new ConfigError('--v', `${JSON.stringify(value)} must be an integer between 0 and 10`);
      target[key] = Number(value);
    } else target[key] = value;
  }
  return dto;
}
