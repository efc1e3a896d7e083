import { scalingTable } from './scaling';

describe('scalingTable', () => {
  it('puts seconds per Machine of each size side by side and divides the largest by the smallest', () => {
    const { header, rows } = scalingTable([
      {
        replicas: 1000,
        results: [
          { phase: 'create', seconds: 30 },
          { phase: 'in-place', seconds: 60 },
        ],
      },
      {
        replicas: 100,
        results: [
          { phase: 'create', seconds: 2 },
          { phase: 'in-place', seconds: 5 },
        ],
      },
    ]);
    expect(header).toEqual(['phase', 's/Machine at 100', 's/Machine at 1000', '1000 vs 100']);
    expect(rows).toEqual([
      ['create', 0.02, 0.03, 0.03 / 0.02],
      ['in-place', 0.05, 0.06, 0.06 / 0.05],
    ]);
  });

  it('a phase missing at one size is NaN there, not a wrong ratio', () => {
    const { rows } = scalingTable([
      { replicas: 10, results: [{ phase: 'create', seconds: 1 }] },
      { replicas: 20, results: [] },
    ]);
    expect(rows).toEqual([['create', 0.1, Number.NaN, Number.NaN]]);
  });
});
