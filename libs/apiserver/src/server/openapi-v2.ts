// The /openapi/v2 document (Swagger 2.0) kube-apiserver still serves next to /openapi/v3: every served resource's
// schema under `definitions` (as k8s.io/kube-openapi's builder names them) and its REST paths. Custom resources' schemas
// are converted the way apiextensions-apiserver does (pkg/controller/openapi/v2/conversion.go): what Swagger 2.0 cannot
// express (anyOf/oneOf/allOf/not, nullable) is dropped, so the document stays a valid v2 schema. The protobuf form is
// in openapi-v2-proto.ts.
import type { Registry, ResourceInfo } from './registry';
import { definitionName, gvPath } from './openapi';

type Schema = Record<string, any>;

/** The protobuf media types kube also serves /openapi/v2 in (k8s.io/kube-openapi/pkg/handler). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** What the protobuf answer says it is: the Accept form's "@" is no valid media type character for Go's mime parser. */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTOBUF_TYPES = [OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_CONTENT_TYPE];
const JSON_TYPES = ['application/json', 'application/*', '*/*'];

/**
 * The encoding the Accept header asks for, best quality first (JSON when absent), or undefined when it allows neither
 * (kube answers 406).
 */
export function openApiV2Format(accept: string | undefined): 'json' | 'protobuf' | undefined {
  if (!accept) return 'json';
  const ranked = accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1, i };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    if (PROTOBUF_TYPES.includes(r.type)) return 'protobuf';
    if (JSON_TYPES.includes(r.type)) return 'json';
  }
  return undefined;
}

/** A v3 (structural) schema as Swagger 2.0 carries it. */
export function toSwaggerSchema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'not' || k === 'nullable') continue;
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace('#/components/schemas/', '#/definitions/');
    else if (k === 'properties' && v && typeof v === 'object')
      out.properties = Object.fromEntries(Object.entries(v as Schema).map(([n, p]) => [n, toSwaggerSchema(p)]));
    else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object' && !Array.isArray(v))
      out[k] = toSwaggerSchema(v as Schema);
    else out[k] = v;
  }
  // A nullable node's type cannot be said in v2 (no null type): apiextensions leaves it untyped.
  if (schema.nullable === true) {
    for (const k of ['type', 'items', 'properties', 'additionalProperties']) delete out[k];
  }
  // int-or-string: a union v2 cannot express; the extension alone tells clients.
  if (schema['x-kubernetes-int-or-string'] === true) delete out.type;
  return out;
}

const LOOSE = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const gvk = (r: ResourceInfo, kind = r.kind) => ({ group: r.group, version: r.version, kind });
const query = (name: string, description: string) => ({
  name,
  in: 'query',
  type: 'string',
  uniqueItems: true,
  description,
});
const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  type: 'string',
  uniqueItems: true,
  description,
});
const WRITE_PARAMS = [
  query('dryRun', 'When present, the change is validated but not persisted (All is the only value).'),
  query('fieldManager', 'Name of the actor making the change, for managed fields.'),
  query('fieldValidation', 'What to do with unknown or duplicate fields: Ignore, Warn or Strict.'),
];

function operation(r: ResourceInfo, action: string, ref: string, extra: Schema[] = [], body = false) {
  const schema = { $ref: ref };
  return {
    operationId: `${action}${r.kind}`,
    consumes:
      action === 'patch'
        ? ['application/apply-patch+yaml', 'application/merge-patch+json', 'application/json-patch+json']
        : ['*/*'],
    produces: ['application/json', 'application/yaml'],
    schemes: ['https'],
    parameters: [
      ...(body
        ? [{ name: 'body', in: 'body', required: true, schema: action === 'patch' ? { type: 'object' } : schema }]
        : []),
      ...extra,
    ],
    responses: { '200': { description: 'OK', schema }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(r),
  };
}

function resourcePaths(r: ResourceInfo, paths: Schema): void {
  const def = `#/definitions/${definitionName(r)}`;
  const list = `#/definitions/${definitionName(r)}List`;
  const base = `/${gvPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
  const scope = r.namespaced
    ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')]
    : [];
  const named = [pathParam('name', `name of the ${r.kind}`), ...scope];
  paths[base] = {
    get: operation(r, 'list', list, [query('labelSelector', 'A selector on the objects labels.')]),
    post: operation(r, 'post', def, WRITE_PARAMS, true),
    parameters: scope,
  };
  const item = (sub: string) => ({
    get: operation(r, 'get', def),
    put: operation(r, 'put', def, WRITE_PARAMS, true),
    patch: operation(r, 'patch', def, [...WRITE_PARAMS, query('force', 'Force an apply that conflicts.')], true),
    ...(sub ? {} : { delete: operation(r, 'delete', def, [WRITE_PARAMS[0]]) }),
    parameters: named,
  });
  paths[`${base}/{name}`] = item('');
  if (r.statusSubresource) paths[`${base}/{name}/status`] = item('status');
}

function listDefinition(r: ResourceInfo, itemRef: string): Schema {
  return {
    description: `${r.listKind} is a list of ${r.kind}.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: 'The versioned schema of this representation of an object.', type: 'string' },
      items: { description: `List of ${r.plural}.`, type: 'array', items: { $ref: itemRef } },
      kind: { description: 'The REST resource this object represents.', type: 'string' },
      metadata: { description: 'Standard list metadata.', type: 'object' },
    },
    'x-kubernetes-group-version-kind': [gvk(r, r.listKind)],
  };
}

/** The whole Swagger 2.0 document: every served group/version in one, as kube-apiserver's /openapi/v2. */
export function openapiV2Document(registry: Registry, serverVersion: string): Schema {
  const paths: Schema = {};
  const definitions: Schema = {};
  for (const versions of registry.groups().values()) {
    for (const resources of versions.values()) {
      for (const r of resources) {
        const name = definitionName(r);
        definitions[name] = {
          ...toSwaggerSchema(r.schema ?? LOOSE),
          'x-kubernetes-group-version-kind': [gvk(r)],
        };
        definitions[`${name}List`] = listDefinition(r, `#/definitions/${name}`);
        resourcePaths(r, paths);
      }
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: serverVersion }, paths, definitions };
}
