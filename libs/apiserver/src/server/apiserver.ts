import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { promises as fs, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeObject } from '@capi/apimachinery';
import { checkDatabase, CREDENTIAL_FILES, ensurePrivateDir, PRIVATE_DIR_MODE, Store } from '../storage';
import { GarbageCollector } from '../gc';
import { DisruptionController } from '../disruption';
import { DEFAULT_EVENT_TTL_MS, deleteExpired, eventLeases } from './event-ttl';
import { createHandler } from './http';
import { MAX_OBJECT_BYTES } from './limits';
import { PortForwardSessions, type PortForwardBackend } from './portforward';
import { renderKubeconfig } from './kubeconfig';
import { RequestMetrics, type RequestCounts } from './metrics';
import { CRD_RESOURCE, Registry, storageResource } from './registry';
import { Resources } from './resources';
import { applyServingCertsPlan, planServingCerts, ServingCertRotator, type CertValidity } from './serving-certs';
import type { ServingCerts } from './tls';
import { createUpgradeHandler } from './upgrade';

/** kube-apiserver's http.Server IdleTimeout (k8s.io/apiserver pkg/server/secure_serving.go). */
const SERVER_IDLE_TIMEOUT_MS = 90_000;

export interface Logger {
  info(msg: string): void;
  /** Something the operator should fix (e.g. a data dir others can read); info when absent. */
  warn?(msg: string): void;
  /** A failure: requests answered 500, a failed garbage collection. */
  error(msg: string): void;
}

export interface ApiServerOptions {
  storage: { type: 'memory' } | { type: 'sqlite'; path: string };
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Bearer token; generated when omitted (and kept in dataDir when one is given). */
  token?: string;
  /** Serve HTTPS with a generated CA (default true). */
  tls?: boolean;
  /**
   * Validity of the generated CA and serving certificate (default 10 years and 1 year, kubeadm's), and the clock their
   * renewal is decided on (default Date.now): the serving certificate is re-issued under the same CA once two thirds
   * of its life have passed, at start and by a timer while serving; the CA at start.
   */
  servingCerts?: CertValidity & { now?: () => number };
  /**
   * Keeps the token and certificates (`token`, `serving-certs.json`: CA certificate and key, serving certificate and
   * key; both 0600) so a restarted server is reachable with the same kubeconfig.
   */
  dataDir?: string;
  logger?: Logger;
  /**
   * How often watches with allowWatchBookmarks get a BOOKMARK (default DEFAULT_BOOKMARK_INTERVAL_MS). As in kube,
   * such a watch also gets one at the end of its initial events and 2 s before its timeoutSeconds.
   */
  bookmarkIntervalMs?: number;
  /** Watch history kept for resuming (default 10000 events); older resourceVersions get 410 Gone. */
  historySize?: number;
  /** JSON text (characters) the parsed-object cache may hold (default DEFAULT_PARSED_CACHE_CHARS, 32 Mi). */
  parsedCacheChars?: number;
  /**
   * How long an Event is kept after its last write (kube-apiserver's --event-ttl; default 1 h); 0 keeps Events.
   * expireEvents() deletes the older ones: whoever hosts the server calls it periodically.
   */
  eventTtlMs?: number;
  /**
   * The clock Event TTLs and the expiry of evictions recorded in PodDisruptionBudgets are measured on, epoch
   * milliseconds (default Date.now; tests move it).
   */
  now?: () => number;
  /**
   * Serves pods/portforward (kubelet's WebSocket protocol, v4.channel.k8s.io): the stream to a port inside a Pod, as
   * the container runtime gives kubelet one. Without it every forward is answered on the error channel.
   */
  portForward?: PortForwardBackend;
  /**
   * How the operator restores the database, said when start() refuses a damaged one, or an empty or missing one whose
   * dataDir holds a previous run's token or CA (e.g. "restore a snapshot: npm run snapshot -- restore FILE").
   */
  recoveryHint?: string;
}

export interface StartedServer {
  url: string;
  token: string;
  caData?: string;
}

