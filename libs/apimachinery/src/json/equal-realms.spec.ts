import { runInNewContext } from 'node:vm';
import { jsonEqual as sameJson } from './equal';

describe('sameJson', () => {
  it('ignores key order and realms, not content', () => {
    const foreign = runInNewContext('({ b: [1, { c: "x" }], a: 1 })');
    expect(sameJson(foreign, { a: 1, b: [1, { c: 'x' }] })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson(undefined, {})).toBe(false);
  });
});
