// Command-line flags, spelled as upstream (pflag): `--flag=value` and `--flag value`; boolean flags take no
// separate value (`--leader-elect`, `--leader-elect=false`), exactly like pflag's NoOptDefVal for bools. A repeated
// flag takes its last value, as with pflag.
import { parseDuration } from '@capi/apimachinery';

export type FlagType = 'string' | 'bool';

export interface FlagDef {
  /** Flag name without the leading dashes. */
  name: string;
  type: FlagType;
  /** Key in the raw config object. */
  key: string;
  usage: string;
  default?: string;
}

/**
 * --<name>-concurrency flags: [flag, controller name (its work queue), what it reconciles, upstream's default]
 * (core/main.go, controlplane/kubeadm/main.go).
 */
export const CONCURRENCY_FLAGS: ReadonlyArray<
  readonly [flag: string, controller: string, what: string, defaultConcurrency: number]
> = [
  ['kubeadmcontrolplane-concurrency', 'kubeadmcontrolplane', 'kubeadm control planes', 100],
  ['machinedeployment-concurrency', 'machinedeployment', 'machine deployments', 50],
  ['machineset-concurrency', 'machineset', 'machine sets', 50],
  ['machine-concurrency', 'machine', 'machines', 100],
  ['machinehealthcheck-concurrency', 'machinehealthcheck', 'machine health checks', 50],
  ['extensionconfig-concurrency', 'extensionconfig', 'extension configs', 10],
  ['cluster-concurrency', 'cluster', 'clusters', 50],
];

/** Raw config key of a controller's concurrency flag. */
export const concurrencyKey = (controller: string) => `concurrency.${controller}`;

