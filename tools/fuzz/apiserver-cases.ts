// Seeded generator of malformed requests for the API server fuzz test (pure: no I/O).
import { Rng } from './support/rng';

export interface FuzzRequest {
  /** Short label for failure messages ("create/random-shape #12 seed 7"). */
  label: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A collection the fuzzer writes to; `valid(name)` is a correct object to start mutating from. */
export interface FuzzCollection {
  path: string;
  valid(name: string): Record<string, unknown>;
}

export const NAMESPACE = 'default';

export const COLLECTIONS: FuzzCollection[] = [
  {
    path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
    valid: (name) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: { app: 'fuzz' } },
      data: { k: 'v' },
    }),
  },
  {
    path: `/api/v1/namespaces/${NAMESPACE}/secrets`,
    valid: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', stringData: { k: 'v' } }),
  },
  {
    path: `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NAMESPACE}/machines`,
    valid: (name) => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: 's' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachine', name },
      },
    }),
  },
  { path: '/api/v1/namespaces', valid: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) },
];

/** Names the fuzzer may create, patch, update and delete. Sentinels (stored before fuzzing) are never among them. */
export const targetName = (i: number) => `fuzz-target-${i}`;
export const TARGETS = 4;

const INVALID_NAMES = [
  '',
  'UPPER',
  'with space',
  'a/b',
  '..',
  '.',
  'a..b',
  '-leading',
  'trailing-',
  'x'.repeat(254),
  'ünïcode',
  'a\u0000b',
  '%2F',
  'a_b',
  '🙂',
];
const INVALID_LABEL_KEYS = ['', 'a/b/c', '/x', 'x/', `${'p'.repeat(254)}/k`, 'k'.repeat(64), '-k', 'k-', 'k v', 'ü'];
const INVALID_LABEL_VALUES = ['v'.repeat(64), '-v', 'v-', 'v v', 'v/v', 'ü', '\n'];
const CONTENT_TYPES = [
  undefined,
  '',
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.kubernetes.protobuf',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  '*/*',
  'json',
  ';;;',
];
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+json',
];
const QUERY_KEYS = [
  'labelSelector',
  'fieldSelector',
  'resourceVersion',
  'resourceVersionMatch',
  'limit',
  'continue',
  'fieldManager',
  'fieldValidation',
  'dryRun',
  'force',
  'propagationPolicy',
  'gracePeriodSeconds',
  'timeoutSeconds',
  'pretty',
  'x',
];
const QUERY_VALUES = [
  '',
  'abc',
  '-1',
  '0',
  '1',
  '99999999999999999999',
  'a=b',
  'a==b',
  'a!=',
  'a in (',
  'a,b',
  '!',
  'metadata.name=x',
  'spec.x=y',
  'All',
  'Strict',
  'Orphan',
  'true',
  'maybe',
  '%',
  'NotOlderThan',
  'x'.repeat(1000),
];
// Invalid percent-encoding ('%zz') in paths has its own regression test (KNOWN_BUG_PATHS, once a 500).
const PATH_NOISE = [
  '%2F',
  '..',
  '.',
  '',
  'watch',
  'status',
  'scale',
  'proxy',
  'log',
  'v9',
  'apis',
  'api',
  'namespaces',
  '%00',
  'ü',
  'a b',
];

/** Sets a random path inside `obj` (creating objects on the way) to a random JSON value or wrong-typed value. */
function mutate(rng: Rng, obj: Record<string, unknown>): void {
  const paths = [
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'labels'],
    ['metadata', 'annotations'],
    ['metadata', 'finalizers'],
    ['metadata', 'ownerReferences'],
    ['metadata', 'resourceVersion'],
    ['metadata', 'uid'],
    ['metadata', 'generateName'],
    ['metadata', 'managedFields'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['apiVersion'],
    ['kind'],
    ['spec'],
    ['spec', 'clusterName'],
    ['spec', 'bootstrap'],
    ['spec', 'infrastructureRef', 'name'],
    ['spec', 'version'],
    ['data'],
    ['data', 'k'],
    ['stringData'],
    ['status'],
    ['type'],
    ['metadata', 'labels', 'k'],
    ['metadata', 'deletionTimestamp'],
  ];
  const path = rng.pick(paths);
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    if (typeof cur[key] !== 'object' || cur[key] === null || Array.isArray(cur[key])) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = rng.json(2);
}

function query(rng: Rng): string {
  const p: string[] = [];
  for (let i = rng.int(1, 3); i > 0; i--)
    p.push(`${rng.pick(QUERY_KEYS)}=${encodeURIComponent(rng.pick(QUERY_VALUES))}`);
  // Raw, possibly invalid percent-encoding too.
  if (rng.bool(0.2)) p.push(`${rng.pick(QUERY_KEYS)}=${rng.pick(['%', '%zz', '%E0%A4%A'])}`);
  return `?${p.join('&')}`;
}

const item = (c: FuzzCollection, name: string) => `${c.path}/${encodeURIComponent(name)}`;

function randomJsonPatch(rng: Rng): unknown {
  if (rng.bool(0.15)) return rng.json(3);
  return Array.from({ length: rng.int(0, 4) }, () => {
    const op: Record<string, unknown> = {
      op: rng.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', '', 5]),
    };
    if (rng.bool(0.9))
      op.path = rng.pick([
        '/metadata/name',
        '/metadata/labels/x',
        '/metadata/labels',
        '/spec',
        '/data/k',
        '/kind',
        '/apiVersion',
        '/metadata/resourceVersion',
        '/metadata/uid',
        '/',
        '',
        'no-slash',
        '/a/b/c/d',
        '/metadata/finalizers/-',
        '/metadata/finalizers/99',
        '/~2',
        rng.string(6),
      ]);
    if (rng.bool(0.3)) op.from = rng.pick(['/metadata', '/data', '/nope', '']);
    if (rng.bool(0.8)) op.value = rng.json(2);
    return op;
  });
}

function patchBody(rng: Rng, type: string, c: FuzzCollection, name: string): string {
  switch (type) {
    case 'application/json-patch+json':
      return JSON.stringify(randomJsonPatch(rng));
    default: {
      if (type === 'application/apply-patch+yaml' && rng.bool(0.3))
        return rng.pick(['a: [', ': :', '- x\n- y', '{{', '!!binary x', '&a [*a]', 'metadata: *x', '\t- bad']);
      if (rng.bool(0.3)) return rng.bool(0.3) ? rng.string(rng.int(0, 40)) : JSON.stringify(rng.json(3));
      const o = c.valid(name);
      for (let i = rng.int(1, 3); i > 0; i--) mutate(rng, o);
      return JSON.stringify(o);
    }
  }
}

type Generator = (rng: Rng) => FuzzRequest;

const MiB = 1024 * 1024;
/** Text of a value nested `depth` levels deep (built as text: JSON.stringify overflows the stack on it). */
const deepJson = (depth: number, array: boolean) =>
  array ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
/** `obj` serialized with `"deep":<text>` added at its top level. */
const withRaw = (obj: Record<string, unknown>, field: string, raw: string) =>
  JSON.stringify(obj).replace(/}$/, `,${JSON.stringify(field)}:${raw}}`);

