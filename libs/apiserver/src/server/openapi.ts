// OpenAPI v3 documents: enough for kubectl (GVK lookup, server-side field validation support, SSA).
import { createHash } from 'node:crypto';
import type { Registry, ResourceInfo } from './registry';

export function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function definitionName(r: ResourceInfo): string {
  if (!r.group) return `io.k8s.api.core.${r.version}.${r.kind}`;
  return `${r.group.split('.').reverse().join('.')}.${r.version}.${r.kind}`;
}

const LOOSE = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function withGvk(r: ResourceInfo, schema: Record<string, any> | undefined) {
  return {
    ...(schema ?? LOOSE),
    'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.kind }],
  };
}

const QUERY = (name: string) => ({ name, in: 'query', schema: { type: 'string' }, uniqueItems: true });
const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'].map(QUERY);

function operations(r: ResourceInfo, item: boolean) {
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const ref = { $ref: `#/components/schemas/${definitionName(r)}` };
  const op = (action: string, params: any[] = []) => ({
    operationId: `${action}${r.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    parameters: params,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
  });
  if (!item) return { get: op('list'), post: op('post', WRITE_PARAMS) };
  return {
    get: op('get'),
    put: op('put', WRITE_PARAMS),
    patch: op('patch', [...WRITE_PARAMS, QUERY('force')]),
    delete: op('delete', [QUERY('dryRun')]),
  };
}

export function groupVersionDocument(registry: Registry, group: string, version: string) {
  const rs = registry.groups().get(group)?.get(version);
  if (!rs) return undefined;
  const paths: Record<string, any> = {};
  const schemas: Record<string, any> = {};
  for (const r of rs) {
    const base = `/${gvPath(group, version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
    paths[base] = operations(r, false);
    paths[`${base}/{name}`] = operations(r, true);
    if (r.statusSubresource) paths[`${base}/{name}/status`] = operations(r, true);
    schemas[definitionName(r)] = withGvk(r, r.schema);
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas } };
}

export function openapiIndex(registry: Registry) {
  const paths: Record<string, any> = {};
  for (const [g, vs] of registry.groups()) {
    for (const v of vs.keys()) {
      const p = gvPath(g, v);
      const hash = createHash('sha512')
        .update(JSON.stringify(groupVersionDocument(registry, g, v)))
        .digest('hex')
        .slice(0, 64)
        .toUpperCase();
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
    }
  }
  return { paths };
}
