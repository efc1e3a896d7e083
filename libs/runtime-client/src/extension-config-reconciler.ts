// ExtensionConfig reconcile logic (upstream: internal/controllers/extensionconfig): Paused condition, CA injection,
// discovery, status.handlers + Discovered condition, registry update, removal on delete, warm-up at start.
import { jsonEqual, stripManagedFields, type KubeObject } from '@capi/apimachinery';
import {
  DISCOVERED_CONDITION,
  DISCOVERED_REASON,
  INJECT_CA_FROM_SECRET_ANNOTATION,
  NOT_PAUSED_REASON,
  PAUSED_ANNOTATION,
  PAUSED_CONDITION,
  PAUSED_REASON,
  RUNTIME_API_VERSION,
  setCondition,
} from '@capi/api';
import { InformerCache, kindKey, type Client, type ControllerOptions } from '@capi/controller-runtime';
import { discoverExtension } from './discovery';
import { CA_SECRET_KEY, EXTENSION_CONFIG_KIND, NOT_DISCOVERED_REASON, type ExtensionConfig } from './extension-config';
import type { RuntimeSdkMetrics } from './metrics';
import { WarmUpDiscoveryError } from './module/warm-up';
import type { ExtensionRegistry } from './registry';
import type { ExtensionTransport } from './transport';

/**
 * Re-discovery after a successful discovery. Upstream requeues nothing and re-discovers when the manager resyncs its
 * cache (--sync-period, default 10 min); here the reconcile asks for it after the same time.
 */
const DEFAULT_REDISCOVERY_INTERVAL_MS = 10 * 60_000;
/** Requeue while the registry is not warmed up: upstream's RequeueAfter 10 s (extensionconfig_controller.go Reconcile). */
const DEFAULT_NOT_READY_REQUEUE_MS = 10_000;

export interface ExtensionConfigReconcilerOptions {
  /** Re-discovery period after a successful discovery. Default 10 minutes. */
  rediscoveryIntervalMs?: number;
  /** Requeue delay while the registry is not warmed up. Default 10 s (upstream). */
  notReadyRequeueMs?: number;
  now?: () => Date;
  /** Discovery requests are counted like hook calls (upstream). */
  metrics?: RuntimeSdkMetrics;
}

export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** Same shape as @capi/controller-runtime's reconcile Request (ExtensionConfigs are cluster-scoped). */
export interface ReconcileRequest {
  name: string;
  namespace?: string;
}

export class ExtensionConfigError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'ExtensionConfigError';
  }
}

const isPaused = (o: KubeObject) => o.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;

export class ExtensionConfigReconciler {
  private readonly rediscoveryIntervalMs: number;
  private readonly notReadyRequeueMs: number;
  private readonly now: () => Date;
  private readonly metrics?: RuntimeSdkMetrics;
  /** ExtensionConfig name -> "<ns>/<name>" of its CA Secret, as last seen; lets Secret events find their configs. */
  private readonly caSecretOf = new Map<string, string>();

  constructor(
    private readonly client: Client,
    private readonly registry: ExtensionRegistry,
    private readonly transport: ExtensionTransport,
    opts: ExtensionConfigReconcilerOptions = {},
  ) {
    this.rediscoveryIntervalMs = opts.rediscoveryIntervalMs ?? DEFAULT_REDISCOVERY_INTERVAL_MS;
    this.notReadyRequeueMs = opts.notReadyRequeueMs ?? DEFAULT_NOT_READY_REQUEUE_MS;
    this.now = opts.now ?? (() => new Date());
    this.metrics = opts.metrics;
  }

  /** Reconciles one (cluster-scoped) ExtensionConfig by name. Throws on errors so the caller requeues with backoff. */
  async reconcile({ name }: ReconcileRequest): Promise<ReconcileResult> {
    if (!this.registry.isReady()) return { requeueAfterMs: this.notReadyRequeueMs };
    const ec = await this.client.tryGet<ExtensionConfig>({
      apiVersion: RUNTIME_API_VERSION,
      kind: EXTENSION_CONFIG_KIND,
      name,
    });
    // Unregistering happens even when paused: a deleted extension must not be called.
    if (!ec || ec.metadata.deletionTimestamp) {
      this.registry.remove(name);
      this.caSecretOf.delete(name);
      return {};
    }
    this.rememberCaSecret(ec);
    const current = await this.ensurePausedCondition(ec);
    if (isPaused(current)) return {};
    const discovered = await this.discoverAndWriteStatus(current);
    this.registry.add(discovered);
    return { requeueAfterMs: this.rediscoveryIntervalMs };
  }

