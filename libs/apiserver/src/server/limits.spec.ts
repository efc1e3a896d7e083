import { checkNesting, MAX_NESTING_DEPTH, nestingDepth } from './limits';
import { StatusError } from './status';

const chain = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('nestingDepth', () => {
  it('counts objects and arrays, not scalars, along the deepest branch', () => {
    expect([1, 'x', null, {}, [], { a: 1 }, { a: [1, { b: {} }], c: {} }].map((v) => nestingDepth(v))).toEqual([
      0, 0, 0, 1, 1, 1, 4,
    ]);
  });

  it('measures a million levels without recursion, and stops early when asked', () => {
    expect(nestingDepth(chain(1_000_000))).toBe(1_000_000);
    expect(nestingDepth(chain(1_000_000), 10)).toBe(11);
  });
});

describe('checkNesting', () => {
  it('lets MAX_NESTING_DEPTH levels through and refuses one more with a 400', () => {
    expect(() => checkNesting(chain(MAX_NESTING_DEPTH))).not.toThrow();
    let err: unknown;
    try {
      checkNesting(chain(MAX_NESTING_DEPTH + 1));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).toStatus()).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: `error decoding request body: exceeded max depth of ${MAX_NESTING_DEPTH}`,
    });
  });
});
