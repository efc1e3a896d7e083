// Kubernetes versions counted over Machines and summed over MachineDeployments/MachineSets/control planes, as
// upstream internal/util/version/version.go (AggregateStatusVersions, VersionsFromMachines): semantic versions in
// order (build metadata compared as util/version Compare(WithBuildTags())), then the others lexicographically.
import { parseKubernetesVersion } from '@capi/apimachinery';
import type { Machine } from './types/machine';

export interface StatusVersion {
  version: string;
  replicas?: number;
}

interface Ordered {
  version: string;
  replicas: number;
  order: number;
}

/** Upstream AggregateStatusVersions: replicas summed per version; undefined when there is none. */
export function aggregateStatusVersions(versions: readonly StatusVersion[]): StatusVersion[] | undefined {
  const out: Ordered[] = [];
  const index = new Map<string, number>();
  for (const v of versions) {
    if (!v.version) continue;
    const i = index.get(v.version);
    if (i !== undefined) {
      out[i].replicas += v.replicas ?? 0;
      continue;
    }
    index.set(v.version, out.length);
    out.push({ version: v.version, replicas: v.replicas ?? 0, order: out.length });
  }
  return sorted(out);
}

/**
 * Upstream VersionsFromMachines: one replica per Machine at its Node's kubelet version, else spec.version; Machines
 * ordered by creation time then name, so versions that cannot be ordered keep the older Machine's first.
 */
export function versionsFromMachines(machines: readonly Machine[]): StatusVersion[] | undefined {
  const byAge = [...machines].sort((a, b) => {
    const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
    if (ta !== tb) return ta - tb;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  const out: Ordered[] = [];
  const index = new Map<string, number>();
  for (const m of byAge) {
    const kubelet = (m.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion;
    const version = kubelet || m.spec.version;
    if (!version) continue;
    const i = index.get(version);
    if (i !== undefined) {
      out[i].replicas++;
      continue;
    }
    index.set(version, out.length);
    out.push({ version, replicas: 1, order: out.length });
  }
  return sorted(out);
}

function sorted(versions: Ordered[]): StatusVersion[] | undefined {
  if (versions.length === 0) return undefined;
  return [...versions].sort(compareOrdered).map((v) => ({ version: v.version, replicas: v.replicas }));
}

/** Upstream statusVersionLess as a comparator. */
function compareOrdered(i: Ordered, j: Ordered): number {
  const vi = parseKubernetesVersion(i.version);
  const vj = parseKubernetesVersion(j.version);
  const byName = () => (i.version < j.version ? -1 : i.version > j.version ? 1 : i.order - j.order);
  if (vi && vj) {
    const cmp = vi.compare(vj) || compareBuild(vi.build, vj.build);
    if (cmp === 2) return i.order - j.order;
    return cmp === 0 ? byName() : cmp;
  }
  if (vi) return -1;
  if (vj) return 1;
  return byName();
}

/**
 * util/version buildIdentifiers.compare: numeric identifiers below strings, different strings are not comparable
 * (2: random build identifiers such as commit hashes), the longer list is greater when all else is equal.
 */
function compareBuild(a: readonly string[], b: readonly string[]): number {
  const isNum = (s: string) => /^[0-9]*$/.test(s);
  for (let k = 0; k < a.length && k < b.length; k++) {
    const [x, y] = [a[k], b[k]];
    if (isNum(x) !== isNum(y)) return isNum(x) ? -1 : 1;
    if (isNum(x)) {
      const [nx, ny] = [BigInt(x || '0'), BigInt(y || '0')];
      if (nx !== ny) return nx < ny ? -1 : 1;
    } else if (x !== y) return 2;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
