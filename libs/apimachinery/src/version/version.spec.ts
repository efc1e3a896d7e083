import { compareKubernetesVersions, parseKubernetesVersion } from './version';

const sorted = (...versions: string[]) => [...versions].sort(compareKubernetesVersions);

describe('parseKubernetesVersion (semver.ParseTolerant)', () => {
  it('reads versions with or without the leading v, short ones, leading zeros and spaces', () => {
    expect(parseKubernetesVersion('v1.31.2')?.format()).toBe('1.31.2');
    expect(parseKubernetesVersion('1.31.2')?.format()).toBe('1.31.2');
    expect(parseKubernetesVersion(' v1.31 ')?.format()).toBe('1.31.0');
    expect(parseKubernetesVersion('v1')?.format()).toBe('1.0.0');
    expect(parseKubernetesVersion('v01.031.02')?.format()).toBe('1.31.2');
    expect(parseKubernetesVersion('v1.32.0-rc.1+build.7')?.prerelease).toEqual(['rc', 1]);
    expect(parseKubernetesVersion('v1.32.0-rc.1+build.7')?.build).toEqual(['build', '7']);
  });

  it('rejects what is not a version', () => {
    for (const bad of ['', 'latest', 'v1.31-rc.1', 'v1.31.x', '1.2.3.4', 'vv1.2.3']) {
      expect([bad, parseKubernetesVersion(bad)]).toEqual([bad, undefined]);
    }
  });
});

describe('compareKubernetesVersions', () => {
  it('compares numerically per component', () => {
    expect(sorted('v1.10.0', 'v1.9.3', 'v1.9.10')).toEqual(['v1.9.3', 'v1.9.10', 'v1.10.0']);
    expect(compareKubernetesVersions('v1.31', 'v1.31.0')).toBe(0);
  });

  it('orders pre-releases before their release and by their identifiers', () => {
    expect(sorted('v1.31.0', 'v1.31.0-rc.1', 'v1.31.0-alpha.2', 'v1.31.0-beta.0', 'v1.30.5')).toEqual([
      'v1.30.5',
      'v1.31.0-alpha.2',
      'v1.31.0-beta.0',
      'v1.31.0-rc.1',
      'v1.31.0',
    ]);
    expect(compareKubernetesVersions('v1.31.0-rc.2', 'v1.31.0-rc.10')).toBeLessThan(0);
    expect(compareKubernetesVersions('v1.31.0-rc.1', 'v1.30.9')).toBeGreaterThan(0);
  });

  it('uses build metadata when all else is equal; a version without one is lower', () => {
    expect(compareKubernetesVersions('v1.31.0+build.2', 'v1.31.0+build.10')).toBeLessThan(0);
    expect(compareKubernetesVersions('v1.31.0', 'v1.31.0+build.1')).toBeLessThan(0);
  });

  it('orders what is not a version as 0.0.0', () => {
    expect(sorted('v1.31.0', 'garbage', 'v0.0.1')).toEqual(['garbage', 'v0.0.1', 'v1.31.0']);
  });
});
