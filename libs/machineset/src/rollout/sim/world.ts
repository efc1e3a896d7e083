// Simulated world of the rollout harness: one MD, its MachineSets and their Machines, plus the summaries the
// golden logs print and the "desired state" comparison that ends a run.
import { semanticEqual } from '../mdutil';
import { MachineDeploymentLike, MachineLike, MachineSetLike, RolloutAnnotations, nameOf } from '../types';

export interface World {
  md: MachineDeploymentLike;
  /** Kept sorted by name; new MachineSets are appended. */
  machineSets: MachineSetLike[];
  /** MS name -> its machines, kept sorted by machine number. */
  machines: Map<string, MachineLike[]>;
  /** Counter for machine names: the next machine is m(machineUID+1). */
  machineUID: number;
}

export const numberOf = (name: string, prefix: string): number => Number(name.slice(prefix.length));
export const byMachineNumber = (a: MachineLike, b: MachineLike) => numberOf(nameOf(a), 'm') - numberOf(nameOf(b), 'm');
export const byMSNumber = (a: MachineSetLike, b: MachineSetLike) =>
  numberOf(nameOf(a), 'ms') - numberOf(nameOf(b), 'ms');

export function newMachine(name: string, owner: string, failureDomain: string | undefined): MachineLike {
  return {
    metadata: {
      name,
      annotations: {},
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: owner, controller: true }],
    },
    spec: { failureDomain },
  };
}

export function newMachineSet(
  name: string,
  failureDomain: string | undefined,
  replicas: number,
  available: number,
): MachineSetLike {
  return {
    metadata: { name, annotations: {} },
    spec: { replicas, template: { spec: { failureDomain } } },
    status: { replicas, availableReplicas: available },
  };
}

export const hasAnnotation = (m: MachineLike, key: string) => m.metadata.annotations?.[key] !== undefined;
export const machinesOf = (w: World, msName: string): MachineLike[] => w.machines.get(msName) ?? [];
export const findMS = (w: World, name: string) => w.machineSets.find((ms) => nameOf(ms) === name);

/** All machines: MachineSets in list order, then each MachineSet's machines in list order. */
export function allMachines(w: World): MachineLike[] {
  return w.machineSets.flatMap((ms) => machinesOf(w, nameOf(ms)));
}

export function mdSummary(md: MachineDeploymentLike): string {
  const s = md.status ?? {};
  return `md: ${s.replicas ?? 0}/${md.spec.replicas ?? 0} replicas, ${s.availableReplicas ?? 0} available, ${s.upToDateReplicas ?? 0} upToDate`;
}

export function machinesSummary(w: World, ms: MachineSetLike): string {
  const acknowledged = new Set((ms.metadata.annotations?.[RolloutAnnotations.acknowledgedMove] ?? '').split(','));
  return machinesOf(w, nameOf(ms))
    .map((m) => {
      let s = nameOf(m);
      if (hasAnnotation(m, RolloutAnnotations.pendingAcknowledgeMove) && !acknowledged.has(nameOf(m))) s += '🟠';
      if (hasAnnotation(m, RolloutAnnotations.updateInProgress)) s += '🟡';
      return s;
    })
    .join(',');
}

export function msSummary(w: World, ms: MachineSetLike): string {
  const s = ms.status ?? {};
  return `${nameOf(ms)}: ${s.replicas ?? 0}/${ms.spec.replicas ?? 0} replicas, ${s.availableReplicas ?? 0} available, ${s.upToDateReplicas ?? 0} upToDate (${machinesSummary(w, ms)})`;
}

export function stateSummary(w: World): string {
  let out = `  ${mdSummary(w.md)}\n`;
  for (const ms of [...w.machineSets].sort(byMSNumber)) out += `  ${msSummary(w, ms)}\n`;
  return out;
}

/**
 * The state that ends a run: every initial MS scaled to 0, the MS matching the MD template (or a new one)
 * holding md.spec.replicas machines. Without expected machine names only the count is checked.
 */
export function desiredWorld(
  initial: World,
  desiredMachineNames?: string[],
): { world: World; machineNames?: string[] } {
  const replicas = initial.md.spec.replicas ?? 0;
  const md = structuredClone(initial.md);
  md.status = { ...md.status, replicas, availableReplicas: replicas };
  const machineSets = initial.machineSets.map((ms) => {
    const copy = structuredClone(ms);
    copy.spec.replicas = 0;
    copy.status = { ...copy.status, replicas: 0, availableReplicas: 0 };
    return copy;
  });
  let target = machineSets.find((ms) => semanticEqual(ms.spec.template.spec, md.spec.template.spec));
  if (!target) {
    target = newMachineSet(`ms${machineSets.length + 1}`, md.spec.template.spec.failureDomain, 0, 0);
    target.spec.template = structuredClone(md.spec.template);
    machineSets.push(target);
  }
  target.spec.replicas = replicas;
  target.status = { ...target.status, replicas, availableReplicas: replicas };
  const machines = new Map<string, MachineLike[]>();
  const names = desiredMachineNames ?? [];
  machines.set(
    nameOf(target),
    names.map((n) => newMachine(n, nameOf(target), md.spec.template.spec.failureDomain)),
  );
  return { world: { md, machineSets, machines, machineUID: 0 }, machineNames: desiredMachineNames };
}

export function worldEquals(current: World, desired: World, checkMachineNames: boolean): boolean {
  const a = current.md;
  const b = desired.md;
  if (!semanticEqual(a.spec.template, b.spec.template) || (a.spec.replicas ?? 0) !== (b.spec.replicas ?? 0))
    return false;
  if ((a.status?.replicas ?? 0) !== (b.status?.replicas ?? 0)) return false;
  if ((a.status?.availableReplicas ?? 0) !== (b.status?.availableReplicas ?? 0)) return false;

  if (current.machineSets.length !== desired.machineSets.length) return false;
  for (const want of desired.machineSets) {
    const got = findMS(current, nameOf(want));
    if (!got || !semanticEqual(got.spec.template, want.spec.template)) return false;
    if ((got.spec.replicas ?? 0) !== (want.spec.replicas ?? 0)) return false;
    if ((got.status?.replicas ?? 0) !== (want.status?.replicas ?? 0)) return false;
    if ((got.status?.availableReplicas ?? 0) !== (want.status?.availableReplicas ?? 0)) return false;
  }

  for (const [msName, got] of current.machines) {
    const want = desired.machines.get(msName);
    if (!want) {
      if (got.length > 0) return false;
      continue;
    }
    const wantCount = checkMachineNames ? want.length : (findMS(desired, msName)?.spec.replicas ?? 0);
    if (got.length !== wantCount) return false;
    for (let i = 0; i < got.length; i++) {
      if (checkMachineNames && nameOf(got[i]) !== nameOf(want[i])) return false;
      const owners = got[i].metadata.ownerReferences ?? [];
      if (owners.length !== 1 || owners[0].name !== msName) return false;
    }
  }
  return true;
}
