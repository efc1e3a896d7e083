import { appendTo, groupBy } from './group';

describe('appendTo', () => {
  it('creates the list under a new key and appends to an existing one in place', () => {
    const groups = new Map<string, number[]>();
    appendTo(groups, 'a', 1);
    const list = groups.get('a');
    appendTo(groups, 'a', 2, 3);
    appendTo(groups, 'b');
    expect(groups.get('a')).toBe(list);
    expect([...groups]).toEqual([
      ['a', [1, 2, 3]],
      ['b', []],
    ]);
  });
});

describe('groupBy', () => {
  it('keeps the order of the items and leaves out those without a key', () => {
    const groups = groupBy(['b1', 'a1', 'x', 'b2', 'a2'], (s) => (s.length === 2 ? s[0] : undefined));
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
    ]);
  });
});
