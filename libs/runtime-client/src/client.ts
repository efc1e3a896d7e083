// The runtime client: find handlers for a hook and call them (upstream: internal/runtime/client/client.go).
import type { LeadershipFence } from '@capi/controller-runtime';
import { matchesLabelSelector } from '@capi/apimachinery';
import {
  DEFAULT_HANDLER_TIMEOUT_SECONDS,
  type CommonResponse,
  type CommonRetryResponse,
  type HookName,
  type HookRequest,
  type HookResponse,
} from '@capi/api';
import { gvhString, hookDescriptor, sameGvh } from './catalog';
import { defaultCacheKey, type CacheKeyFunc, type ResponseCache } from './cache';
import { ExtensionCallError, TRANSPORT_LEVEL_REASONS } from './errors';
import { invokeHandler } from './invoke';
import type { RuntimeSdkMetrics } from './metrics';
import {
  handlerNameWithoutConfig,
  RegistryNotReadyError,
  type ExtensionRegistry,
  type ExtensionRegistration,
} from './registry';
import type { ExtensionTransport } from './transport';

/** The object a hook is called for (Machine, MachineSet...): only its namespace matters here. */
export interface ForObject {
  metadata: { namespace?: string };
}

/** Reads a Namespace's labels (e.g. through the kube client). */
export type NamespaceLabelsReader = (namespace: string) => Promise<Record<string, string>>;

export interface CallExtensionOptions {
  caching?: { cache: ResponseCache; cacheKey?: CacheKeyFunc };
}

/**
 * Aggregates responses of several handlers (upstream aggregateSuccessfulResponses): Success, lowest non-zero
 * retryAfterSeconds, messages joined by ", ".
 */
export function aggregateResponses(hook: HookName, responses: CommonResponse[]): CommonResponse {
  const d = hookDescriptor(hook);
  const messages = responses.map((r) => r.message ?? '').filter((m) => m !== '');
  const out: CommonResponse & Partial<CommonRetryResponse> = {
    apiVersion: d.gvh.group + '/' + d.gvh.version,
    kind: d.responseKind,
    status: 'Success',
    message: messages.join(', '),
  };
  if (d.retry) {
    const nonZero = responses.map((r) => (r as CommonRetryResponse).retryAfterSeconds ?? 0).filter((s) => s > 0);
    out.retryAfterSeconds = nonZero.length ? Math.min(...nonZero) : 0;
  }
  return out;
}

/**
 * The in-place callers support exactly one handler per hook (upstream: "only one hook is supported"). Returns that
 * name, undefined for none, and throws "found multiple <Hook> hooks (a,b): only one hook is supported" for more.
 */
export function singleExtension(hook: HookName, names: string[]): string | undefined {
  if (names.length > 1) {
    throw new ExtensionCallError(
      'MultipleHandlers',
      `found multiple ${hook} hooks (${names.join(',')}): only one hook is supported`,
      { hook },
    );
  }
  return names[0];
}

export class RuntimeClient {
  constructor(
    private readonly registry: ExtensionRegistry,
    private readonly transport: ExtensionTransport,
    private readonly namespaceLabels: NamespaceLabelsReader,
    private readonly metrics?: RuntimeSdkMetrics,
    /** Refuses hook calls of a deposed leader (controller-runtime's LeadershipFence). */
    private readonly fence?: LeadershipFence,
  ) {}

  isReady(): boolean {
    return this.registry.isReady();
  }

  /** Registered handler names for `hook` whose namespaceSelector matches forObject's Namespace. */
  async getAllExtensions(hook: HookName, forObject: ForObject): Promise<string[]> {
    const gvh = hookDescriptor(hook).gvh;
    const registrations = this.registrations(() => this.registry.list(gvh), hook);
    const names: string[] = [];
    for (const r of registrations) {
      if (await this.namespaceMatches(r, forObject)) names.push(r.name);
    }
    return names;
  }

