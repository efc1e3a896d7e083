import { canonicalJson } from '@capi/apimachinery';
import { sortKeysDeep } from './values';

describe('sortKeysDeep', () => {
  it('sorts the keys of every object, keeps array order, leaves scalars', () => {
    const out = sortKeysDeep({ b: 1, a: { d: [{ z: 1, y: 2 }, 'x'], c: null } });
    expect(JSON.stringify(out)).toBe('{"a":{"c":null,"d":[{"y":2,"z":1},"x"]},"b":1}');
    expect(JSON.stringify(out)).toBe(canonicalJson(out));
    expect(sortKeysDeep('s')).toBe('s');
  });
});
