// NestJS-injectable SSA: one request cache per controller name, shared by everything in the process.
import { Inject, Injectable, Module, Optional, type DynamicModule } from '@nestjs/common';
import type { PassiveClock, KubeObject } from '@capi/apimachinery';
import { METRICS_REGISTRY, type Client } from '@capi/controller-runtime';
import type { Registry } from 'prom-client';
import { DEFAULT_SSA_CACHE_MAX_ENTRIES, SsaCache } from './cache';
import { IntentMemo, type IntentMemoKey } from './intent-memo';
import { patch, type SsaPatchResult } from './patch';

export interface SsaModuleOptions {
  ttlMs?: number;
  maxEntries?: number;
  clock?: PassiveClock;
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
  /** Record a cache hit under this key, for knownNoop (see IntentMemo); a miss forgets the key's object. */
  memo?: IntentMemoKey;
}

@Injectable()
export class ServerSideApplier {
  private readonly caches = new Map<string, SsaCache>();
  private readonly memos = new Map<string, IntentMemo>();

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

  async patch(client: Client, modified: KubeObject, opts: ApplierPatchOptions): Promise<SsaPatchResult> {
    const controller = opts.controllerName ?? opts.fieldOwner;
    const cache = opts.noCache ? undefined : this.cacheFor(controller);
    const result = await patch(client, modified, {
      fieldOwner: opts.fieldOwner,
      original: opts.original,
      dryRun: opts.dryRun,
      cache,
    });
    if (opts.memo && cache) {
      if (result.cacheHit && result.requestId) this.memoFor(controller).remember(opts.memo, result.requestId);
      else this.memoFor(controller).forget(opts.memo);
    }
    return result;
  }

  /**
   * True when the last patch() with this memo key (same object, same inputs) was a cache hit and that request-cache
   * entry is still there: the apply would be a no-op, so the caller need not build the intent. Counts a hit and
   * refreshes the entry as patch() does on a hit; otherwise counts nothing (the caller's patch() will).
   */
  knownNoop(controllerName: string, key: IntentMemoKey): boolean {
    const memo = this.memos.get(controllerName);
    const id = memo?.requestIdFor(key);
    if (!id) return false;
    const cache = this.cacheFor(controllerName);
    if (!cache.peek(id)) {
      memo!.forget(key);
      return false;
    }
    cache.has(id, key.kind);
    cache.add(id);
    return true;
  }

  private memoFor(controllerName: string): IntentMemo {
    let memo = this.memos.get(controllerName);
    if (!memo)
      this.memos.set(controllerName, (memo = new IntentMemo(this.options.maxEntries ?? DEFAULT_SSA_CACHE_MAX_ENTRIES)));
    return memo;
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
