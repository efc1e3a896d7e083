import { FieldSet, MergeError, comparePathElements, formatPath, keyElement, valueElement } from './fieldset';

const f = (n: string) => `f:${n}`;

describe('FieldSet', () => {
  it('tracks members separately from the nodes above them', () => {
    const s = FieldSet.of([f('spec'), f('replicas')]);
    expect(s.has([f('spec'), f('replicas')])).toBe(true);
    expect(s.has([f('spec')])).toBe(false);
    expect(s.hasPrefix([f('spec')])).toBe(true);
    expect(s.hasPrefix([f('status')])).toBe(false);
    expect(s.isEmpty()).toBe(false);
    expect(new FieldSet().isEmpty()).toBe(true);
  });

  it('union, intersection, difference and recursiveDifference', () => {
    const a = FieldSet.of([f('a')], [f('a'), f('x')], [f('b')]);
    const b = FieldSet.of([f('a')], [f('c')]);
    expect(a.union(b).paths()).toEqual([[f('a')], [f('a'), f('x')], [f('b')], [f('c')]]);
    expect(a.intersection(b).paths()).toEqual([[f('a')]]);
    // difference removes exact members only; recursiveDifference also drops what is below
    expect(a.difference(b).paths()).toEqual([[f('a'), f('x')], [f('b')]]);
    expect(a.recursiveDifference(b).paths()).toEqual([[f('b')]]);
    expect(a.withPrefix([f('a')]).paths()).toEqual([[f('a')], [f('a'), f('x')]]);
  });

  it('orders elements as structured-merge-diff: fields, keys, values, then numeric indexes', () => {
    const els = ['i:10', 'v:"a"', 'k:{"name":"x"}', 'f:z', 'i:9', 'f:a'];
    expect([...els].sort(comparePathElements)).toEqual(['f:a', 'f:z', 'k:{"name":"x"}', 'v:"a"', 'i:9', 'i:10']);
  });

  it('serialises list-map keys with sorted key names', () => {
    expect(keyElement({ protocol: 'TCP', containerPort: 80, name: 'ignored' }, ['protocol', 'containerPort'])).toBe(
      'k:{"containerPort":80,"protocol":"TCP"}',
    );
    expect(valueElement('x')).toBe('v:"x"');
  });

  it('round-trips a kube-controller-manager Deployment status entry byte for byte', () => {
    // fieldsV1 of the "kube-controller-manager" Update entry (subresource status) of a Deployment, as kube writes it.
    const kube =
      '{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},' +
      '"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},' +
      '"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},' +
      '"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},' +
      '"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}';
    const set = FieldSet.fromFieldsV1(JSON.parse(kube));
    expect(set.has(['f:status', 'f:conditions', 'k:{"type":"Available"}'])).toBe(true);
    expect(set.has(['f:status', 'f:conditions'])).toBe(true);
    expect(set.has(['f:status'])).toBe(false);
    expect(JSON.stringify(set.toFieldsV1())).toBe(kube);
  });

  it('rejects malformed FieldsV1 with a clear error', () => {
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow(MergeError);
    expect(() => FieldSet.fromFieldsV1({ 'x:a': {} })).toThrow(/unknown FieldsV1 element "x:a"/);
    expect(() => FieldSet.fromFieldsV1([])).toThrow(/must be JSON objects/);
  });

  it('formats paths the way kube prints conflicts', () => {
    expect(formatPath(['f:spec', 'f:replicas'])).toBe('.spec.replicas');
    expect(formatPath(['f:status', 'f:conditions', 'k:{"type":"Ready"}', 'f:status'])).toBe(
      '.status.conditions[type="Ready"].status',
    );
    expect(formatPath(['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'])).toBe(
      '.ports[containerPort=80,protocol="TCP"]',
    );
    expect(formatPath(['f:metadata', 'f:finalizers', 'v:"a"'])).toBe('.metadata.finalizers[="a"]');
    expect(formatPath(['f:args', 'i:3'])).toBe('.args[3]');
  });
});
