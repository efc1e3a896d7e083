import { evalJsonPath, toTable } from './table';
import { resourcesFromCrd } from './registry';

describe('printer columns', () => {
  const obj = { spec: { size: 3, items: [{ n: 'a' }] }, status: { conditions: [{ type: 'Other', status: 'False' }, { type: 'Ready', status: 'True' }] } };
  it.each([
    ['.spec.size', 3],
    ['.spec.items[0].n', 'a'],
    ['.status.conditions[?(@.type=="Ready")].status', 'True'],
    ['.status.missing.deep', undefined],
  ])('%s', (path, expected) => expect(evalJsonPath(obj, path)).toEqual(expected));

  it('builds a Table with Name, the CRD columns and Age', () => {
    const [info] = resourcesFromCrd({ metadata: { name: 'ws.x.io' }, spec: { group: 'x.io', scope: 'Namespaced', names: { kind: 'W', plural: 'ws' },
      versions: [{ name: 'v1', served: true, storage: true, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] }] } });
    const t = toTable(info, [{ metadata: { name: 'w', creationTimestamp: '2025-01-01T00:00:00Z' }, ...obj }], {}, new Date('2025-01-01T00:02:30Z'));
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Size', 'Age']);
    expect(t.rows[0].cells).toEqual(['w', 3, '2m']);
  });
});
