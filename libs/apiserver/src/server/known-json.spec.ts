import { rememberJson, stringifyKnown } from './known-json';

describe('stringifyKnown', () => {
  const item = (name: string) =>
    Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { 'a"b': 'é\n' } });

  it('reuses the known text of an object and of each list item, giving exactly JSON.stringify', () => {
    const a = item('a');
    const b = item('b');
    rememberJson(a, JSON.stringify(a));
    rememberJson(b, JSON.stringify(b));
    const list = {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '7', continue: 'x' },
      items: [a, b],
    };
    const stringify = jest.spyOn(JSON, 'stringify');
    const text = stringifyKnown(list);
    const calls = stringify.mock.calls.filter(([v]) => v === a || v === b).length;
    stringify.mockRestore();
    expect(text).toBe(JSON.stringify(list));
    expect(stringifyKnown(a)).toBe(JSON.stringify(a));
    expect(calls).toBe(0);
  });

  it('falls back to JSON.stringify when an item is unknown, items is not last, or for other values', () => {
    const a = item('a');
    rememberJson(a, JSON.stringify(a));
    const mixed = { kind: 'L', items: [a, item('c')] };
    const notLast = { items: [a], kind: 'L' };
    expect(stringifyKnown(mixed)).toBe(JSON.stringify(mixed));
    expect(stringifyKnown(notLast)).toBe(JSON.stringify(notLast));
    expect(stringifyKnown({ items: [] })).toBe('{"items":[]}');
    expect(stringifyKnown('s')).toBe('"s"');
    expect(stringifyKnown(null)).toBe('null');
  });
});