/** Watch bookmark period: kube's defaultBookmarkFrequency (1 min) in k8s.io/apiserver/pkg/storage/cacher/cacher.go. */
const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
/** In dataDir: the CA (certificate and key) and the serving certificate and key, as JSON. */
const SERVING_CERTS_FILE = 'serving-certs.json';
const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class ApiServer {
  readonly metrics = new RequestMetrics();
  private store?: Store;
  private http?: Server;
  private gc?: GarbageCollector;
  private disruption?: DisruptionController;
  private registry = new Registry();
  private started?: StartedServer;
  private unsubscribe?: () => void;
  private portForwards?: PortForwardSessions;
  private rotator?: ServingCertRotator;

  constructor(private readonly opts: ApiServerOptions) {}

  /** Snapshot of request counters since start or the last resetRequests(). */
  countRequests(): RequestCounts {
    return this.metrics.snapshot();
  }

  resetRequests(): void {
    this.metrics.reset();
  }

  /** Memory held by storage: the SQLite database (outside the V8 heap for memory storage) and the parsed-object cache. */
  storageUsage(): { databaseBytes: number; parsedObjects: number; parsedChars: number } {
    if (!this.store) return { databaseBytes: 0, parsedObjects: 0, parsedChars: 0 };
    const { objects, chars } = this.store.parsedCacheUsage();
    return { databaseBytes: this.store.databaseBytes(), parsedObjects: objects, parsedChars: chars };
  }

  async start(): Promise<StartedServer> {
    if (this.started) return this.started;
    const log = this.opts.logger;
    const narrowed = this.opts.dataDir ? ensurePrivateDir(this.opts.dataDir) : undefined;
    if (narrowed) (log?.warn ?? log?.info)?.call(log, narrowed);
    const path = this.opts.storage.type === 'memory' ? ':memory:' : this.opts.storage.path;
    // A database outside the data dir: its folder is created private, an existing one is the caller's.
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
      const previousRun = this.opts.dataDir ? CREDENTIAL_FILES.map((f) => join(this.opts.dataDir!, f)) : [];
      checkDatabase(path, previousRun, this.opts.recoveryHint ?? 'restore it from a snapshot (snapshot restore)');
    }
    const store = new Store({
      path,
      historySize: this.opts.historySize,
      maxValueBytes: MAX_OBJECT_BYTES,
      parsedCacheChars: this.opts.parsedCacheChars,
      leases: eventLeases(this.opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS, this.opts.now),
      onCompactionError: (e) => log?.error(`storage: compacting the watch history failed (kept serving): ${String(e)}`),
    });
    this.store = store;
    this.registry = new Registry();
    for (const row of store.list(storageResource(CRD_RESOURCE), undefined))
      if (!row.data.metadata?.deletionTimestamp) this.registry.setCrd(row.data);
    const resources = new Resources(store, this.registry);
    this.unsubscribe = store.onAny((ev) => {
      if (ev.resource !== storageResource(CRD_RESOURCE)) return;
      if (ev.type !== 'DELETED') return this.registry.setCrd(ev.data);
      // Deleting a CRD deletes its custom resources.
      for (const r of this.registry.removeCrd(ev.data.metadata.name).slice(0, 1)) {
        for (const row of store.list(storageResource(r), undefined))
          store.delete(row.key, (rev, last) => ({
            ...last,
            metadata: { ...last.metadata, resourceVersion: String(rev) },
          }));
      }
    });
    const nsInfo = this.registry.lookup('', 'v1', 'namespaces')!;
    for (const name of INITIAL_NAMESPACES) {
      if (!store.get(`/namespaces//${name}`))
        resources.create(
          nsInfo,
          '',
          {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name },
            spec: { finalizers: ['kubernetes'] },
            status: { phase: 'Active' },
          },
          { fieldManager: 'apiserver' },
        );
    }
    this.gc = new GarbageCollector(store, this.registry, resources, (e) => log?.error(`gc: ${String(e)}`));
    this.disruption = new DisruptionController(store, this.registry, resources, this.opts.now, (e) =>
      log?.error(`disruption: ${String(e)}`),
    );

    const token = this.opts.token ?? this.persisted('token', () => randomBytes(24).toString('hex'));
    const tls = this.opts.tls !== false;
    const host = this.opts.host ?? '127.0.0.1';
    const handler = createHandler({
      registry: this.registry,
      resources,
      token,
      metrics: this.metrics,
      bookmarkIntervalMs: this.opts.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
      version: {
        major: '1',
        minor: '32',
        gitVersion: 'v1.32.0-capi-ts',
        gitCommit: '',
        gitTreeState: 'clean',
        buildDate: '',
        goVersion: 'node',
        compiler: 'tsc',
        platform: `${process.platform}/${process.arch}`,
      },
      onError: (e) => log?.error(`request failed: ${(e as Error)?.stack ?? String(e)}`),
    });
    let certs: ServingCerts | undefined;
    if (tls) certs = await this.certs(host);
    const server = certs ? createHttpsServer({ cert: certs.cert, key: certs.key }, handler) : createHttpServer(handler);
    // Idle keep-alive connections are kept as kube-apiserver keeps them (secure_serving.go IdleTimeout), not Node's 5 s:
    // a client reusing one the server is just closing sees ECONNRESET.
    server.keepAliveTimeout = SERVER_IDLE_TIMEOUT_MS;
    this.http = server;
    if (certs && 'setSecureContext' in server) {
      // New connections get the renewed certificate; established ones keep the one they negotiated.
      this.rotator = new ServingCertRotator(certs, {
        host,
        validity: this.opts.servingCerts ?? {},
        now: this.opts.servingCerts?.now ?? Date.now,
        install: (next) => {
          server.setSecureContext({ cert: next.cert, key: next.key });
          this.saveCerts(next);
        },
        info: (m) => log?.info(m),
        warn: (m) => (log?.warn ?? log?.info)?.call(log, m),
        error: (m) => log?.error(m),
      });
      this.rotator.start();
    }
    const sessions = new PortForwardSessions(this.opts.portForward, (e) =>
      log?.error(`port-forward failed: ${(e as Error)?.stack ?? String(e)}`),
    );
    this.portForwards = sessions;
    server.on(
      'upgrade',
      createUpgradeHandler({
        registry: this.registry,
        resources,
        token,
        metrics: this.metrics,
        sessions,
        onError: (e) => log?.error(`upgrade failed: ${(e as Error)?.stack ?? String(e)}`),
      }),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? 0, host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
    this.started = { url, token, ...(certs ? { caData: Buffer.from(certs.caCert).toString('base64') } : {}) };
    log?.info(`apiserver listening on ${url}`);
    return this.started;
  }

  private persisted(file: string, make: () => string): string {
    if (!this.opts.dataDir) return make();
    const p = join(this.opts.dataDir, file);
    if (existsSync(p)) return readFileSync(p, 'utf8').trim();
    const v = make();
    writeFileSync(p, v, { mode: 0o600 });
    return v;
  }

  /** The serving certificates: the data dir's, renewed (or replaced with a new CA) when due, or new ones. */
  private async certs(host: string): Promise<ServingCerts> {
    const log = this.opts.logger;
    const p = this.opts.dataDir && join(this.opts.dataDir, SERVING_CERTS_FILE);
    let stored: Partial<ServingCerts> | undefined;
    if (p && existsSync(p)) {
      try {
        stored = JSON.parse(readFileSync(p, 'utf8'));
      } catch (e) {
        log?.error(`${p} cannot be read (${(e as Error).message}): a new CA is generated`);
      }
    }
    const now = (this.opts.servingCerts?.now ?? Date.now)();
    const action = planServingCerts(stored, host, now);
    const certs = await applyServingCertsPlan(stored, action, host, now, this.opts.servingCerts);
    if (action.type === 'keep') return certs;
    if (stored && p) {
      const what =
        action.type === 'ca'
          ? 'new serving CA and certificate (clients need the new CA)'
          : 'serving certificate re-issued under the same CA';
      (action.type === 'ca' ? (log?.warn ?? log?.info) : log?.info)?.call(log, `${what}: ${action.why}`);
    }
    this.saveCerts(certs);
    return certs;
  }

  /** Writes serving-certs.json (0600: it holds the CA and serving keys) whole or not at all. */
  private saveCerts(certs: ServingCerts): void {
    if (!this.opts.dataDir) return;
    const p = join(this.opts.dataDir, SERVING_CERTS_FILE);
    writeFileSync(`${p}.tmp`, JSON.stringify(certs), { mode: 0o600 });
    chmodSync(`${p}.tmp`, 0o600); // mode only applies when the file is created
    renameSync(`${p}.tmp`, p);
  }

  private requireStarted(): StartedServer {
    if (!this.started) throw new Error('ApiServer is not started');
    return this.started;
  }

  kubeconfig(): string {
    return renderKubeconfig(this.requireStarted());
  }

  /** Writes the kubeconfig with mode 0600 (it holds the bearer token). */
  async writeKubeconfig(path: string): Promise<void> {
    await fs.mkdir(dirname(path), { recursive: true });
    await fs.writeFile(path, this.kubeconfig(), { mode: 0o600 });
    await fs.chmod(path, 0o600);
  }

  /** Registers CRDs by server-side apply (idempotent); their resources are served when this resolves. */
  async installCrds(crds: object[]): Promise<void> {
    this.requireStarted();
    const resources = new Resources(this.store!, this.registry);
    const info = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    for (const crd of crds as KubeObject[])
      resources.apply(info, '', crd.metadata.name!, structuredClone(crd), {
        fieldManager: 'capi-ts-apiserver',
        force: true,
      });
  }

  /**
   * Deletes the Events not written for longer than eventTtlMs, as their etcd lease running out does in kube: watchers
   * get DELETED as for any delete. Returns how many; 0 when the server is not running.
   */
  expireEvents(): number {
    return this.store ? deleteExpired(this.store) : 0;
  }

  /** Waits until background garbage collection has nothing queued (tests). */
  async gcIdle(): Promise<void> {
    await this.gc?.idle();
  }

  /** Waits until the disruption controller has synced every PodDisruptionBudget it was told about (tests). */
  async disruptionIdle(): Promise<void> {
    await this.disruption?.idle();
  }

  async stop(): Promise<void> {
    this.rotator?.stop();
    this.rotator = undefined;
    const server = this.http;
    this.http = undefined;
    // Upgraded sockets are no longer the HTTP server's connections: closeAllConnections() does not reach them.
    this.portForwards?.close();
    this.portForwards = undefined;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    this.gc?.stop();
    this.disruption?.stop();
    this.unsubscribe?.();
    this.store?.close();
    this.store = undefined;
    this.started = undefined;
  }
}
