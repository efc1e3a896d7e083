// NestJS-injectable SSA: one request cache per controller name, shared by everything in the process.
import { Inject, Injectable, Module, Optional, type DynamicModule } from '@nestjs/common';
import { METRICS_REGISTRY, type Client, type KubeObject } from '@capi/controller-runtime';
import type { Registry } from 'prom-client';
import { SsaCache, type NowClock } from './cache';
import { patch, type SsaPatchResult } from './patch';

export interface SsaModuleOptions {
  ttlMs?: number;
  maxEntries?: number;
  clock?: NowClock;
  /** Where capi_ssa_cache_{hits,misses}_total are registered. */
  registry?: Registry;
}

export const SSA_OPTIONS = Symbol('SSA_OPTIONS');

export interface ApplierPatchOptions {
  /** Field manager, e.g. "capi-machineset". */
  fieldOwner: string;
  /** Cache (and metrics label) to use; defaults to the field owner. */
  controllerName?: string;
  original?: KubeObject;
  dryRun?: boolean;
  /** Skip the cache for this call (it is neither read nor filled). */
  noCache?: boolean;
}

@Injectable()
export class ServerSideApplier {
  private readonly caches = new Map<string, SsaCache>();

  private readonly options: SsaModuleOptions;

  constructor(
    @Optional() @Inject(SSA_OPTIONS) options?: SsaModuleOptions,
    // The manager's registry (ControllerRuntimeModule) unless the module options name another one.
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.options = { ...(options ?? {}) };
    this.options.registry ??= registry;
  }

  /** The cache of one controller (created on first use). */
  cacheFor(controllerName: string): SsaCache {
    let cache = this.caches.get(controllerName);
    if (!cache) {
      cache = new SsaCache({ controllerName, ...this.options });
      this.caches.set(controllerName, cache);
    }
    return cache;
  }

  patch(client: Client, modified: KubeObject, opts: ApplierPatchOptions): Promise<SsaPatchResult> {
    const cache = opts.noCache ? undefined : this.cacheFor(opts.controllerName ?? opts.fieldOwner);
    return patch(client, modified, { fieldOwner: opts.fieldOwner, original: opts.original, dryRun: opts.dryRun, cache });
  }
}

/** Token alias so controllers can `@Inject(SSA_CACHE)`; resolves to the shared ServerSideApplier. */
export const SSA_CACHE = Symbol('SSA_CACHE');

@Module({})
export class SsaModule {
  static forRoot(options: SsaModuleOptions = {}): DynamicModule {
    return {
      module: SsaModule,
      global: true,
      providers: [
        { provide: SSA_OPTIONS, useValue: options },
        ServerSideApplier,
        { provide: SSA_CACHE, useExisting: ServerSideApplier },
      ],
      exports: [ServerSideApplier, SSA_CACHE, SSA_OPTIONS],
    };
  }
}
