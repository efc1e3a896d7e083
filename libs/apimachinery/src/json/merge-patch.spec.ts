import { createMergePatch, mergePatch } from './merge-patch';

describe('mergePatch (RFC 7386)', () => {
  it('follows the RFC 7386 appendix examples', () => {
    expect(mergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(mergePatch({ a: 'b' }, { a: null })).toEqual({});
    expect(mergePatch({ a: 'b', b: 'c' }, { a: null })).toEqual({ b: 'c' });
    expect(mergePatch({ a: ['b'] }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'c' }, { a: ['b'] })).toEqual({ a: ['b'] });
    expect(mergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } })).toEqual({ a: { b: 'd' } });
    expect(mergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch(['a', 'b'], ['c', 'd'])).toEqual(['c', 'd']);
    expect(mergePatch({ a: 'b' }, ['c'])).toEqual(['c']);
    expect(mergePatch({ a: 'foo' }, null)).toBeNull();
    expect(mergePatch({ a: 'foo' }, 'bar')).toBe('bar');
    expect(mergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(mergePatch([1, 2], { a: 'b', c: null })).toEqual({ a: 'b' });
    expect(mergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });

  it('modifies neither argument and shares nothing with the patch', () => {
    const target = { keep: { x: 1 }, change: { y: 2 } };
    const patch = { change: { y: 3 }, list: [{ z: 1 }] };
    const out = mergePatch(target, patch) as typeof target & typeof patch;
    expect(target).toEqual({ keep: { x: 1 }, change: { y: 2 } });
    expect(patch).toEqual({ change: { y: 3 }, list: [{ z: 1 }] });
    expect(out.list).not.toBe(patch.list);
    expect(out.keep).toBe(target.keep);
  });
});

describe('createMergePatch', () => {
  it('is undefined for equal values (key order and undefined members ignored)', () => {
    expect(createMergePatch({ a: 1, b: { c: 2 } }, { b: { c: 2 }, a: 1, d: undefined })).toBeUndefined();
  });

  it('sets changed members, nulls removed ones and replaces arrays whole', () => {
    const from = { a: 1, b: { c: 2, d: 3 }, l: [1, 2], gone: 'x' };
    const to = { a: 1, b: { c: 2, d: 4 }, l: [1], added: true };
    const patch = createMergePatch(from, to);
    expect(patch).toEqual({ b: { d: 4 }, l: [1], gone: null, added: true });
    expect(mergePatch(from, patch)).toEqual(to);
  });

  it('replaces a non-object whole, and undefined becomes null', () => {
    expect(createMergePatch('a', { b: 1 })).toEqual({ b: 1 });
    expect(createMergePatch({ a: 1 }, undefined)).toBeNull();
  });
});
