import { LabelSelectorError } from './requirement';
import { formatLabelSelector, parseSelector } from './selector';

describe('label selectors', () => {
  const matches = (sel: string, labels: Record<string, string>) => parseSelector(sel).matches(labels);

  it('parses every operator of the string form', () => {
    // Sorted by key, operators as written (labels.Parse), where the hand-written parser kept the input order and
    // turned "=" and "!=" into In and NotIn.
    expect(parseSelector('a=b,c!=d,e in (x, y),f notin (z),g,!h, cluster.x-k8s.io/name==c1').requirements).toEqual([
      { key: 'a', operator: '=', values: ['b'] },
      { key: 'c', operator: '!=', values: ['d'] },
      { key: 'cluster.x-k8s.io/name', operator: '==', values: ['c1'] },
      { key: 'e', operator: 'in', values: ['x', 'y'] },
      { key: 'f', operator: 'notin', values: ['z'] },
      { key: 'g', operator: 'exists', values: [] },
      { key: 'h', operator: '!', values: [] },
    ]);
    expect(parseSelector('').requirements).toEqual([]);
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
    // "e in ()" left this list: labels.Parse (and kube-apiserver) read it as "e in ('')".
    for (const bad of ['a=b,', 'e in (x', 'bad key=x', 'a=b c', '-a=b']) {
      expect(() => parseSelector(bad)).toThrow(LabelSelectorError);
    }
  });

  it('renders a LabelSelector to the string form that parses back', () => {
    const s = formatLabelSelector({
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