const generators: Record<string, Generator> = {
  'create/random-shape': (rng) => ({
    label: '',
    method: 'POST',
    path: rng.pick(COLLECTIONS).path,
    body: JSON.stringify(rng.json(4)),
    contentType: 'application/json',
  }),
  'create/wrong-types': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const o = c.valid(targetName(rng.int(0, TARGETS - 1)));
    for (let i = rng.int(1, 4); i > 0; i--) mutate(rng, o);
    return { label: '', method: 'POST', path: c.path, body: JSON.stringify(o), contentType: 'application/json' };
  },
  'create/invalid-name': (rng) => {
    const c = rng.pick(COLLECTIONS);
    return {
      label: '',
      method: 'POST',
      path: c.path,
      body: JSON.stringify(c.valid(rng.bool(0.8) ? rng.pick(INVALID_NAMES) : rng.string(rng.int(1, 20)))),
      contentType: 'application/json',
    };
  },
  'create/invalid-labels': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const o = c.valid(targetName(rng.int(0, TARGETS - 1))) as { metadata: Record<string, unknown> };
    o.metadata.labels = { [rng.pick(INVALID_LABEL_KEYS)]: 'v', ok: rng.pick(INVALID_LABEL_VALUES) };
    if (rng.bool(0.3)) o.metadata.annotations = { [rng.pick(INVALID_LABEL_KEYS)]: 'v' };
    return { label: '', method: 'POST', path: c.path, body: JSON.stringify(o), contentType: 'application/json' };
  },
  'create/huge-strings': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const o = c.valid(targetName(rng.int(0, TARGETS - 1))) as { metadata: Record<string, unknown> };
    const huge = 'h'.repeat(rng.pick([300, 70_000, 300_000]));
    const where = rng.int(0, 3);
    if (where === 0) o.metadata.name = huge;
    else if (where === 1) o.metadata.labels = { k: huge };
    else if (where === 2) o.metadata.annotations = { k: huge };
    else o.metadata.generateName = huge;
    return { label: '', method: 'POST', path: c.path, body: JSON.stringify(o), contentType: 'application/json' };
  },
  'create/bad-content-type': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const body = rng.bool(0.5)
      ? JSON.stringify(c.valid(targetName(rng.int(0, TARGETS - 1))))
      : rng.pick(['<xml/>', 'a=b&c=d', '\u0000\u0001\u0002', '', 'apiVersion: v1', '{"apiVersion":']);
    return {
      label: '',
      method: rng.pick(['POST', 'PUT']),
      path: rng.bool(0.5) ? c.path : item(c, targetName(rng.int(0, TARGETS - 1))),
      body,
      contentType: rng.pick(CONTENT_TYPES),
    };
  },
  'create/truncated-json': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const full = JSON.stringify(c.valid(targetName(rng.int(0, TARGETS - 1))));
    return {
      label: '',
      method: 'POST',
      path: c.path,
      body: full.slice(0, rng.int(0, full.length - 1)),
      contentType: 'application/json',
    };
  },
  patch: (rng) => {
    const c = rng.pick(COLLECTIONS);
    const name = targetName(rng.int(0, TARGETS - 1));
    const type = rng.pick(PATCH_TYPES);
    const q =
      type.startsWith('application/apply-patch') && rng.bool(0.8)
        ? `?fieldManager=fuzz${rng.bool(0.2) ? '&force=true' : ''}`
        : rng.bool(0.3)
          ? query(rng)
          : '';
    const sub = rng.bool(0.15) ? '/status' : '';
    return {
      label: `patch ${type}`,
      method: 'PATCH',
      path: `${item(c, name)}${sub}${q}`,
      body: patchBody(rng, type, c, name),
      contentType: type,
    };
  },
  update: (rng) => {
    const c = rng.pick(COLLECTIONS);
    const name = targetName(rng.int(0, TARGETS - 1));
    const o = c.valid(name) as { metadata: Record<string, unknown> };
    if (rng.bool(0.5)) o.metadata.resourceVersion = rng.pick(['1', '0', 'abc', '', '99999999']);
    for (let i = rng.int(0, 2); i > 0; i--) mutate(rng, o);
    return {
      label: '',
      method: 'PUT',
      path: item(c, name) + (rng.bool(0.15) ? '/status' : ''),
      body: JSON.stringify(o),
      contentType: 'application/json',
    };
  },
  // kube-apiserver's limits (server/limits.ts): nesting depth, stored object size, request body size, annotations.
  'limits/deep-nesting': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const name = targetName(rng.int(0, TARGETS - 1));
    const raw = deepJson(rng.pick([513, 2_000, 10_000, 100_000]), rng.bool(0.3));
    const type = rng.pick([
      'application/json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
      'application/strategic-merge-patch+json',
    ]);
    const o = c.valid(name);
    const body =
      type === 'application/json' || type === 'application/apply-patch+yaml'
        ? withRaw(o, rng.pick(['spec', 'data', 'deep', 'status']), raw)
        : `{"spec":${raw}}`;
    const path =
      type === 'application/json' ? c.path : `${item(c, name)}${type.includes('apply') ? '?fieldManager=fuzz' : ''}`;
    return { label: type, method: type === 'application/json' ? 'POST' : 'PATCH', path, body, contentType: type };
  },
  'limits/oversize': (rng) => {
    const c = COLLECTIONS[0];
    const name = targetName(rng.int(0, TARGETS - 1));
    const data = Object.fromEntries(
      Array.from({ length: rng.int(1, 4) }, (_, i) => [
        `k${i}`,
        'x'.repeat(Math.ceil((rng.pick([1.6, 2.5, 3.2]) * MiB) / (i + 1))),
      ]),
    );
    const o = { ...c.valid(name), data };
    if (rng.bool(0.5))
      return {
        label: 'create',
        method: 'POST',
        path: c.path,
        body: JSON.stringify(o),
        contentType: 'application/json',
      };
    return {
      label: 'merge patch',
      method: 'PATCH',
      path: item(c, name),
      body: JSON.stringify({ data }),
      contentType: 'application/merge-patch+json',
    };
  },
  'limits/annotations': (rng) => {
    const c = rng.pick(COLLECTIONS);
    const o = c.valid(targetName(rng.int(0, TARGETS - 1))) as { metadata: Record<string, unknown> };
    const parts = rng.int(1, 8);
    const size = Math.ceil((256 * 1024 + rng.int(1, 100_000)) / parts);
    o.metadata.annotations = Object.fromEntries(
      Array.from({ length: parts }, (_, i) => [
        rng.bool(0.2) ? `${'p'.repeat(254)}/k${i}` : `example.com/k${i}`,
        'a'.repeat(size),
      ]),
    );
    return { label: '', method: 'POST', path: c.path, body: JSON.stringify(o), contentType: 'application/json' };
  },
  'read/random-query': (rng) => {
    const c = rng.pick(COLLECTIONS);
    return {
      label: '',
      method: 'GET',
      path: (rng.bool(0.5) ? c.path : item(c, targetName(rng.int(0, TARGETS - 1)))) + query(rng),
    };
  },
  'delete/random-options': (rng) => {
    const c = rng.pick(COLLECTIONS);
    // Only JSON objects as DeleteOptions here: other JSON types and a non-array dryRun have their own regression test (KNOWN_BUG_DELETE_BODIES, once a 500).
    const randomObject = () => ({
      ...(rng.json(0) as object),
      [rng.pick(['propagationPolicy', 'orphanDependents', 'gracePeriodSeconds', 'preconditions', 'kind'])]: rng.json(2),
    });
    const body = rng.bool(0.5)
      ? JSON.stringify(
          rng.bool(0.5)
            ? randomObject()
            : {
                kind: 'DeleteOptions',
                apiVersion: 'v1',
                propagationPolicy: rng.pick(['Orphan', 'Foreground', 'Background', 'Bogus', 5]),
                preconditions: rng.bool(0.5) ? { uid: 'nope' } : rng.json(1),
              },
        )
      : undefined;
    return {
      label: '',
      method: 'DELETE',
      path: item(c, targetName(rng.int(0, TARGETS - 1))) + (rng.bool(0.3) ? query(rng) : ''),
      body,
      contentType: body === undefined ? undefined : 'application/json',
    };
  },
  'path/random': (rng) => {
    const segs = ['', rng.pick(['api', 'apis', 'openapi', 'version', 'healthz', '%2F'])];
    for (let i = rng.int(0, 6); i > 0; i--)
      segs.push(
        rng.bool(0.6)
          ? rng.pick(PATH_NOISE)
          : rng.pick(['v1', 'cluster.x-k8s.io', 'v1beta2', NAMESPACE, 'configmaps', 'machines', 'fuzz-target-0']),
      );
    // Only methods that cannot touch sentinels: random paths may resolve to a real collection.
    return {
      label: '',
      method: rng.pick(['GET', 'POST', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE']),
      path: segs.join('/'),
      body: rng.bool(0.5) ? JSON.stringify(rng.json(2)) : undefined,
      contentType: rng.pick(CONTENT_TYPES),
    };
  },
};

export const GENERATOR_NAMES = Object.keys(generators);

/** `count` requests from `seed`, cycling through every generator so each kind of bad input is covered. */
export function generateRequests(seed: number, count: number): FuzzRequest[] {
  const rng = new Rng(seed);
  const out: FuzzRequest[] = [];
  for (let i = 0; i < count; i++) {
    const name = GENERATOR_NAMES[i % GENERATOR_NAMES.length];
    const r = generators[name](rng);
    out.push({ ...r, label: `${name}${r.label ? ` (${r.label})` : ''} #${i} seed ${seed}` });
  }
  return out;
}

/**
 * Paths with invalid percent-encoding. Kubernetes (Go net/http) answers 400; our server currently throws a URIError
 * in parseResourcePath and answers 500 (reported to the apiserver owner), so these run in a separate test.
 */
export const KNOWN_BUG_PATHS = [
  '/api/v1/namespaces/%zz/configmaps',
  '/apis/%/v1',
  '/api/v1/namespaces/default/configmaps/%E0%A4%A',
  '/%zz',
];

/** DELETE bodies that are valid JSON but not a DeleteOptions object; the server currently answers 500 (TypeError). */
export const KNOWN_BUG_DELETE_BODIES = ['null', '5', '"x"', '{"dryRun":5}'];

/** One request per limit, with kube's answer (server/limits.ts, schema/objectmeta.ts). */
export interface LimitCase {
  label: string;
  request: FuzzRequest;
  code: number;
  reason: string | undefined;
  message: RegExp;
}

export function limitCases(): LimitCase[] {
  const cm = COLLECTIONS[0];
  const post = (label: string, body: string): FuzzRequest => ({
    label,
    method: 'POST',
    path: cm.path,
    body,
    contentType: 'application/json',
  });
  const valid = (name: string) => cm.valid(name) as { metadata: Record<string, unknown> };
  return [
    {
      label: 'body over 3 MiB',
      request: post('body', JSON.stringify({ ...valid('limit-body'), data: { k: 'x'.repeat(3 * MiB) } })),
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: /^Request entity too large: limit is 3145728$/,
    },
    {
      label: 'object over 1.5 MiB',
      request: {
        label: 'object',
        method: 'POST',
        path: `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NAMESPACE}/clusters`,
        body: JSON.stringify({
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          metadata: { name: 'limit-object' },
          spec: { topology: { x: 'x'.repeat(1.5 * MiB) } },
        }),
        contentType: 'application/json',
      },
      code: 500,
      reason: undefined,
      message: /^etcdserver: request is too large$/,
    },
    {
      label: 'ConfigMap data over 1 MiB',
      request: post('data', JSON.stringify({ ...valid('limit-data'), data: { k: 'x'.repeat(MiB + 1) } })),
      code: 422,
      reason: 'Invalid',
      message: /^ConfigMap "limit-data" is invalid: \[\]: Too long: may not be more than 1048576 bytes$/,
    },
    {
      label: 'nesting 10000 deep',
      request: post('nesting', withRaw(valid('limit-deep'), 'deep', deepJson(10_000, false))),
      code: 400,
      reason: 'BadRequest',
      message: /exceeded max depth of 512/,
    },
    {
      label: 'annotations over 256 KiB in total',
      request: post(
        'annotations',
        JSON.stringify({
          ...valid('limit-annotations'),
          metadata: {
            name: 'limit-annotations',
            annotations: { a: 'x'.repeat(128 * 1024), b: 'y'.repeat(128 * 1024) },
          },
        }),
      ),
      code: 422,
      reason: 'Invalid',
      message: /metadata\.annotations: Too long: may not be more than 262144 bytes/,
    },
    {
      label: 'label value over 63 characters',
      request: post(
        'label',
        JSON.stringify({ ...valid('limit-label'), metadata: { name: 'limit-label', labels: { k: 'v'.repeat(64) } } }),
      ),
      code: 422,
      reason: 'Invalid',
      message: /metadata\.labels: Invalid value: "v{64}": must be no more than 63 characters/,
    },
    {
      label: 'label key with two slashes',
      request: post(
        'label-key',
        JSON.stringify({
          ...valid('limit-label-key'),
          metadata: { name: 'limit-label-key', labels: { 'a/b/c': 'v' } },
        }),
      ),
      code: 422,
      reason: 'Invalid',
      message: /metadata\.labels: Invalid value: "a\/b\/c": a qualified name must consist of/,
    },
  ];
}
