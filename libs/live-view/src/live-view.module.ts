// The live view inside the manager: follows the manager's own informers (the cache the controllers read, so no second
// set of watches) and serves the page, the JSON API and the event stream on --live-view-address.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  Inject,
  Injectable,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { CLUSTER_API_VERSION, CONTROLPLANE_API_VERSION } from '@capi/api';
import { CACHE, type InformerCache } from '@capi/controller-runtime';
import type { LiveViewAddress } from './address';
import { ObjectStore, VIEW_KINDS, type ViewKind } from './object-store';
import { startLiveViewServer, type LiveViewServer } from './server';
import { buildLiveViewState } from './view';

export interface LiveViewOptions {
  address: LiveViewAddress;
  /** Folder of the built page; default: dist/live-view/web in the workspace (see web/build.mjs). */
  assetsDir?: string;
}

const LIVE_VIEW_OPTIONS = Symbol.for('capi.LiveViewOptions');
const WORKSPACE = resolve(__dirname, '../../..');
/** Where web/build.mjs writes the page. */
export const DEFAULT_ASSETS_DIR = join(WORKSPACE, 'dist/live-view/web');
const BUILD_SCRIPT = join(WORKSPACE, 'libs/live-view/web/build.mjs');

const API_VERSIONS: Record<ViewKind, string> = {
  Cluster: CLUSTER_API_VERSION,
  KubeadmControlPlane: CONTROLPLANE_API_VERSION,
  MachineDeployment: CLUSTER_API_VERSION,
  MachineSet: CLUSTER_API_VERSION,
  Machine: CLUSTER_API_VERSION,
};

/** The view's address cannot be listened on (busy port, unknown host); the message names the flag. */
export class LiveViewListenError extends Error {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    super(
      `cannot serve the live view on ${host}:${port}: ${cause.code ?? cause.message}; choose another address with --live-view-address=host:port (empty turns it off)`,
    );
    this.name = 'LiveViewListenError';
  }
}

@Injectable()
export class LiveViewService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('live-view');
  private readonly store = new ObjectStore();
  private readonly unsubscribe: Array<() => void> = [];
  private server?: LiveViewServer;

  constructor(
    @Inject(LIVE_VIEW_OPTIONS) private readonly opts: LiveViewOptions,
    @Inject(CACHE) private readonly cache: InformerCache,
  ) {}

  /** "host:port" the view is served on, once bootstrapped. */
  get address(): string | undefined {
    return this.server?.address;
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const kind of VIEW_KINDS) {
      const informer = this.cache.informerFor(API_VERSIONS[kind], kind);
      // The objects there before (replayed as adds on registration, or listed until the informer syncs) are the
      // baseline the rollout counts start from.
      let replaying = true;
      this.unsubscribe.push(
        informer.addEventHandler({
          onAdd: (o) => this.store.upsert(kind, o, replaying || !informer.hasSynced()),
          onUpdate: (_, o) => this.store.upsert(kind, o),
          onDelete: (o) => this.store.remove(kind, o),
        }),
      );
      replaying = false;
    }
    const assetsDir = this.opts.assetsDir ?? DEFAULT_ASSETS_DIR;
    this.buildPageIfMissing(assetsDir);
    const { host, port, loopback } = this.opts.address;
    this.server = await startLiveViewServer({
      host,
      port,
      assetsDir,
      source: {
        state: () => buildLiveViewState(this.store.objects(), this.store.counts.all(), new Date()),
        onChange: (l) => this.store.onChange(l),
      },
    }).catch((e: NodeJS.ErrnoException) => {
      throw new LiveViewListenError(host, port, e);
    });
    this.log.log('serving live view', { address: this.server.address, url: `http://${this.server.address}/` });
    if (!loopback)
      this.log.warn(
        `the live view listens on ${host}, not a loopback address: anyone who reaches it sees every Cluster this manager sees (it has no authentication)`,
      );
  }

  async onApplicationShutdown(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.server?.close();
  }

  /** In a source checkout the page is built on first use (npm ci installs the bundler; the build takes seconds). */
  private buildPageIfMissing(assetsDir: string): void {
    if (existsSync(join(assetsDir, 'index.html')) || !existsSync(BUILD_SCRIPT)) return;
    this.log.log(`building the live view's page into ${assetsDir}`);
    const run = spawnSync(process.execPath, [BUILD_SCRIPT, `--out-dir=${assetsDir}`], { encoding: 'utf8' });
    if (run.status !== 0)
      this.log.warn(
        `the live view's page could not be built (the API still works): ${(run.stderr || run.stdout).trim()}`,
      );
  }
}

@Module({})
export class LiveViewModule {
  /** Imported by the manager only when --live-view-address is set. */
  static forRoot(opts: LiveViewOptions): DynamicModule {
    return {
      module: LiveViewModule,
      providers: [{ provide: LIVE_VIEW_OPTIONS, useValue: opts }, LiveViewService],
      exports: [LiveViewService],
    };
  }
}
