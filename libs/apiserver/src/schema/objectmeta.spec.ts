import { validateObjectMeta } from './objectmeta';

const fields = (meta: unknown, namespaced = true) => validateObjectMeta(meta, namespaced).map((e) => e.field);

describe('validateObjectMeta', () => {
  it('accepts valid metadata', () => {
    const meta = {
      name: 'md-0.example',
      namespace: 'default',
      labels: { 'cluster.x-k8s.io/cluster-name': 'c1', empty: '' },
      annotations: { 'Example.com/Note': 'anything goes here' },
      finalizers: ['cluster.x-k8s.io/machine'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: true }],
    };
    expect(validateObjectMeta(meta, true)).toEqual([]);
  });

  it('rejects names that are not DNS-1123 subdomains, with kube wording', () => {
    const [err] = validateObjectMeta({ name: 'Bad_Name', namespace: 'default' }, true);
    expect(err.field).toBe('metadata.name');
    expect(err.type).toBe('FieldValueInvalid');
    expect(err.message).toMatch(/^Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
    expect(validateObjectMeta({ name: 'a'.repeat(254) }, false)[0].message).toContain(
      'must be no more than 253 characters',
    );
  });

  it('accepts a generateName prefix ending in a dash', () => {
    expect(fields({ generateName: 'md-0-', namespace: 'ns' })).toEqual([]);
    expect(fields({ generateName: 'MD-', namespace: 'ns' })).toEqual(['metadata.generateName']);
  });

  it('requires a DNS-1123 label namespace on namespaced kinds and forbids it otherwise', () => {
    expect(fields({ name: 'a' })).toEqual(['metadata.namespace']);
    expect(validateObjectMeta({ name: 'a', namespace: 'a.b' }, true)[0].message).toContain('RFC 1123 label');
    expect(validateObjectMeta({ name: 'a', namespace: 'x' }, false)).toEqual([
      { type: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' },
    ]);
  });

  it('checks label keys and values', () => {
    expect(fields({ name: 'a', namespace: 'n', labels: { '-bad': 'x' } })).toEqual(['metadata.labels']);
    expect(fields({ name: 'a', namespace: 'n', labels: { ['k'.repeat(64)]: 'x' } })).toEqual(['metadata.labels']);
    expect(fields({ name: 'a', namespace: 'n', labels: { 'BAD_PREFIX/x': 'x' } })).toEqual(['metadata.labels']);
    expect(fields({ name: 'a', namespace: 'n', labels: { a: 'v'.repeat(64) } })).toEqual(['metadata.labels']);
    expect(fields({ name: 'a', namespace: 'n', labels: { a: 'bad value' } })).toEqual(['metadata.labels']);
    expect(fields({ name: 'a', namespace: 'n', labels: { a: 1 } })).toEqual(['metadata.labels.a']);
    expect(validateObjectMeta({ name: 'a', namespace: 'n', labels: { a: 'bad value' } }, true)[0].message).toMatch(
      /^Invalid value: "bad value": a valid label must be/,
    );
  });

  it('limits the total annotation size to 256KiB', () => {
    expect(
      validateObjectMeta({ name: 'a', namespace: 'n', annotations: { big: 'x'.repeat(256 * 1024) } }, true),
    ).toEqual([
      {
        type: 'FieldValueTooLong',
        field: 'metadata.annotations',
        message: 'Too long: may not be more than 262144 bytes',
      },
    ]);
    expect(fields({ name: 'a', namespace: 'n', annotations: { big: 'x'.repeat(1000) } })).toEqual([]);
  });

  it('checks finalizers and owner references', () => {
    expect(fields({ name: 'a', namespace: 'n', finalizers: ['ok/x', 'bad finalizer'] })).toEqual([
      'metadata.finalizers[1]',
    ]);
    expect(
      fields({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n' }] }),
    ).toEqual(['metadata.ownerReferences[0].uid']);
    const two = [1, 2].map((i) => ({ apiVersion: 'v1', kind: 'K', name: `n${i}`, uid: `u${i}`, controller: true }));
    expect(fields({ name: 'a', namespace: 'n', ownerReferences: two })).toEqual(['metadata.ownerReferences']);
  });

  it('reports malformed metadata instead of crashing', () => {
    expect(fields('x')).toEqual(['metadata']);
    expect(fields({ name: 5, namespace: 'n', labels: 'x', finalizers: 'y' })).toEqual([
      'metadata.name',
      'metadata.labels',
      'metadata.finalizers',
    ]);
  });
});