  /**
   * Start-up warm-up: discovers every ExtensionConfig, registers the ones that succeed (paused ones with their
   * existing status.handlers) and marks the registry ready. Failures are returned; normal reconciles retry them.
   * With `requireAll` (upstream's rule, what the module uses unless WarmUpPolicy.allowPartial) any failed discovery
   * throws a WarmUpDiscoveryError naming them and the registry stays not ready, so callers wait rather than decide
   * without an extension that is only briefly unreachable (e.g. after a restart).
   */
  async warmUp(opts: { requireAll?: boolean } = {}): Promise<{ errors: Error[] }> {
    const list = await this.client.list<ExtensionConfig>(RUNTIME_API_VERSION, EXTENSION_CONFIG_KIND);
    const registered: ExtensionConfig[] = [];
    const errors: Error[] = [];
    const failed: string[] = [];
    for (const ec of list.items) {
      if (ec.metadata.deletionTimestamp) continue;
      this.rememberCaSecret(ec);
      if (isPaused(ec)) {
        registered.push(ec);
        continue;
      }
      try {
        registered.push(await this.discoverAndWriteStatus(ec));
      } catch (e) {
        errors.push(e as Error);
        failed.push(ec.metadata.name!);
      }
    }
    if (opts.requireAll && errors.length) throw new WarmUpDiscoveryError(failed, errors);
    this.registry.warmUp(registered);
    return { errors };
  }

