// Discovery documents: legacy (/api, /apis, per group-version) and aggregated (apidiscovery.k8s.io/v2).
import type { Registry, ResourceInfo } from './registry';
import { SCALE_KIND } from './scale';

function apiResource(r: ResourceInfo) {
  return {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
    ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length ? { categories: r.categories } : {}),
  };
}

export function resourceList(registry: Registry, group: string, version: string) {
  const rs = registry.groups().get(group)?.get(version);
  if (!rs) return undefined;
  const resources: any[] = [];
  for (const r of rs) {
    resources.push(apiResource(r));
    if (r.statusSubresource)
      resources.push({
        name: `${r.plural}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
    for (const c of r.connect ?? [])
      resources.push({
        name: `${r.plural}/${c.subresource}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(c.group ? { group: c.group, version: c.version } : {}),
        kind: c.kind,
        verbs: c.verbs,
      });
    if (r.scale)
      resources.push({
        name: `${r.plural}/scale`,
        singularName: '',
        namespaced: r.namespaced,
        group: SCALE_KIND.group,
        version: SCALE_KIND.version,
        kind: SCALE_KIND.kind,
        verbs: ['get', 'patch', 'update'],
      });
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

/** Aggregated discovery's subresources of a resource (status, scale). */
function subresources(r: ResourceInfo) {
  const verbs = ['get', 'patch', 'update'];
  const out = [
    ...(r.statusSubresource
      ? [{ subresource: 'status', responseKind: { group: r.group, version: r.version, kind: r.kind }, verbs }]
      : []),
    ...(r.scale ? [{ subresource: 'scale', responseKind: SCALE_KIND, verbs }] : []),
    ...(r.connect ?? []).map((c) => ({
      subresource: c.subresource,
      responseKind: { group: c.group ?? '', version: c.version ?? '', kind: c.kind },
      verbs: c.verbs,
    })),
  ];
  return out.length ? { subresources: out } : {};
}

export function apiVersions() {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
  };
}

function apiGroup(group: string, versions: string[]) {
  const vs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

export function groupList(registry: Registry) {
  const groups = [...registry.groups()].filter(([g]) => g !== '').map(([g, vs]) => apiGroup(g, [...vs.keys()]));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function group(registry: Registry, name: string) {
  const vs = registry.groups().get(name);
  return vs && name ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name, [...vs.keys()]) } : undefined;
}

/** Aggregated discovery (what kubectl asks for first); `legacy` selects the core group (/api). */
export function aggregated(registry: Registry, legacy: boolean) {
  const items = [...registry.groups()]
    .filter(([g]) => (legacy ? g === '' : g !== ''))
    .map(([g, vs]) => ({
      metadata: { name: g, creationTimestamp: null },
      versions: [...vs].map(([v, rs]) => ({
        version: v,
        freshness: 'Current',
        resources: rs.map((r) => ({
          resource: r.plural,
          singularResource: r.singular,
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          responseKind: { group: r.group, version: r.version, kind: r.kind },
          verbs: r.verbs,
          ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
          ...(r.categories.length ? { categories: r.categories } : {}),
          ...subresources(r),
        })),
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

export const AGGREGATED_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export function wantsAggregated(accept: string | undefined): boolean {
  return !!accept && /g=apidiscovery\.k8s\.io;\s*v=v2;\s*as=APIGroupDiscoveryList/.test(accept);
}
