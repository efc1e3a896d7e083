// Kubernetes versions ("v1.31.0", "v1.32.0-rc.1+build.2") parsed and ordered as semantic versions. Cluster API reads
// them with github.com/blang/semver's ParseTolerant and orders them with util/version Compare(WithBuildTags()), e.g.
// util/collections/machine_collection.go machinesByVersion; here both are built on the semver package.
import { SemVer } from 'semver';

/** strings.SplitN(s, ".", 3). */
function splitN3(s: string): string[] {
  const parts: string[] = [];
  let rest = s;
  for (let i = rest.indexOf('.'); parts.length < 2 && i >= 0; i = rest.indexOf('.')) {
    parts.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  return [...parts, rest];
}

/**
 * semver.ParseTolerant: surrounding spaces and a leading "v" are ignored, leading zeros dropped, a missing minor or
 * patch is 0 ("v1.31" is 1.31.0). Undefined when it is not a version.
 */
export function parseKubernetesVersion(version: string): SemVer | undefined {
  const parts = splitN3(version.trim().replace(/^v/, '')).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    // A short version cannot carry pre-release or build metadata.
    if (/[+-]/.test(parts[parts.length - 1])) return undefined;
    while (parts.length < 3) parts.push('0');
  }
  try {
    return new SemVer(parts.join('.'));
  } catch {
    return undefined;
  }
}

const ZERO = new SemVer('0.0.0');

/**
 * Orders Kubernetes versions: semantic version precedence (a pre-release sorts before its release:
 * v1.31.0-rc.1 < v1.31.0), then build metadata. A string that is not a version orders as 0.0.0, as upstream ignores
 * the parse error. Negative when a < b, 0 when equal, positive when a > b.
 */
export function compareKubernetesVersions(a: string, b: string): number {
  const x = parseKubernetesVersion(a) ?? ZERO;
  const y = parseKubernetesVersion(b) ?? ZERO;
  // SemVer.compareBuild looks at build metadata only; precedence comes first.
  return x.compare(y) || x.compareBuild(y);
}
