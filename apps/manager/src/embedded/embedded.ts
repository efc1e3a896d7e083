import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crdRegistry } from '@capi/api';
import { lockDataDir } from './data-dir-lock';
import { ApiServer, ensurePrivateDir, renderKubeconfig, type Logger } from '@capi/apiserver';
import { registerInMemoryKinds } from '@capi/inmemory';

/**
 * What the manager runs against when no --kubeconfig is given: it is started before any controller module and
 * yields the kubeconfig (YAML text) the controllers use, and the file it was written to (when one was).
 */
export interface EmbeddedEnvironment {
  start(): Promise<{ kubeconfig: string; kubeconfigPath?: string }>;
  stop(): Promise<void>;
  /** Deletes the Events kept longer than --event-ttl; returns how many (the manager runs it periodically). */
  expireEvents?(): number;
}

export const EMBEDDED_ENVIRONMENT = Symbol.for('capi.EmbeddedEnvironment');

export interface ApiServerEmbeddedOptions {
  /**
   * Keeps the API server's SQLite database, token and CA here and writes `kubeconfig` (0600) into it, so a restart
   * finds the same objects with the same credentials. Undefined: in-memory storage, nothing written.
   */
  dataDir?: string;
  /** Listen port; default: the previous run's port when it is free, else a random one. */
  port?: number;
  /** How long the API server keeps an Event after its last write (--event-ttl; default 1 h); 0 keeps them. */
  eventTtlMs?: number;
  /** The API server's log lines, by level (failures such as requests answered 500 go to `error`). */
  logger?: Logger;
}

/** Files under the data directory. */
export const embeddedPaths = (dataDir: string) => ({
  database: join(dataDir, 'apiserver.sqlite'),
  serverState: join(dataDir, 'apiserver'),
  port: join(dataDir, 'apiserver', 'port'),
  kubeconfig: join(dataDir, 'kubeconfig'),
});

/** The CRDs the embedded API server serves: every registered kind, the in-memory provider's included. */
export function embeddedCrds(): object[] {
  registerInMemoryKinds();
  return crdRegistry.crds();
}

/** Embedded default backed by @capi/apiserver's ApiServer (HTTPS on 127.0.0.1) with the project's CRDs installed. */
export class ApiServerEmbeddedEnvironment implements EmbeddedEnvironment {
  private server?: ApiServer;
  /** Releases the data dir's lock (lockDataDir). */
  private unlock?: () => void;

  constructor(private readonly opts: ApiServerEmbeddedOptions = {}) {}

  async start(): Promise<{ kubeconfig: string; kubeconfigPath?: string }> {
    try {
      return await this.startLocked();
    } catch (e) {
      await this.stop(); // the lock too
      throw e;
    }
  }

  private async startLocked(): Promise<{ kubeconfig: string; kubeconfigPath?: string }> {
    const dataDir = this.opts.dataDir && resolve(this.opts.dataDir);
    const paths = dataDir ? embeddedPaths(dataDir) : undefined;
    // Secrets live in it: private, as etcd's data dir (a wider existing one is narrowed, with a warning).
    const narrowed = dataDir ? ensurePrivateDir(dataDir) : undefined;
    if (narrowed) (this.opts.logger?.warn ?? this.opts.logger?.info)?.call(this.opts.logger, narrowed);
    // Before anything in it is read or written: another manager may be serving from it.
    if (dataDir) this.unlock = lockDataDir(dataDir);
    if (paths) mkdirSync(paths.serverState, { recursive: true, mode: 0o700 });
    const previousPort = paths && existsSync(paths.port) ? Number(readFileSync(paths.port, 'utf8')) : undefined;
    const wanted = this.opts.port ?? (Number.isInteger(previousPort) ? previousPort : 0);
    let started;
    try {
      started = await this.listen(paths, wanted ?? 0);
    } catch (e) {
      // The previous port is taken (another process): any port will do, the kubeconfig is rewritten anyway.
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || this.opts.port !== undefined || !wanted) throw e;
      started = await this.listen(paths, 0);
    }
    const server = this.server!;
    await server.installCrds(embeddedCrds());
    const kubeconfig = renderKubeconfig({
      url: started.url,
      token: started.token,
      caData: started.caData,
      name: 'capi-embedded',
    });
    if (!paths) return { kubeconfig };
    writeFileSync(paths.port, new URL(started.url).port, { mode: 0o600 });
    writeFileSync(paths.kubeconfig, kubeconfig, { mode: 0o600 });
    chmodSync(paths.kubeconfig, 0o600); // mode only applies when the file is created
    return { kubeconfig, kubeconfigPath: paths.kubeconfig };
  }

  private async listen(paths: ReturnType<typeof embeddedPaths> | undefined, port: number) {
    const server = new ApiServer({
      storage: paths ? { type: 'sqlite', path: paths.database } : { type: 'memory' },
      dataDir: paths?.serverState,
      host: '127.0.0.1',
      port,
      eventTtlMs: this.opts.eventTtlMs,
      logger: this.opts.logger,
    });
    try {
      const started = await server.start();
      this.server = server;
      return started;
    } catch (e) {
      await server.stop();
      throw e;
    }
  }

  expireEvents(): number {
    return this.server?.expireEvents() ?? 0;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
    this.unlock?.();
    this.unlock = undefined;
  }
}
