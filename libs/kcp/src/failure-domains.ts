// Failure domain choices of KCP (upstream controlplane/kubeadm/pkg/control_plane.go FailureDomains,
// FailureDomainWithMostMachines, MachineInFailureDomainWithMostMachines, NextFailureDomainForScaleUp, on
// util/failuredomains PickMost / PickFewest). Upstream breaks a full tie by Go map order (random); here the order of
// the Cluster's failure domains decides, so the choice is repeatable.
import type { Cluster, Machine } from '@capi/api';

/** The Cluster's failure domains usable for control-plane Machines (controlPlane: true; unset means false). */
export const controlPlaneFailureDomains = (cluster: Cluster): string[] =>
  (cluster.status?.failureDomains ?? []).filter((d) => d.controlPlane === true).map((d) => d.name);

interface Aggregation {
  id: string;
  countPriority: number;
  countAll: number;
  index: number;
}

/** Machines per known failure domain, all and of a priority subset (upstream countByFailureDomain). */
function countByFailureDomain(
  domains: readonly string[],
  all: readonly Machine[],
  priority: readonly Machine[],
): Aggregation[] {
  const counters = new Map<string, Aggregation>();
  domains.forEach((id, index) => counters.set(id, { id, countPriority: 0, countAll: 0, index }));
  for (const m of all) {
    const a = m.spec.failureDomain ? counters.get(m.spec.failureDomain) : undefined;
    if (a) a.countAll++;
  }
  for (const m of priority) {
    const a = m.spec.failureDomain ? counters.get(m.spec.failureDomain) : undefined;
    if (a) a.countPriority++;
  }
  return [...counters.values()];
}

const fewestFirst = (a: Aggregation, b: Aggregation): number =>
  a.countPriority - b.countPriority || a.countAll - b.countAll || a.index - b.index;

/**
 * The failure domain to delete a Machine from: most priority (eligible) Machines, then most Machines overall; only
 * one with at least one eligible Machine (upstream PickMost). '' when none.
 */
export function pickMost(domains: readonly string[], all: readonly Machine[], eligible: readonly Machine[]): string {
  const sorted = countByFailureDomain(domains, all, eligible).sort(
    (a, b) => b.countPriority - a.countPriority || b.countAll - a.countAll || a.index - b.index,
  );
  return sorted.length > 0 && sorted[0].countPriority > 0 ? sorted[0].id : '';
}

/** The failure domain for a new Machine: fewest up-to-date Machines, then fewest overall (upstream PickFewest). */
export function pickFewest(domains: readonly string[], all: readonly Machine[], upToDate: readonly Machine[]): string {
  const sorted = countByFailureDomain(domains, all, upToDate).sort(fewestFirst);
  return sorted.length > 0 ? sorted[0].id : '';
}

const created = (m: Machine): number => (m.metadata.creationTimestamp ? Date.parse(m.metadata.creationTimestamp) : 0);
/** collections.Oldest: creation time, then name. */
export function oldest(machines: readonly Machine[]): Machine | undefined {
  return [...machines].sort(
    (a, b) => created(a) - created(b) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1),
  )[0];
}

/**
 * Eligible Machines outside the known failure domains go first (the oldest one's domain, possibly none); otherwise
 * pickMost (upstream FailureDomainWithMostMachines).
 */
export function failureDomainWithMostMachines(
  domains: readonly string[],
  all: readonly Machine[],
  eligible: readonly Machine[],
): string {
  const outside = eligible.filter((m) => !domains.includes(m.spec.failureDomain ?? ''));
  if (outside.length > 0) return oldest(outside)?.spec.failureDomain ?? '';
  return pickMost(domains, all, eligible);
}

/** The oldest eligible Machine in failureDomainWithMostMachines (upstream MachineInFailureDomainWithMostMachines). */
export function machineInFailureDomainWithMostMachines(
  domains: readonly string[],
  all: readonly Machine[],
  eligible: readonly Machine[],
): Machine | undefined {
  const fd = failureDomainWithMostMachines(domains, all, eligible);
  return oldest(eligible.filter((m) => (m.spec.failureDomain ?? '') === fd));
}

/**
 * Failure domain of a new Machine (upstream NextFailureDomainForScaleUp): fewest up-to-date, not deleting Machines,
 * then fewest Machines; undefined without failure domains.
 */
export function nextFailureDomainForScaleUp(
  domains: readonly string[],
  all: readonly Machine[],
  upToDateNotDeleting: readonly Machine[],
): string | undefined {
  if (domains.length === 0) return undefined;
  return pickFewest(domains, all, upToDateNotDeleting) || undefined;
}
