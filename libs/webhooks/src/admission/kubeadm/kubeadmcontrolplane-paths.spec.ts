// Ported from controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane_test.go TestPathsMatch, TestAllowed, TestPaths.
import { allowed, goJson, immutableFieldErrors, paths, pathsMatch } from './kubeadmcontrolplane-paths';

describe('pathsMatch (TestPathsMatch)', () => {
  it.each([
    ['a simple match case', ['a', 'b', 'c'], ['a', 'b', 'c'], true],
    ["a case can't match", ['a', 'b', 'c'], ['a'], false],
    ['an empty path for whatever reason', ['a'], [''], false],
    ['empty allowed matches nothing', [], ['a'], false],
    ['wildcard match', ['a', 'b', 'c', 'd', '*'], ['a', 'b', 'c', 'd', 'e', 'f', 'g'], true],
    ['long path', ['a'], ['a', 'b', 'c', 'd', 'e', 'f', 'g'], false],
  ])('%s', (_name, allowedPath, path, match) => {
    expect(pathsMatch(allowedPath, path)).toBe(match);
  });
});

describe('allowed (TestAllowed)', () => {
  it.each([
    [
      'matches the first and none of the others',
      [
        ['a', 'b', 'c'],
        ['b', 'd', 'x'],
      ],
      ['a', 'b', 'c'],
      true,
    ],
    [
      'matches none in the allow list',
      [
        ['a', 'b', 'c'],
        ['b', 'c', 'd'],
        ['e', '*'],
      ],
      ['a'],
      false,
    ],
    ['an empty path matches nothing', [['a', 'b', 'c'], ['*'], ['b', 'c']], [], false],
    ['empty allowList matches nothing', [], ['a'], false],
    [
      'length test check',
      [
        ['a', 'b', 'c', 'd', 'e', 'f'],
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
      ],
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
      false,
    ],
  ])('%s', (_name, allowList, path, match) => {
    expect(allowed(allowList, path)).toBe(match);
  });
});

describe('paths (TestPaths)', () => {
  it.each([
    [
      'basic check',
      [],
      {
        spec: {
          replicas: 4,
          version: '1.17.3',
          kubeadmConfigSpec: {
            clusterConfiguration: { version: 'v2.0.1' },
            initConfiguration: { bootstrapToken: ['abcd', 'defg'] },
            joinConfiguration: null,
          },
        },
      },
      [
        ['spec', 'replicas'],
        ['spec', 'version'],
        ['spec', 'kubeadmConfigSpec', 'joinConfiguration'],
        ['spec', 'kubeadmConfigSpec', 'clusterConfiguration', 'version'],
        ['spec', 'kubeadmConfigSpec', 'initConfiguration', 'bootstrapToken'],
      ],
    ],
    ['empty input makes for empty output', ['a'], {}, []],
    [
      'long recursive check with two keys',
      [],
      { spec: { kubeadmConfigSpec: { clusterConfiguration: { version: 'v2.0.1', abc: 'd' } } } },
      [
        ['spec', 'kubeadmConfigSpec', 'clusterConfiguration', 'version'],
        ['spec', 'kubeadmConfigSpec', 'clusterConfiguration', 'abc'],
      ],
    ],
  ])('%s', (_name, path, diff, expected) => {
    const got = paths(path, diff);
    expect(got).toHaveLength(expected.length);
    expect(got).toEqual(expect.arrayContaining(expected));
  });
});

describe('the update diff reads objects as Go marshals them', () => {
  it('drops empty strings, lists, objects and nulls', () => {
    expect(goJson({ a: '', b: [], c: {}, d: null, e: { f: '' }, g: 0, h: false, i: [{}] })).toEqual({
      g: 0,
      h: false,
      i: [{}],
    });
  });

  it('an emptied struct is no change; a removed value is', () => {
    const old = {
      spec: {
        version: 'v1.2.3',
        kubeadmConfigSpec: { clusterConfiguration: { certificatesDir: '/etc/pki', dns: {} } },
      },
    };
    expect(
      immutableFieldErrors(old, {
        spec: { kubeadmConfigSpec: { clusterConfiguration: { certificatesDir: '/etc/pki' } } },
      }),
    ).toEqual([]);
    const removed = {
      spec: { version: 'v1.2.3', kubeadmConfigSpec: { clusterConfiguration: { imageRepository: 'r' } } },
    };
    expect(immutableFieldErrors(old, removed)).toEqual([
      {
        type: 'FieldValueForbidden',
        field: 'spec.kubeadmConfigSpec.clusterConfiguration.certificatesDir',
        detail: 'cannot be modified',
      },
    ]);
  });

  it('status and top-level fields outside the allow list cannot be modified', () => {
    expect(immutableFieldErrors({ status: { replicas: 1 } }, { status: { replicas: 2 } })).toEqual([
      { type: 'FieldValueForbidden', field: 'status.replicas', detail: 'cannot be modified' },
    ]);
  });
});
