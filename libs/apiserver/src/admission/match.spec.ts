// Ported from k8s.io/apiserver pkg/admission/plugin/webhook/predicates/rules/rules_test.go (TestGroup, TestVersion,
// TestOperation, TestResource, TestScope) and the selector rules of predicates/{namespace,object}/matcher.go.
import type { KubeObject } from '@capi/apimachinery';
import { ruleMatches, shouldCall } from './match';
import type { AdmissionAttributes, Operation, RuleWithOperations, Webhook } from './types';

type Attrs = Omit<AdmissionAttributes, 'options'>;
const a = (
  group: string,
  version: string,
  resource: string,
  subresource = '',
  operation: Operation = 'CREATE',
  namespace = 'ns',
): Attrs => ({
  group,
  version,
  resource,
  subresource,
  operation,
  namespace,
  name: namespace && resource === 'namespaces' ? namespace : 'name',
  kind: `k${resource}`,
  namespaced: !!namespace,
  dryRun: false,
});
const cluster = (g: string, v: string, r: string, sub = '') => a(g, v, r, sub, 'CREATE', '');
// Every aspect but the one under test is a wildcard.
const ALL: RuleWithOperations = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] };

const table: [string, RuleWithOperations, Attrs[], Attrs[]][] = [
  ['group wildcard', { apiGroups: ['*'] }, [a('g', 'v', 'r')], []],
  [
    'group exact',
    { apiGroups: ['g1', 'g2'] },
    [a('g1', 'v', 'r'), a('g2', 'v2', 'r3')],
    [a('g3', 'v', 'r'), a('g4', 'v', 'r')],
  ],
  ['version wildcard', { apiVersions: ['*'] }, [a('g', 'v', 'r')], []],
  [
    'version exact',
    { apiVersions: ['v1', 'v2'] },
    [a('g1', 'v1', 'r'), a('g2', 'v2', 'r')],
    [a('g1', 'v3', 'r'), a('g2', 'v4', 'r')],
  ],
  [
    'operation wildcard',
    { operations: ['*'] },
    (['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => a('g', 'v', 'r', '', op)),
    [],
  ],
  [
    'operation create',
    { operations: ['CREATE'] },
    [a('g', 'v', 'r')],
    (['UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => a('g', 'v', 'r', '', op)),
  ],
  [
    'operation update',
    { operations: ['UPDATE'] },
    [a('g', 'v', 'r', '', 'UPDATE')],
    (['CREATE', 'DELETE', 'CONNECT'] as const).map((op) => a('g', 'v', 'r', '', op)),
  ],
  [
    'operation delete',
    { operations: ['DELETE'] },
    [a('g', 'v', 'r', '', 'DELETE')],
    (['CREATE', 'UPDATE', 'CONNECT'] as const).map((op) => a('g', 'v', 'r', '', op)),
  ],
  [
    'operation connect',
    { operations: ['CONNECT'] },
    [a('g', 'v', 'r', '', 'CONNECT')],
    (['CREATE', 'UPDATE', 'DELETE'] as const).map((op) => a('g', 'v', 'r', '', op)),
  ],
  [
    'operation multiple',
    { operations: ['UPDATE', 'DELETE'] },
    [a('g', 'v', 'r', '', 'UPDATE'), a('g', 'v', 'r', '', 'DELETE')],
    [a('g', 'v', 'r', '', 'CREATE'), a('g', 'v', 'r', '', 'CONNECT')],
  ],
  [
    'no subresources',
    { resources: ['*'] },
    [a('g', 'v', 'r'), a('2', 'v', 'r2')],
    [a('g', 'v', 'r', 'exec'), a('2', 'v', 'r2', 'proxy')],
  ],
  [
    'r & subresources',
    { resources: ['r/*'] },
    [a('g', 'v', 'r'), a('g', 'v', 'r', 'exec')],
    [a('2', 'v', 'r2'), a('2', 'v', 'r2', 'proxy')],
  ],
  [
    'r & subresources or r2',
    { resources: ['r/*', 'r2'] },
    [a('g', 'v', 'r'), a('g', 'v', 'r', 'exec'), a('2', 'v', 'r2')],
    [a('2', 'v', 'r2', 'proxy')],
  ],
  [
    'proxy or exec',
    { resources: ['*/proxy', '*/exec'] },
    [a('g', 'v', 'r', 'exec'), a('2', 'v', 'r2', 'proxy'), a('2', 'v', 'r3', 'proxy')],
    [a('g', 'v', 'r'), a('2', 'v', 'r2'), a('2', 'v', 'r4', 'scale')],
  ],
  [
    'cluster scope',
    { resources: ['*'], scope: 'Cluster' },
    [cluster('g', 'v', 'r'), cluster('', 'v1', 'namespaces'), a('', 'v1', 'namespaces')],
    [a('g', 'v', 'r')],
  ],
  [
    'namespace scope',
    { resources: ['*'], scope: 'Namespaced' },
    [a('g', 'v', 'r')],
    [cluster('', 'v1', 'namespaces'), a('', 'v1', 'namespaces'), cluster('g', 'v', 'r')],
  ],
  [
    'all scopes',
    { resources: ['*'], scope: '*' },
    [a('g', 'v', 'r'), cluster('g', 'v', 'r'), a('', 'v1', 'namespaces')],
    [],
  ],
];

describe('ruleMatches (rules_test.go)', () => {
  // The upstream tables test one aspect at a time (Matcher.group() ...): the others are wildcards here.
  it.each(table)('%s', (_name, aspect, match, noMatch) => {
    const rule = { ...ALL, ...aspect };
    for (const m of match) expect([m, ruleMatches(rule, m)]).toEqual([m, true]);
    for (const m of noMatch) expect([m, ruleMatches(rule, m)]).toEqual([m, false]);
  });
});

describe('shouldCall: namespaceSelector and objectSelector', () => {
  const hook = (extra: Partial<Webhook>): Webhook => ({
    name: 'w.example.com',
    clientConfig: {},
    rules: [ALL],
    ...extra,
  });
  const obj = (labels?: Record<string, string>) => ({ metadata: { name: 'o', labels } }) as KubeObject;
  const nsLabels = (name: string): Record<string, string> | undefined =>
    name === 'prod' ? { env: 'prod' } : name === 'dev' ? {} : undefined;
  const sel = { matchLabels: { env: 'prod' } };

  it('namespaceSelector reads the labels of the request namespace; cluster-scoped objects always match', () => {
    const h = hook({ namespaceSelector: sel });
    expect(shouldCall(h, { ...a('g', 'v', 'r', '', 'CREATE', 'prod'), object: obj() }, nsLabels)).toBe(true);
    expect(shouldCall(h, { ...a('g', 'v', 'r', '', 'CREATE', 'dev'), object: obj() }, nsLabels)).toBe(false);
    expect(shouldCall(h, { ...cluster('g', 'v', 'r'), object: obj() }, nsLabels)).toBe(true);
  });

  it('a Namespace being created or updated is matched on its own labels, a deleted one on the stored labels', () => {
    const h = hook({ namespaceSelector: sel });
    const ns = (op: Operation, name: string, labels?: Record<string, string>) => ({
      ...a('', 'v1', 'namespaces', '', op, ''),
      name,
      object: op === 'DELETE' ? undefined : obj(labels),
    });
    expect(shouldCall(h, ns('CREATE', 'new', { env: 'prod' }), nsLabels)).toBe(true);
    expect(shouldCall(h, ns('UPDATE', 'prod', {}), nsLabels)).toBe(false);
    expect(shouldCall(h, ns('DELETE', 'prod'), nsLabels)).toBe(true);
    expect(shouldCall(h, ns('DELETE', 'dev'), nsLabels)).toBe(false);
  });

  it('objectSelector matches the new or the old object', () => {
    const h = hook({ objectSelector: sel });
    const base = a('g', 'v', 'r', '', 'UPDATE');
    expect(shouldCall(h, { ...base, object: obj({ env: 'prod' }), oldObject: obj() }, nsLabels)).toBe(true);
    expect(shouldCall(h, { ...base, object: obj(), oldObject: obj({ env: 'prod' }) }, nsLabels)).toBe(true);
    expect(shouldCall(h, { ...base, object: obj({ env: 'dev' }), oldObject: obj() }, nsLabels)).toBe(false);
    expect(shouldCall(hook({}), { ...base, object: obj() }, nsLabels)).toBe(true);
  });

  it('no rule matching is no call', () => {
    expect(
      shouldCall(hook({ rules: [{ ...ALL, apiGroups: ['other'] }] }), { ...a('g', 'v', 'r'), object: obj() }, nsLabels),
    ).toBe(false);
  });
});
