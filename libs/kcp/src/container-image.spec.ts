// Upstream util/container/image_test.go (the cases of the functions KCP uses).
import {
  imageFromString,
  imageString,
  modifyImageRepository,
  modifyImageTag,
  semverToOciImageTag,
} from './container-image';

describe('container images (util/container)', () => {
  it.each([
    ['k8s.gcr.io/kube-proxy:v1.16.2', { repository: 'k8s.gcr.io', name: 'kube-proxy', tag: 'v1.16.2', digest: '' }],
    [
      'registry.k8s.io/coredns/coredns:v1.11.3',
      { repository: 'registry.k8s.io/coredns', name: 'coredns', tag: 'v1.11.3', digest: '' },
    ],
    ['localhost:5000/a/b:1', { repository: 'localhost:5000/a', name: 'b', tag: '1', digest: '' }],
  ])('ImageFromString(%s)', (s, want) => {
    expect(imageFromString(s)).toEqual(want);
    expect(imageString(imageFromString(s))).toBe(s);
  });

  it.each(['coredns:1.6.2', 'foo/bar:1', 'k8s.gcr.io/asd:1123/asd:coredns:1.6.1', 'UPPER.io/Name:1', ''])(
    'ImageFromString(%s) fails (not canonical or not a reference)',
    (s) => expect(() => imageFromString(s)).toThrow(),
  );

  it.each([
    ['k8s.gcr.io/kube-proxy:v1.16.2', 'v1.16.3', 'k8s.gcr.io/kube-proxy:v1.16.3'],
    ['kube-proxy:v1.16.2', 'v1.16.3', 'docker.io/library/kube-proxy:v1.16.3'],
    ['k8s.gcr.io/kube-proxy', 'v1.16.3+build1', 'k8s.gcr.io/kube-proxy:v1.16.3_build1'],
  ])('ModifyImageTag(%s, %s) = %s', (image, tag, want) => expect(modifyImageTag(image, tag)).toBe(want));

  it('ModifyImageTag refuses digests and bad names', () => {
    expect(() => modifyImageTag(`k8s.gcr.io/kube-proxy@sha256:${'a'.repeat(64)}`, 'v1')).toThrow(/digest/);
    expect(() => modifyImageTag('', 'v1')).toThrow();
  });

  it.each([
    ['k8s.gcr.io/kube-proxy:v1.16.3', 'foo.bar.example/baz/qux', 'foo.bar.example/baz/qux/kube-proxy:v1.16.3'],
    ['k8s.gcr.io/kube-proxy:v1.16.3', 'example.com/', 'example.com/kube-proxy:v1.16.3'],
    ['docker.io/library/kube-proxy:v1.16.3', 'docker.io/library', 'kube-proxy:v1.16.3'],
  ])('ModifyImageRepository(%s, %s) = %s', (image, repo, want) =>
    expect(modifyImageRepository(image, repo)).toBe(want),
  );

  it('ModifyImageRepository refuses invalid repositories and untagged images', () => {
    expect(() => modifyImageRepository('k8s.gcr.io/kube-proxy:v1.16.3', '%%%')).toThrow(/repository name/);
    expect(() => modifyImageRepository('k8s.gcr.io/kube-proxy', 'example.com')).toThrow(/must be tagged/);
  });

  it('SemverToOCIImageTag', () => expect(semverToOciImageTag('v1.2.3+build.1')).toBe('v1.2.3_build.1'));
});
