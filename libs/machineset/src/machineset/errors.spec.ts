import { aggregateErrors, ScaleDownError } from './errors';

describe('aggregateErrors', () => {
  it('is undefined for none, the error itself for one, and "[a, b]" with the first reason for several', () => {
    expect(aggregateErrors([undefined])).toBeUndefined();
    const one = new ScaleDownError('a');
    expect(aggregateErrors([undefined, one])).toBe(one);
    const both = aggregateErrors([one, new Error('b')]);
    expect(both?.message).toBe('[a, b]');
    expect((both as { reason?: string }).reason).toBe('MachineDeletionFailed');
  });
});
