import {
  annotationKeysWithPrefix,
  hasAnnotationWithPrefix,
  KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION,
  PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX,
  PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX,
} from './deletion-hooks';

describe('deletion hook annotations (upstream api/core/v1beta2 prefixes, util/annotations HasWithPrefix)', () => {
  it('are upstream’s exact keys', () => {
    expect(PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX).toBe('pre-drain.delete.hook.machine.cluster.x-k8s.io');
    expect(PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX).toBe('pre-terminate.delete.hook.machine.cluster.x-k8s.io');
    expect(KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION).toBe(
      'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup',
    );
  });

  it('any key with the prefix counts, listed sorted', () => {
    const annotations = {
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/b': '',
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/a': 'owner',
      'example.com/pre-drain.delete.hook.machine.cluster.x-k8s.io': '',
    };
    expect(hasAnnotationWithPrefix(PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX, annotations)).toBe(true);
    expect(annotationKeysWithPrefix(PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX, annotations)).toEqual([
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/a',
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/b',
    ]);
    expect(hasAnnotationWithPrefix(PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX, annotations)).toBe(false);
    expect(hasAnnotationWithPrefix(PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX, undefined)).toBe(false);
    expect(annotationKeysWithPrefix(PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX, undefined)).toEqual([]);
  });
});
