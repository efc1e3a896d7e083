import { groupOf, parseApiVersion, parseGroupVersion } from './group-version';

describe('group versions', () => {
  it('splits group/version; a bare version is the core group', () => {
    expect(parseApiVersion('cluster.x-k8s.io/v1beta2')).toEqual({ group: 'cluster.x-k8s.io', version: 'v1beta2' });
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(groupOf('apps/v1')).toBe('apps');
    expect(groupOf('v1')).toBe('');
  });

  it('parseGroupVersion follows schema.ParseGroupVersion', () => {
    expect(parseGroupVersion('')).toEqual({ group: '', version: '' });
    expect(parseGroupVersion('/')).toEqual({ group: '', version: '' });
    expect(parseGroupVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseGroupVersion('hooks.runtime.cluster.x-k8s.io/v1alpha1')).toEqual({
      group: 'hooks.runtime.cluster.x-k8s.io',
      version: 'v1alpha1',
    });
    expect(() => parseGroupVersion('a/b/c')).toThrow('unexpected GroupVersion string: a/b/c');
  });
});