export const FLAGS: readonly FlagDef[] = [
  {
    name: 'kubeconfig',
    type: 'string',
    key: 'kubeconfig',
    usage:
      'Path to a kubeconfig. Omit to use the in-cluster service account when running in a pod, else the embedded default (embedded API server); see --api-server.',
  },
  {
    name: 'api-server',
    type: 'string',
    key: 'apiServer',
    usage:
      'Without --kubeconfig: auto (in-cluster config in a pod, else the embedded API server), in-cluster or embedded to force either.',
    default: 'auto',
  },
  {
    name: 'data-dir',
    type: 'string',
    key: 'dataDir',
    usage:
      'Embedded default only: directory for the API server data (SQLite), its token/CA and the kubeconfig. Empty keeps nothing (in-memory storage).',
    default: '.capi',
  },
  {
    name: 'event-ttl',
    type: 'string',
    key: 'eventTtl',
    usage:
      "Embedded default only: amount of time to retain events after their last write (kube-apiserver's --event-ttl; duration string, 0 keeps them).",
    default: '1h',
  },
  {
    name: 'embedded-provider',
    type: 'bool',
    key: 'embeddedProvider',
    usage:
      'Run the in-memory infrastructure/bootstrap provider, and the reference in-place updater (registered by an ExtensionConfig) in this process. Default: true in the embedded default, false with --kubeconfig or in a pod (give --embedded-provider to run them against that management cluster; it needs their CRDs, deploy/inmemory).',
  },
  {
    name: 'embedded-workload-servers',
    type: 'string',
    key: 'embeddedWorkloadServers',
    usage:
      "With the in-memory provider (--embedded-provider): where it runs the workload clusters' API servers: in-process, or child-process (one child process for all, as real workload clusters are outside the manager; it exits with the manager).",
    default: 'in-process',
  },
  {
    name: 'namespace',
    type: 'string',
    key: 'namespace',
    usage: 'Namespace that the controllers watch. Empty watches all namespaces.',
    default: '',
  },
  {
    name: 'feature-gates',
    type: 'string',
    key: 'featureGates',
    usage:
      'Comma-separated list of key=value pairs for alpha/experimental features, e.g. InPlaceUpdates=true,RuntimeSDK=true.',
    default: '',
  },
  {
    name: 'controllers',
    type: 'string',
    key: 'controllers',
    usage:
      'Comma-separated list of controllers to run (cluster, kcp, machineset, machine, mhc, extensionconfig). Default: all.',
    default: '',
  },
  {
    name: 'leader-elect',
    type: 'bool',
    key: 'leaderElect',
    usage: 'Enable leader election for controller manager.',
    default: 'false',
  },
  {
    name: 'leader-elect-resource-namespace',
    type: 'string',
    key: 'leaderElectResourceNamespace',
    usage:
      "Namespace of the leader election Lease (component-base's flag, controller-runtime's LeaderElectionNamespace). Default: --namespace, else the pod's namespace in a pod, else \"default\" in the embedded default; with --kubeconfig and --leader-elect it must be given (as controller-runtime, which cannot guess it outside a pod).",
    default: '',
  },
  {
    name: 'leader-elect-lease-duration',
    type: 'string',
    key: 'leaderElectLeaseDuration',
    usage: 'Interval at which non-leader candidates will wait to force acquire leadership (duration string).',
    default: '15s',
  },
  {
    name: 'leader-elect-renew-deadline',
    type: 'string',
    key: 'leaderElectRenewDeadline',
    usage:
      'Duration that the leading controller manager will retry refreshing leadership before giving up (duration string).',
    default: '10s',
  },
  {
    name: 'leader-elect-retry-period',
    type: 'string',
    key: 'leaderElectRetryPeriod',
    usage: 'Duration the LeaderElector clients should wait between tries of actions (duration string).',
    default: '2s',
  },
  {
    name: 'sync-period',
    type: 'string',
    key: 'syncPeriod',
    usage: 'The minimum interval at which watched resources are reconciled (e.g. 15m)',
    default: '10m',
  },
  {
    name: 'etcd-dial-timeout-duration',
    type: 'string',
    key: 'etcdDialTimeout',
    usage: 'Duration that the etcd client waits at most to establish a connection with etcd (duration string).',
    default: '10s',
  },
  {
    name: 'etcd-call-timeout-duration',
    type: 'string',
    key: 'etcdCallTimeout',
    usage: 'Duration that the etcd client waits at most for read and write operations to etcd (duration string).',
    default: '15s',
  },
  {
    name: 'metrics-bind-address',
    type: 'string',
    key: 'metricsBindAddress',
    usage:
      'The address the metrics endpoint binds to (host:port, :port for all interfaces, 0 disables it). Default: ":8080" with --kubeconfig or in a pod, "127.0.0.1:8080" in the embedded default.',
  },
  {
    name: 'health-addr',
    type: 'string',
    key: 'healthProbeBindAddress',
    usage:
      'The address the health endpoints (/healthz, /livez, /readyz) bind to (host:port, :port, 0 disables them). Default: ":9440" with --kubeconfig or in a pod, "127.0.0.1:9440" in the embedded default.',
  },
  {
    name: 'health-probe-bind-address',
    type: 'string',
    key: 'healthProbeBindAddress',
    usage: "Same as --health-addr (controller-runtime's name).",
  },
  {
    name: 'live-view-address',
    type: 'string',
    key: 'liveViewAddress',
    usage:
      'The address the live view (a page following Clusters, their Machines and rollouts in the browser) binds to: host:port, or :port for 127.0.0.1 (it has no authentication; a non-loopback host is used with a warning). Empty turns it off.',
    default: '',
  },
  {
    name: 'kube-api-qps',
    type: 'string',
    key: 'kubeApiQps',
    usage:
      'Maximum queries per second from the controller client to the Kubernetes API server; -1 disables client-side rate limiting. Default: 100 with --kubeconfig or in a pod; -1 in the embedded default (its API server runs in this process, nothing else shares it).',
  },
  {
    name: 'kube-api-burst',
    type: 'string',
    key: 'kubeApiBurst',
    usage:
      'Maximum number of queries that should be allowed in one burst from the controller client to the Kubernetes API server.',
    default: '200',
  },
  {
    name: 'clustercache-client-qps',
    type: 'string',
    key: 'clusterCacheClientQps',
    usage:
      'Maximum queries per second from the cluster cache clients to the Kubernetes API server of workload clusters; -1 disables client-side rate limiting. Default: 20 with --kubeconfig or in a pod; -1 in the embedded default (its workload clusters are in-memory servers on loopback).',
  },
  {
    name: 'clustercache-client-burst',
    type: 'string',
    key: 'clusterCacheClientBurst',
    usage:
      'Maximum number of queries that should be allowed in one burst from the cluster cache clients to the Kubernetes API server of workload clusters.',
    default: '30',
  },
  ...CONCURRENCY_FLAGS.map(([name, controller, what, defaultConcurrency]): FlagDef => ({
    name,
    type: 'string',
    key: concurrencyKey(controller),
    usage: `Number of ${what} to process simultaneously.`,
    default: String(defaultConcurrency),
  })),
  {
    name: 'heap-growing-percent',
    type: 'string',
    key: 'heapGrowingPercent',
    usage:
      "How far the V8 heap may grow past what survived the last full garbage collection before the next one, in percent (V8's --heap-growing-percent): 100 collects at twice the live heap, as upstream's Go manager does with GOGC=100; 0 leaves it to V8, which lets garbage grow to 2.5-4 times the live heap before collecting.",
    default: '100',
  },
  {
    name: 'webhook-port',
    type: 'string',
    key: 'webhookPort',
    usage:
      'Webhook Server port. 0 runs no webhook server (ours: upstream always serves). In the embedded default the server listens on 127.0.0.1 with a generated certificate and registers its webhook configurations; a busy default port is then replaced by a free one.',
    default: '9443',
  },
  {
    name: 'webhook-cert-dir',
    type: 'string',
    key: 'webhookCertDir',
    usage: 'Webhook cert dir (ignored in the embedded default, which generates its certificate into --data-dir).',
    default: '/tmp/k8s-webhook-server/serving-certs/',
  },
  {
    name: 'webhook-cert-name',
    type: 'string',
    key: 'webhookCertName',
    usage: "Name of the file for webhook's server certificate; the file must be placed under webhook-cert-dir.",
    default: 'tls.crt',
  },
  {
    name: 'webhook-key-name',
    type: 'string',
    key: 'webhookKeyName',
    usage: "Name of the file for webhook's server key; the file must be placed under webhook-cert-dir.",
    default: 'tls.key',
  },
  {
    name: 'runtime-extension-client-cert-file',
    type: 'string',
    key: 'runtimeExtensionClientCertFile',
    usage:
      'Path of the PEM-encoded client certificate to be used when calling runtime extensions (reloaded when it changes).',
    default: '',
  },
  {
    name: 'runtime-extension-client-key-file',
    type: 'string',
    key: 'runtimeExtensionClientKeyFile',
    usage: 'Path of the PEM-encoded client key to be used when calling runtime extensions.',
    default: '',
  },
  { name: 'log-format', type: 'string', key: 'logFormat', usage: 'Log output format: json or text.', default: 'json' },
  {
    name: 'log-level',
    type: 'string',
    key: 'logLevel',
    usage: 'Minimum log level: error, warn, info, debug or trace. Overrides --v.',
  },
  {
    name: 'v',
    type: 'string',
    key: 'v',
    usage: 'Log verbosity (klog style): 0 info, 1-4 debug, 5+ trace.',
    default: '0',
  },
  { name: 'help', type: 'bool', key: 'help', usage: 'Print this help and exit.', default: 'false' },
];