  /**
   * Calls one handler, with upstream CallExtension's failure policy and Failure handling
   * (internal/runtime/client/client.go).
   */
  async callExtension<H extends HookName>(
    hook: H,
    forObject: ForObject,
    name: string,
    request: HookRequest<H>,
    opts: CallExtensionOptions = {},
  ): Promise<HookResponse<H>> {
    const d = hookDescriptor(hook);
    const registration = this.registrations(() => this.registry.get(name), hook);
    if (!registration) {
      throw new ExtensionCallError(
        'NotRegistered',
        `failed to call extension handler ${JSON.stringify(name)}: handler is not registered`,
        { hook, extension: name },
      );
    }
    if (!sameGvh(registration.gvh, d.gvh)) {
      throw new ExtensionCallError(
        'NotRegistered',
        `failed to call extension handler ${JSON.stringify(name)}: handler is for ${gvhString(registration.gvh)}, not ${gvhString(d.gvh)}`,
        { hook, extension: name },
      );
    }
    if (!(await this.namespaceMatches(registration, forObject))) {
      throw new ExtensionCallError(
        'NamespaceMismatch',
        `failed to call extension handler ${JSON.stringify(name)}: namespaceSelector did not match object ${forObject.metadata.namespace ?? ''}`,
        { hook, extension: name },
      );
    }
    const timeoutSeconds = registration.timeoutSeconds || DEFAULT_HANDLER_TIMEOUT_SECONDS;
    // Registration settings first, request-specific settings override.
    const settings = {
      ...(registration.settings ?? {}),
      ...((request as { settings?: Record<string, string> }).settings ?? {}),
    };
    const body = {
      ...structuredClone(request),
      apiVersion: `${d.gvh.group}/${d.gvh.version}`,
      kind: d.requestKind,
    } as unknown as Record<string, unknown>;
    if (Object.keys(settings).length > 0) body.settings = settings;
    else delete body.settings;

    const cacheKey = opts.caching
      ? (opts.caching.cacheKey ?? defaultCacheKey)(name, registration.extensionConfigResourceVersion ?? '', body)
      : undefined;
    if (opts.caching && cacheKey !== undefined) {
      const hit = opts.caching.cache.get(cacheKey);
      if (hit) return hit as HookResponse<H>;
    }

    // An extension acts on what it is asked (UpdateMachine changes a host): a deposed leader asks nothing.
    this.fence?.check(`calling ${hook} extension ${name}`);
    let response: HookResponse<H>;
    try {
      response = await invokeHandler(
        {
          transport: this.transport,
          clientConfig: registration.clientConfig,
          gvh: d.gvh,
          hook,
          handlerName: handlerNameWithoutConfig(registration),
          timeoutSeconds,
          extension: name,
          metrics: this.metrics,
        },
        body,
      );
    } catch (e) {
      if (
        e instanceof ExtensionCallError &&
        TRANSPORT_LEVEL_REASONS.includes(e.reason) &&
        registration.failurePolicy === 'Ignore'
      ) {
        // failurePolicy Ignore: the failed call counts as an empty success.
        const ignored: Record<string, unknown> = {
          apiVersion: body.apiVersion,
          kind: d.responseKind,
          status: 'Success',
          message: '',
        };
        if (d.retry) ignored.retryAfterSeconds = 0;
        return ignored as unknown as HookResponse<H>;
      }
      throw e;
    }
    if (response.status === 'Failure') {
      throw new ExtensionCallError(
        'Failure',
        `failed to call extension handler ${JSON.stringify(name)}: got failure response${response.message ? ` with message: ${response.message}` : ''}`,
        { hook, extension: name },
      );
    }
    if (opts.caching && cacheKey !== undefined) opts.caching.cache.set(cacheKey, response);
    return response;
  }

  /** Calls every matching handler in name order; the first error stops. Returns the aggregated response. */
  async callAllExtensions<H extends HookName>(
    hook: H,
    forObject: ForObject,
    request: HookRequest<H>,
  ): Promise<HookResponse<H>> {
    const names = await this.getAllExtensions(hook, forObject);
    const responses: CommonResponse[] = [];
    for (const name of names) responses.push(await this.callExtension(hook, forObject, name, request));
    return aggregateResponses(hook, responses) as HookResponse<H>;
  }

  private registrations<T>(read: () => T, hook: HookName): T {
    try {
      return read();
    } catch (e) {
      if (e instanceof RegistryNotReadyError)
        throw new ExtensionCallError('NotReady', `runtime client is not ready: ${e.message}`, { hook });
      throw e;
    }
  }

  private async namespaceMatches(r: ExtensionRegistration, forObject: ForObject): Promise<boolean> {
    if (!r.namespaceSelector || (!r.namespaceSelector.matchLabels && !r.namespaceSelector.matchExpressions?.length))
      return true;
    const ns = forObject.metadata.namespace;
    const labels = ns ? await this.namespaceLabels(ns) : {};
    return matchesLabelSelector(r.namespaceSelector, labels);
  }
}
