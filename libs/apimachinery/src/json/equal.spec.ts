import { canonicalJson, jsonEqual } from './equal';

describe('jsonEqual', () => {
  it('ignores key order at every depth, as kube-apiserver sorts the keys of custom resources', () => {
    const built = { type: 'Ready', status: 'True', reason: 'R', nested: { b: 1, a: [{ y: 2, x: 1 }] } };
    const served = JSON.parse('{"nested":{"a":[{"x":1,"y":2}],"b":1},"reason":"R","status":"True","type":"Ready"}');
    expect(JSON.stringify(built)).not.toBe(JSON.stringify(served));
    expect(jsonEqual(built, served)).toBe(true);
  });

  it('tells different values, lengths, types and keys apart; undefined members count as absent', () => {
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1], [1, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual({ a: undefined, b: 1 }, { b: 1, c: undefined })).toBe(true);
    expect(jsonEqual({ a: 1 }, [1])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order and leaves undefined members out', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson(undefined)).toBe('null');
  });
});
