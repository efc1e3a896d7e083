import { formatNumber, renderTable } from './table';

describe('renderTable', () => {
  it('pads columns, right-aligns numbers and draws a rule under the headers', () => {
    expect(
      renderTable(
        ['name', 'ms'],
        [
          ['a', 1.5],
          ['longer', 12],
        ],
      ),
    ).toBe(['name    ms', '------  ----', 'a       1.50', 'longer    12', ''].join('\n'));
  });

  it('rejects rows with the wrong number of cells', () => {
    expect(() => renderTable(['a', 'b'], [['x']])).toThrow(/1 cells, expected 2/);
  });

  it('formats numbers by magnitude', () => {
    expect(formatNumber(3)).toBe('3');
    expect(formatNumber(0.12345)).toBe('0.123');
    expect(formatNumber(123.456)).toBe('123.5');
    expect(formatNumber(Number.NaN)).toBe('NaN');
  });
});