/** A flag or configuration problem; `flag` names the offending flag (e.g. "--feature-gates"). */
export class ConfigError extends Error {
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(`invalid ${flag}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type RawFlags = Record<string, string | boolean>;

/** Parses argv (without node and script) into raw values keyed by FlagDef.key. Unknown flags are errors. */
export function parseFlags(argv: readonly string[], defs: readonly FlagDef[] = FLAGS): RawFlags {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const out: RawFlags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      throw new ConfigError(arg, 'unexpected argument (this command takes only flags)');
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    const def = name === 'h' ? byName.get('help') : byName.get(name);
    if (!def) throw new ConfigError(`--${name}`, 'unknown flag (see --help)');
    const flag = `--${def.name}`;
    if (def.type === 'bool') {
      if (inline === undefined) out[def.key] = true;
      else if (inline === 'true') out[def.key] = true;
      else if (inline === 'false') out[def.key] = false;
      else throw new ConfigError(flag, `"${inline}" is not a boolean (use ${flag} or ${flag}=false)`);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new ConfigError(flag, 'flag needs an argument');
      value = next;
      i++;
    }
    out[def.key] = value;
  }
  return out;
}

/** `--help` text. */
export function usage(defs: readonly FlagDef[] = FLAGS): string {
  const lines = ['Usage: manager [flags]', '', 'Cluster API controller manager (TypeScript).', '', 'Flags:'];
  for (const d of defs) {
    const left = `  --${d.name}${d.type === 'bool' ? '' : ' string'}`;
    const dflt = d.default !== undefined && d.default !== '' && d.type !== 'bool' ? ` (default "${d.default}")` : '';
    lines.push(`${left.padEnd(46)} ${d.usage}${dflt}`);
  }
  lines.push(
    '',
    'Environment: EXP_IN_PLACE_UPDATES, EXP_RUNTIME_SDK, ... (clusterctl variables) seed feature gate defaults; --feature-gates wins.',
  );
  return lines.join('\n') + '\n';
}

// Go duration strings ("15s", "1m30s"): @capi/apimachinery's parseDuration, re-exported for the manager's users.
export { parseDuration };
