import { builtinSchema } from './builtin';
import { pruneUnknownFields } from './prune';
import { validate } from './validate';
import { validateCrdSchema } from './structural';

const KINDS: [string, string][] = [
  ['v1', 'Namespace'],
  ['v1', 'Secret'],
  ['v1', 'ConfigMap'],
  ['v1', 'Event'],
  ['events.k8s.io/v1', 'Event'],
  ['coordination.k8s.io/v1', 'Lease'],
  ['v1', 'Node'],
  ['v1', 'Pod'],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
];

describe('builtinSchema', () => {
  it.each(KINDS)('%s %s is a structural schema', (apiVersion, kind) => {
    const s = builtinSchema(apiVersion, kind);
    expect(s).toBeDefined();
    expect(validateCrdSchema(s!)).toEqual([]);
  });

  it('is undefined for unknown kinds', () => {
    expect(builtinSchema('v1', 'ReplicationController')).toBeUndefined();
    expect(builtinSchema('v2', 'Secret')).toBeUndefined();
  });

  it('does not prune real data of built-in objects', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      spec: { providerID: 'x://1', taints: [{ key: 'k', effect: 'NoSchedule', extra: 1 }], anything: { a: 1 } },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      },
      other: true,
    };
    expect(pruneUnknownFields(node, builtinSchema('v1', 'Node')!)).toEqual(node);
  });

  it('gives Node list-map keys for SSA', () => {
    const s = builtinSchema('v1', 'Node')!;
    expect(s.properties.status.properties.conditions['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(s.properties.status.properties.addresses['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(s.properties.spec.properties.taints['x-kubernetes-list-map-keys']).toEqual(['key', 'effect']);
    const dup = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
      status: {
        addresses: [
          { type: 'Hostname', address: 'a' },
          { type: 'Hostname', address: 'b' },
        ],
      },
    };
    expect(validate(dup, s).map((e) => e.type)).toEqual(['FieldValueDuplicate']);
  });

  it('gives CRD versions a list-map key by name', () => {
    expect(
      builtinSchema('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!.properties.spec.properties.versions[
        'x-kubernetes-list-map-keys'
      ],
    ).toEqual(['name']);
  });

  it('checks that Secret data is base64', () => {
    const s = builtinSchema('v1', 'Secret')!;
    const secret = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data,
    });
    expect(validate(secret({ a: 'aGVsbG8=' }), s)).toEqual([]);
    expect(validate(secret({ a: 'not base64' }), s)).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'data.a',
        message: 'Invalid value: "not base64": data.a in body must be of type byte: "not base64"',
      },
    ]);
  });

  it('accepts Lease microtime values and null fields', () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { holderIdentity: 'me', renewTime: '2026-12-02T13:00:00.123456Z', acquireTime: null },
    };
    expect(validate(lease, builtinSchema('coordination.k8s.io/v1', 'Lease')!)).toEqual([]);
  });

  it('returns copies so callers cannot change the shared schema', () => {
    const a = builtinSchema('v1', 'Secret')!;
    a.properties.data = { type: 'string' };
    expect(builtinSchema('v1', 'Secret')!.properties.data.type).toBe('object');
  });
});
