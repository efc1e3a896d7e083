import { listToString } from './list';

describe('listToString (upstream util/log ListToString)', () => {
  it.each([
    [[], 3, ''],
    [['a'], 3, 'a'],
    [['a', 'b', 'c'], 3, 'a, b, c'],
    [['a', 'b', 'c', 'd', 'e'], 3, 'a, b, c, ... (2 more)'],
    [['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7', 'w8'], 5, 'w1, w2, w3, w4, w5, ... (3 more)'],
    // StringListToString's limit of five.
    [[], 5, ''],
    [['a', 'b', 'c', 'd', 'e'], 5, 'a, b, c, d, e'],
    [['a', 'b', 'c', 'd', 'e', 'f'], 5, 'a, b, c, d, e, ... (1 more)'],
  ])('%j limited to %i → %j', (items, n, expected) => {
    expect(listToString(items, n)).toBe(expected);
  });
});
