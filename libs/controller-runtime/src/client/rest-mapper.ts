import { Transport } from './transport';
import type { RequestRateLimiter } from './token-bucket';

export interface ResourceMapping {
  apiVersion: string;
  kind: string;
  /** Plural resource name, e.g. "machines". */
  resource: string;
  namespaced: boolean;
  /** Whether the resource has a status subresource. */
  hasStatus: boolean;
}

/** No resource serves this kind in this group/version (e.g. the CRD is not installed). */
export class NoKindMatchError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no matches for kind "${kind}" in version "${apiVersion}"`);
    this.name = 'NoKindMatchError';
  }
}

interface APIResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

/** Timeout of a discovery request when the client does not pass its own (KubeClient passes its request timeout). */
const DISCOVERY_TIMEOUT_MS = 30_000;

/** Discovery-backed kind → resource mapping, cached per group/version and refreshed on a miss (CRDs installed later). */
export class RestMapper {
  private readonly byGroupVersion = new Map<string, Map<string, ResourceMapping>>();
  private readonly inflight = new Map<string, Promise<Map<string, ResourceMapping>>>();

  constructor(
    private readonly transport: Transport,
    private readonly onDiscovery: () => void = () => undefined,
    private readonly timeoutMs = DISCOVERY_TIMEOUT_MS,
    /** Discovery's own token bucket (upstream's discovery client has one); default the transport's. */
    private readonly rateLimiter?: RequestRateLimiter,
  ) {}

  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    const cached = this.byGroupVersion.get(apiVersion)?.get(kind);
    if (cached) return cached;
    const fresh = (await this.discover(apiVersion)).get(kind);
    if (!fresh) throw new NoKindMatchError(apiVersion, kind);
    return fresh;
  }

  /** Drops cached discovery so the next lookup re-reads it. */
  reset(): void {
    this.byGroupVersion.clear();
  }

  private discover(apiVersion: string): Promise<Map<string, ResourceMapping>> {
    const running = this.inflight.get(apiVersion);
    if (running) return running;
    const p = this.fetch(apiVersion).finally(() => this.inflight.delete(apiVersion));
    this.inflight.set(apiVersion, p);
    return p;
  }

  private async fetch(apiVersion: string): Promise<Map<string, ResourceMapping>> {
    this.onDiscovery();
    let list: APIResourceList;
    try {
      list = await this.transport.json<APIResourceList>({
        method: 'GET',
        path: groupVersionPath(apiVersion),
        timeoutMs: this.timeoutMs,
        rateLimiter: this.rateLimiter,
      });
    } catch (e) {
      if ((e as { code?: number }).code === 404) list = { resources: [] };
      else throw e;
    }
    const statusOf = new Set(list.resources.filter((r) => r.name.endsWith('/status')).map((r) => r.name.split('/')[0]));
    const map = new Map<string, ResourceMapping>();
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      map.set(r.kind, {
        apiVersion,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        hasStatus: statusOf.has(r.name),
      });
    }
    this.byGroupVersion.set(apiVersion, map);
    return map;
  }
}

/** "/api/v1" for the core group, "/apis/<group>/<version>" otherwise. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}
