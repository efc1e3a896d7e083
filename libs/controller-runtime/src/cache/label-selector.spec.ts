import { labelSelectorToString, matchesSelector, parseSelector, SelectorParseError } from './label-selector';

describe('label selectors', () => {
  const matches = (sel: string, labels: Record<string, string>) => matchesSelector(parseSelector(sel), labels);

  it('parses every operator of the string form', () => {
    expect(parseSelector('a=b,c!=d,e in (x, y),f notin (z),g,!h, cluster.x-k8s.io/name==c1')).toEqual([
      { key: 'a', operator: 'In', values: ['b'] },
      { key: 'c', operator: 'NotIn', values: ['d'] },
      { key: 'e', operator: 'In', values: ['x', 'y'] },
      { key: 'f', operator: 'NotIn', values: ['z'] },
      { key: 'g', operator: 'Exists', values: [] },
      { key: 'h', operator: 'DoesNotExist', values: [] },
      { key: 'cluster.x-k8s.io/name', operator: 'In', values: ['c1'] },
    ]);
    expect(parseSelector('')).toEqual([]);
  });

  it('matches labels', () => {
    expect(matches('a=b,c!=d', { a: 'b' })).toBe(true);
    expect(matches('a=b,c!=d', { a: 'b', c: 'd' })).toBe(false);
    expect(matches('e in (x,y)', { e: 'y' })).toBe(true);
    expect(matches('e in (x,y)', {})).toBe(false);
    expect(matches('e notin (x)', {})).toBe(true);
    expect(matches('!f', { f: '' })).toBe(false);
    expect(matches('g', { g: '' })).toBe(true);
    expect(matches('', {})).toBe(true);
  });

  it('rejects malformed selectors with a clear error', () => {
    for (const bad of ['a=b,', 'e in (x', 'e in ()', 'bad key=x', 'a=b c', '-a=b']) {
      expect(() => parseSelector(bad)).toThrow(SelectorParseError);
    }
  });

  it('renders a LabelSelector to the string form that parses back', () => {
    const s = labelSelectorToString({
      matchLabels: { b: '2', a: '1' },
      matchExpressions: [
        { key: 'c', operator: 'In', values: ['y', 'x'] },
        { key: 'd', operator: 'DoesNotExist' },
      ],
    });
    expect(s).toBe('a=1,b=2,c in (x,y),!d');
    expect(matches(s, { a: '1', b: '2', c: 'x' })).toBe(true);
  });
});
