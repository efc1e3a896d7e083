import { widgetSchema } from './test-fixtures';
import { rootSchema } from './types';
import { compare, mergeValues, removePath, toFieldSet } from './walk';

const root = rootSchema(widgetSchema);
const fv1 = (v: unknown, schema = root) => toFieldSet(v, schema).toFieldsV1();

describe('toFieldSet', () => {
  it('owns leaves; declared containers are not members, list-map items are with their keys', () => {
    const obj = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', uid: 'u', labels: { a: '1' } },
      spec: {
        replicas: 1,
        args: ['x', 'y'],
        tags: ['t1'],
        selector: { k: 'v' },
        containers: [{ name: 'c', image: 'i' }],
      },
    };
    expect(fv1(obj)).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': {
        'f:args': {},
        'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
        'f:replicas': {},
        'f:selector': {},
        'f:tags': { 'v:"t1"': {} },
      },
    });
  });

  it('without a schema maps are granular and every key is a member, lists atomic', () => {
    expect(fv1({ apiVersion: 'v1', kind: 'X', spec: { a: { b: 1 }, l: [{ x: 1 }] } }, rootSchema(undefined))).toEqual({
      'f:spec': { '.': {}, 'f:a': { '.': {}, 'f:b': {} }, 'f:l': {} },
    });
  });

  it('owns empty declared maps and nulls as leaves', () => {
    expect(fv1({ spec: { params: {}, image: null } })).toEqual({ 'f:spec': { 'f:image': {}, 'f:params': {} } });
  });

  it('tracks only labels, annotations, finalizers and ownerReferences in metadata', () => {
    const meta = {
      name: 'n',
      namespace: 'ns',
      uid: 'u',
      resourceVersion: '1',
      generation: 2,
      creationTimestamp: 'now',
      annotations: { x: 'y' },
      finalizers: ['f1'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o', uid: 'abc', controller: true }],
    };
    expect(fv1({ metadata: meta })).toEqual({
      'f:metadata': {
        'f:annotations': { 'f:x': {} },
        'f:finalizers': { 'v:"f1"': {} },
        'f:ownerReferences': { 'k:{"uid":"abc"}': {} },
      },
    });
  });

  it('rejects list-map items without their key field', () => {
    expect(() => toFieldSet({ spec: { containers: [{ image: 'i' }] } }, root)).toThrow(
      '.spec.containers: associative list with keys has an element that omits key field "name"',
    );
  });
});

describe('compare', () => {
  it('reports added containers and leaves, modified leaves, and removed subtrees', () => {
    const c = compare(
      { spec: { replicas: 1, containers: [{ name: 'a', image: 'x' }] } },
      { spec: { replicas: 2, params: { p: '1' }, containers: [{ name: 'b', image: 'y' }] } },
      root,
    );
    expect(c.modified.paths()).toEqual([['f:spec', 'f:replicas']]);
    expect(c.added.toFieldsV1()).toEqual({
      'f:spec': {
        'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
        'f:params': { '.': {}, 'f:p': {} },
      },
    });
    expect(c.removed.toFieldsV1()).toEqual({
      'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
  });

  it('treats an atomic list as one leaf and a set by values', () => {
    const c = compare(
      { spec: { args: ['a'], tags: ['a', 'b'] } },
      { spec: { args: ['a', 'b'], tags: ['b', 'c'] } },
      root,
    );
    expect(c.modified.paths()).toEqual([['f:spec', 'f:args']]);
    expect(c.added.paths()).toEqual([['f:spec', 'f:tags', 'v:"c"']]);
    expect(c.removed.paths()).toEqual([['f:spec', 'f:tags', 'v:"a"']]);
  });
});

describe('values that do not fit their schema', () => {
  it('are compared and merged as one leaf', () => {
    const c = compare({ spec: { replicas: 1 } }, { spec: { replicas: { odd: true } } }, root);
    expect(c.modified.paths()).toEqual([['f:spec', 'f:replicas']]);
    expect(c.added.isEmpty()).toBe(true);
    expect(toFieldSet({ spec: { tags: [{ a: 1 }] } }, root).paths()).toEqual([['f:spec', 'f:tags']]);
    expect(mergeValues({ spec: { replicas: { odd: true } } }, { spec: { replicas: 2 } }, root)).toEqual({
      spec: { replicas: 2 },
    });
  });
});

describe('mergeValues', () => {
  it('merges list-maps by key keeping live order and appending new items in intent order', () => {
    const live = {
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '1', extra: true },
        ],
      },
    };
    const intent = { spec: { containers: [{ name: 'z', image: '2' }, { name: 'b', image: '2' }, { name: 'y' }] } };
    expect(mergeValues(live, intent, root)).toEqual({
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '2', extra: true },
          { name: 'z', image: '2' },
          { name: 'y' },
        ],
      },
    });
  });

  it('unions sets, replaces atomic lists and atomic maps, merges granular maps', () => {
    const live = {
      spec: { tags: ['a', 'b'], args: ['1', '2'], selector: { x: '1', y: '2' }, params: { x: '1', y: '2' } },
    };
    const intent = { spec: { tags: ['c', 'a'], args: ['3'], selector: { z: '3' }, params: { z: '3', x: '0' } } };
    expect(mergeValues(live, intent, root)).toEqual({
      spec: { tags: ['a', 'b', 'c'], args: ['3'], selector: { z: '3' }, params: { x: '0', y: '2', z: '3' } },
    });
  });

  it('matches multi-key list-map items on all keys', () => {
    const live = {
      spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }] },
    };
    const intent = { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'UDP' }] }] } };
    const merged = mergeValues(live, intent, root) as any;
    expect(merged.spec.containers[0].ports).toEqual([
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 80, protocol: 'UDP' },
    ]);
  });

  it('(via toFieldSet) rejects duplicate keys only in apply configurations', () => {
    const dup = { spec: { containers: [{ name: 'a' }, { name: 'a' }] } };
    expect(() => toFieldSet(dup, root, { rejectDuplicates: true })).toThrow(
      '.spec.containers[name="a"]: duplicate entries for key',
    );
    expect(toFieldSet(dup, root).paths()).toContainEqual(['f:spec', 'f:containers', 'k:{"name":"a"}']);
  });
});

describe('removePath', () => {
  it('removes fields, list-map items and set values, ignoring missing paths', () => {
    const obj = { spec: { image: 'i', containers: [{ name: 'a' }, { name: 'b' }], tags: ['x', 'y'] } };
    removePath(obj, ['f:spec', 'f:image']);
    removePath(obj, ['f:spec', 'f:containers', 'k:{"name":"a"}']);
    removePath(obj, ['f:spec', 'f:tags', 'v:"y"']);
    removePath(obj, ['f:spec', 'f:nope', 'f:deeper']);
    expect(obj).toEqual({ spec: { containers: [{ name: 'b' }], tags: ['x'] } });
  });
});
