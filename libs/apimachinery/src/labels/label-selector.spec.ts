import { LabelSelectorError } from './requirement';
import { formatLabelSelector, labelSelectorAsSelector, matchesLabelSelector } from './selector';

describe('label selectors', () => {
  const sel = {
    matchLabels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['web', 'api'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'owned', operator: 'Exists' },
      { key: 'skip', operator: 'DoesNotExist' },
    ],
  };
  it('matches all requirements', () => {
    expect(matchesLabelSelector(sel, { 'cluster.x-k8s.io/cluster-name': 'c1', tier: 'api', owned: '' })).toBe(true);
    expect(
      matchesLabelSelector(sel, { 'cluster.x-k8s.io/cluster-name': 'c1', tier: 'api', owned: '', env: 'prod' }),
    ).toBe(false);
    expect(matchesLabelSelector(sel, { 'cluster.x-k8s.io/cluster-name': 'c1', tier: 'db', owned: '' })).toBe(false);
    expect(matchesLabelSelector(sel, { 'cluster.x-k8s.io/cluster-name': 'c1', tier: 'api' })).toBe(false);
    expect(
      matchesLabelSelector(sel, { 'cluster.x-k8s.io/cluster-name': 'c1', tier: 'api', owned: '', skip: 'x' }),
    ).toBe(false);
    expect(matchesLabelSelector(sel, { 'cluster.x-k8s.io/cluster-name': 'c2', tier: 'api', owned: '' })).toBe(false);
  });
  it('treats {} as everything and undefined as nothing', () => {
    expect(matchesLabelSelector({}, {})).toBe(true);
    expect(labelSelectorAsSelector({}).empty).toBe(true);
    expect(matchesLabelSelector(undefined, { a: 'b' })).toBe(false);
  });
  it('formats sorted by key like labels.Selector.String()', () => {
    expect(formatLabelSelector(sel)).toBe(
      'cluster.x-k8s.io/cluster-name=c1,env notin (prod),owned,!skip,tier in (api,web)',
    );
    expect(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] })).toBe('a in (x)');
  });
  it('rejects invalid selectors with a clear error', () => {
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow(
      LabelSelectorError,
    );
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toThrow(
      /can't be empty/,
    );
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    ).toThrow(/must be empty/);
  });
});
