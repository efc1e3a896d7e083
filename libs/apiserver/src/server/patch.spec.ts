import { mergePatch } from '@capi/apimachinery';
import { jsonPatch, strategicMergePatch } from './patch';

describe('patches', () => {
  it('merge patch sets, replaces lists and deletes with null', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3] })).toEqual({
      a: 1,
      b: { d: 3, e: 4 },
      l: [3],
    });
  });
  it('json patch applies ops without mutating the input', () => {
    const src = { spec: { replicas: 1 } };
    expect(jsonPatch(src, [{ op: 'replace', path: '/spec/replicas', value: 3 }])).toEqual({ spec: { replicas: 3 } });
    expect(src.spec.replicas).toBe(1);
  });
  it('json patch with a failing test op is a 422', () => {
    expect(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(
      expect.objectContaining({ code: 422 }),
    );
  });
  it('json patch that is not an array is a 400', () => {
    expect(() => jsonPatch({}, { op: 'add' })).toThrow(expect.objectContaining({ code: 400 }));
  });
  it('strategic merge patch merges conditions by type and deletes with $patch', () => {
    const live = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Other', status: 'True' },
        ],
      },
    };
    const out = strategicMergePatch(live, {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Other', $patch: 'delete' },
          { type: 'New', status: 'True' },
        ],
      },
    });
    expect(out).toEqual({
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'New', status: 'True' },
        ],
      },
    });
  });
});
