import { PENDING_HOOKS_ANNOTATION } from './constants';
import {
  addToCommaList,
  annotationsMergePatch,
  formatCommaList,
  isPending,
  markAsDoneAnnotations,
  markAsPendingAnnotations,
  parseCommaList,
  removeFromCommaList,
} from './pendinghooks';

describe('comma lists', () => {
  it('parses with set semantics, drops empties and sorts', () => {
    expect(parseCommaList('b,,a,b, ')).toEqual(['a', 'b']);
    expect(parseCommaList(undefined)).toEqual([]);
    expect(formatCommaList(['z', 'a', 'z'])).toBe('a,z');
    expect(addToCommaList('b', 'a', 'b')).toBe('a,b');
    expect(removeFromCommaList('a,b,c', 'b')).toBe('a,c');
  });
});

describe('pending hooks annotations', () => {
  it('marks a hook pending, keeping other annotations and sorting', () => {
    const r = markAsPendingAnnotations({ x: '1', [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' }, 'BeforeClusterUpgrade');
    expect(r.changed).toBe(true);
    expect(r.annotations).toEqual({ x: '1', [PENDING_HOOKS_ANNOTATION]: 'BeforeClusterUpgrade,UpdateMachine' });
  });
  it('reports no change when already pending and does not alias the input', () => {
    const input = { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' };
    const r = markAsPendingAnnotations(input, 'UpdateMachine');
    expect(r.changed).toBe(false);
    expect(r.annotations).not.toBe(input);
  });
  it('marks done and deletes the annotation when empty', () => {
    const r = markAsDoneAnnotations({ a: 'b', [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' }, 'UpdateMachine');
    expect(r).toEqual({ annotations: { a: 'b' }, changed: true });
    expect(markAsDoneAnnotations({ a: 'b' }, 'UpdateMachine').changed).toBe(false);
    expect(
      markAsDoneAnnotations({ [PENDING_HOOKS_ANNOTATION]: 'A,UpdateMachine' }, 'UpdateMachine').annotations,
    ).toEqual({ [PENDING_HOOKS_ANNOTATION]: 'A' });
  });
  it('tests membership', () => {
    expect(
      isPending('UpdateMachine', { metadata: { annotations: { [PENDING_HOOKS_ANNOTATION]: 'A,UpdateMachine' } } }),
    ).toBe(true);
    expect(
      isPending('UpdateMachine', { metadata: { annotations: { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachineX' } } }),
    ).toBe(false);
    expect(isPending('UpdateMachine', { metadata: {} })).toBe(false);
  });
});

describe('annotationsMergePatch', () => {
  it('sets changed keys and nulls removed ones', () => {
    expect(annotationsMergePatch({ a: '1', b: '2' }, { a: '1', c: '3' })).toEqual({
      metadata: { annotations: { b: null, c: '3' } },
    });
    expect(annotationsMergePatch({ a: '1' }, { a: '1' })).toBeUndefined();
  });
});