  /** Requests for the ExtensionConfigs that inject their CA from this Secret (for a Secret watch). */
  requestsForSecret(secret: KubeObject): ReconcileRequest[] {
    const key = `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
    return [...this.caSecretOf].filter(([, s]) => s === key).map(([name]) => ({ name }));
  }

  private rememberCaSecret(ec: ExtensionConfig): void {
    const name = ec.metadata.name!;
    const secret = ec.metadata.annotations?.[INJECT_CA_FROM_SECRET_ANNOTATION];
    if (secret) this.caSecretOf.set(name, secret);
    else this.caSecretOf.delete(name);
  }

  /**
   * The v1beta2 Paused condition (upstream paused.EnsurePausedCondition): True, reason Paused, while the
   * cluster.x-k8s.io/paused annotation is set; False, reason NotPaused, otherwise. Written only when it changes.
   */
  private async ensurePausedCondition(ec: ExtensionConfig): Promise<ExtensionConfig> {
    const paused = isPaused(ec);
    const conditions = setCondition(
      ec.status?.conditions,
      {
        type: PAUSED_CONDITION,
        status: paused ? 'True' : 'False',
        reason: paused ? PAUSED_REASON : NOT_PAUSED_REASON,
        message: paused ? `${EXTENSION_CONFIG_KIND} has the ${PAUSED_ANNOTATION} annotation` : undefined,
        observedGeneration: ec.metadata.generation,
      },
      { now: () => this.now().getTime() },
    );
    if (jsonEqual(conditions, ec.status?.conditions ?? [])) return ec;
    return this.client.patch<ExtensionConfig>(
      { apiVersion: RUNTIME_API_VERSION, kind: EXTENSION_CONFIG_KIND, name: ec.metadata.name! },
      'merge',
      { status: { conditions } },
      { subresource: 'status' },
    );
  }

  /** CA injection, discovery and status write. Returns the ExtensionConfig as stored after the status write. */
  private async discoverAndWriteStatus(original: ExtensionConfig): Promise<ExtensionConfig> {
    let ec = original;
    try {
      ec = await this.injectCABundle(ec);
    } catch (e) {
      await this.writeStatus(ec, ec.status?.handlers, 'False', NOT_DISCOVERED_REASON, (e as Error).message);
      throw e;
    }
    let discovered: ExtensionConfig;
    try {
      discovered = await discoverExtension(ec, this.transport, { metrics: this.metrics });
    } catch (e) {
      const message = `Error in discovery: ${(e as Error).message}`;
      await this.writeStatus(ec, ec.status?.handlers, 'False', NOT_DISCOVERED_REASON, message);
      throw new ExtensionConfigError(
        `failed to discover ExtensionConfig ${ec.metadata.name}: ${(e as Error).message}`,
        e,
      );
    }
    return this.writeStatus(ec, discovered.status?.handlers ?? [], 'True', DISCOVERED_REASON);
  }

  private async writeStatus(
    ec: ExtensionConfig,
    handlers: NonNullable<ExtensionConfig['status']>['handlers'],
    status: 'True' | 'False',
    reason: string,
    message?: string,
  ): Promise<ExtensionConfig> {
    const conditions = setCondition(
      ec.status?.conditions,
      { type: DISCOVERED_CONDITION, status, reason, message, observedGeneration: ec.metadata.generation },
      { now: () => this.now().getTime() },
    );
    const patch = { status: { ...(handlers ? { handlers } : {}), conditions } };
    // Re-discovery that finds what status already says writes nothing (no request, no event for other watchers).
    const same = (a: unknown, b: unknown) => jsonEqual(a ?? null, b ?? null);
    if (same(conditions, ec.status?.conditions) && (!handlers || same(handlers, ec.status?.handlers))) return ec;
    return this.client.patch<ExtensionConfig>(
      { apiVersion: RUNTIME_API_VERSION, kind: EXTENSION_CONFIG_KIND, name: ec.metadata.name! },
      'merge',
      patch,
      { subresource: 'status' },
    );
  }

  /** Copies ca.crt of the annotated Secret into spec.clientConfig.caBundle (a spec write, so it bumps generation). */
  private async injectCABundle(ec: ExtensionConfig): Promise<ExtensionConfig> {
    const raw = ec.metadata.annotations?.[INJECT_CA_FROM_SECRET_ANNOTATION];
    if (raw === undefined) return ec;
    const slash = raw.indexOf('/');
    const namespace = slash >= 0 ? raw.slice(0, slash) : '';
    const name = slash >= 0 ? raw.slice(slash + 1) : raw;
    if (!namespace || !name) {
      throw new ExtensionConfigError(
        `failed to reconcile caBundle: secret name ${JSON.stringify(raw)} must be in the form <namespace>/<name>`,
      );
    }
    let secret: KubeObject | undefined;
    try {
      secret = await this.client.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    } catch (e) {
      throw new ExtensionConfigError(
        `failed to reconcile caBundle: failed to get secret ${JSON.stringify(raw)}: ${(e as Error).message}`,
        e,
      );
    }
    if (!secret)
      throw new ExtensionConfigError(
        `failed to reconcile caBundle: failed to get secret ${JSON.stringify(raw)}: not found`,
      );
    const ca = (secret.data as Record<string, string> | undefined)?.[CA_SECRET_KEY];
    if (!ca)
      throw new ExtensionConfigError(
        `failed to reconcile caBundle: secret ${raw} does not contain a ${JSON.stringify(CA_SECRET_KEY)} entry`,
      );
    if (ec.spec.clientConfig?.caBundle === ca) return ec;
    return this.client.patch<ExtensionConfig>(
      { apiVersion: RUNTIME_API_VERSION, kind: EXTENSION_CONFIG_KIND, name: ec.metadata.name! },
      'merge',
      { spec: { clientConfig: { caBundle: ca } } },
    );
  }
}

/**
 * Controller registration for @capi/controller-runtime's Manager.addController(reconciler, options):
 * reconcile ExtensionConfigs, and re-reconcile them when their CA Secret changes. The Secrets are watched in
 * `secretCache` when given (upstream's PartialSecretCache: every Secret's metadata, see secretMetadataCache), else in
 * the manager's cache, which may hold only some Secrets (a manager caching only cluster-labelled ones would miss an
 * extension's CA Secret).
 */
export function extensionConfigControllerOptions(
  reconciler: ExtensionConfigReconciler,
  secretCache?: InformerCache,
): ControllerOptions {
  return {
    name: 'extensionconfig',
    for: { apiVersion: RUNTIME_API_VERSION, kind: EXTENSION_CONFIG_KIND },
    watches: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        map: (obj: KubeObject) => reconciler.requestsForSecret(obj),
        ...(secretCache ? { cache: secretCache } : {}),
      },
    ],
  };
}

/**
 * A cache of every Secret's metadata (upstream core/main.go partialSecretCache: metadata-only, managedFields stripped):
 * what the CA Secret watch needs. Listed and watched as PartialObjectMetadata, so no Secret's data reaches the manager.
 */
export function secretMetadataCache(client: Client, namespace?: string): InformerCache {
  return new InformerCache(client, {
    name: 'partial-secret',
    namespace,
    byObject: { [kindKey('v1', 'Secret')]: { metadataOnly: true, transform: stripManagedFields } },
  });
}
