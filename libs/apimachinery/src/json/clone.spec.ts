import { cloneJson, deepFreeze } from './clone';

describe('cloneJson', () => {
  it('copies nested objects and arrays deeply, keeping primitives, null and undefined members', () => {
    const src = {
      a: 1,
      b: 'x',
      c: null,
      d: undefined,
      e: true,
      list: [{ k: 'v', n: [1, 2] }],
      meta: { labels: { x: 'y' } },
    };
    const copy = cloneJson(src);
    expect(copy).toStrictEqual(src);
    copy.list[0].n.push(3);
    copy.meta.labels.x = 'changed';
    expect(src.list[0].n).toEqual([1, 2]);
    expect(src.meta.labels.x).toBe('y');
    expect(copy.list).not.toBe(src.list);
  });

  it('returns primitives as they are', () => {
    expect([cloneJson(0), cloneJson('s'), cloneJson(null), cloneJson(undefined)]).toEqual([0, 's', null, undefined]);
  });

  it('deepFreeze freezes nested objects and arrays; a copy of a frozen value is mutable again', () => {
    const src = { meta: { labels: { x: 'y' } }, list: [{ n: [1] }] };
    expect(deepFreeze(src)).toBe(src);
    expect(Object.isFrozen(src.meta.labels) && Object.isFrozen(src.list[0].n)).toBe(true);
    expect(() => {
      'use strict';
      (src.meta.labels as Record<string, string>).x = 'changed';
    }).toThrow(TypeError);
    const copy = cloneJson(src);
    copy.meta.labels.x = 'changed';
    expect(copy.meta.labels.x).toBe('changed');
  });
});
