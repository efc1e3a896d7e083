// Fake controllers of the rollout harness: the MachineSet controller (create/delete/move machines, finish in-place
// updates), the OnDelete "user" who deletes outdated machines, and the Machine controller that removes finalizers.
import { semanticEqual, splitList } from '../mdutil';
import { MachineLike, MachineSetLike, RolloutAnnotations as A, nameOf } from '../types';
import { FileLogger } from './logger';
import { allMachines, byMachineNumber, findMS, hasAnnotation, machinesOf, msSummary, newMachine, World } from './world';
import { GoRand } from './gorand';

export class SimulationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulationError';
  }
}

const isDeleting = (m: MachineLike) => m.metadata.deletionTimestamp !== undefined;
const stringSorted = (names: string[]) => [...names].sort().join(',');

export function reconcileMachineSet(w: World, ms: MachineSetLike, i: number, log: FileLogger): void {
  log.log(`[MS controller] Iteration ${i}, Reconcile ${msSummary(w, ms)}`);
  const name = nameOf(ms);
  const annotations = (ms.metadata.annotations ??= {});
  let machines = machinesOf(w, name);

  // An in-place update completes on the first reconcile after its move was acknowledged.
  const completed: string[] = [];
  for (const m of machines) {
    if (hasAnnotation(m, A.updateInProgress) && !hasAnnotation(m, A.pendingAcknowledgeMove)) {
      delete m.metadata.annotations![A.updateInProgress];
      completed.push(nameOf(m));
    }
  }
  if (completed.length > 0) log.log(`[MS controller] - Replicas ${stringSorted(completed)} completed in-place update`);

  const receiveFrom = annotations[A.receiveMachinesFromMachineSets] ?? '';
  const acknowledged = new Set(splitList(annotations[A.acknowledgedMove]));
  for (const m of machines) {
    if (!hasAnnotation(m, A.pendingAcknowledgeMove)) continue;
    if (receiveFrom === '' || acknowledged.has(nameOf(m))) delete m.metadata.annotations![A.pendingAcknowledgeMove];
  }

  const spec = ms.spec.replicas ?? 0;
  const diff = machines.length - spec;
  if (diff < 0 && annotations[A.disableMachineCreate] !== 'true') {
    const created: string[] = [];
    for (let k = 0; k < -diff; k++) {
      const m = newMachine(`m${++w.machineUID}`, name, ms.spec.template.spec.failureDomain);
      machines.push(m);
      created.push(nameOf(m));
    }
    machines.sort(byMachineNumber);
    log.log(`[MS controller] - ${name} scale up to ${spec}/${spec} replicas (${created.join(',')} created)`);
  } else if (diff > 0) {
    const pending =
      receiveFrom !== ''
        ? machines.filter((m) => hasAnnotation(m, A.pendingAcknowledgeMove)).map((m) => nameOf(m))
        : [];
    if (pending.length > 0) {
      log.log(
        `[MS controller] - Replicas ${stringSorted(pending)} moved from an old MachineSet still pending acknowledge from machine deployment md`,
      );
    }
    const excess = machines.length - pending.length - spec;
    if (excess > 0) {
      const moveTo = annotations[A.moveMachinesToMachineSet] ?? '';
      if (moveTo !== '') moveMachines(w, ms, moveTo, excess, log);
      else machines = deleteMachines(w, ms, excess, log);
    }
  }

  machines = machinesOf(w, name);
  const available = machines.filter((m) => !hasAnnotation(m, A.updateInProgress)).length;
  ms.status = {
    ...ms.status,
    replicas: machines.length,
    availableReplicas: available,
    upToDateReplicas: semanticEqual(ms.spec.template.spec, w.md.spec.template.spec) ? available : 0,
  };
}

function moveMachines(w: World, ms: MachineSetLike, targetName: string, excess: number, log: FileLogger): void {
  const target = findMS(w, targetName);
  if (!target)
    throw new SimulationError(`MachineSet ${nameOf(ms)} is moving machines to ${targetName}, which does not exist`);
  if (!splitList(target.metadata.annotations?.[A.receiveMachinesFromMachineSets]).includes(nameOf(ms))) {
    throw new SimulationError(`MachineSet ${targetName} does not accept machines from ${nameOf(ms)}`);
  }
  const source = machinesOf(w, nameOf(ms)).sort(byMachineNumber);
  const targetMachines = machinesOf(w, targetName);
  const kept: MachineLike[] = [];
  const moved: string[] = [];
  for (const m of source) {
    if (isDeleting(m) || hasAnnotation(m, A.updateInProgress) || moved.length >= excess) {
      kept.push(m);
      continue;
    }
    m.metadata.ownerReferences = [
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: targetName, controller: true },
    ];
    m.metadata.annotations = {
      ...(m.metadata.annotations ?? {}),
      [A.pendingAcknowledgeMove]: '',
      [A.updateInProgress]: '',
    };
    targetMachines.push(m);
    moved.push(nameOf(m));
  }
  log.log(
    `[MS controller] - ${nameOf(ms)} scale down to ${kept.length}/${ms.spec.replicas ?? 0} replicas (${moved.join(',')} moved to ${targetName})`,
  );
  w.machines.set(nameOf(ms), kept.sort(byMachineNumber));
  w.machines.set(targetName, targetMachines.sort(byMachineNumber));
}

function deleteMachines(w: World, ms: MachineSetLike, excess: number, log: FileLogger): MachineLike[] {
  const machines = machinesOf(w, nameOf(ms));
  // Machines still updating in place go first (newest first), then the others oldest first.
  const updating = machines.filter((m) => hasAnnotation(m, A.updateInProgress)).sort((a, b) => byMachineNumber(b, a));
  const others = machines.filter((m) => !hasAnnotation(m, A.updateInProgress)).sort(byMachineNumber);
  const ordered = [...updating, ...others];
  const deleted = ordered.slice(0, excess);
  const rest = ordered.slice(excess).sort(byMachineNumber);
  w.machines.set(nameOf(ms), rest);
  const spec = ms.spec.replicas ?? 0;
  log.log(
    `[MS controller] - ${nameOf(ms)} scale down to ${spec}/${spec} replicas (${deleted.map((m) => nameOf(m)).join(',')} deleted)`,
  );
  return rest;
}

/** The OnDelete user: deletes one outdated machine when availability allows it. */
export function userDeletesMachine(
  w: World,
  maxUserUnavailable: number,
  canDelete: boolean,
  i: number,
  log: FileLogger,
  rng?: GoRand,
): void {
  const machines = allMachines(w);
  const inFlight = machines.filter(isDeleting).length;
  const totAvailable = Math.max(machines.length - inFlight, 0);
  const minAvailable = Math.max((w.md.spec.replicas ?? 0) - maxUserUnavailable, 0);
  if (!(totAvailable > minAvailable) || !canDelete) return;
  const outdated = machines.filter(
    (m) => (m.spec?.failureDomain ?? '') !== (w.md.spec.template.spec.failureDomain ?? ''),
  );
  if (outdated.length === 0) return;
  const pick = outdated[rng ? rng.intn(outdated.length) : 0];
  if (isDeleting(pick)) return;
  pick.metadata.deletionTimestamp = new Date(0).toISOString();
  log.log(`[User] Iteration ${i}, Deleting machine ${nameOf(pick)}`);
}

/** The Machine controller: removes the finalizer of a deleting machine, which makes it disappear. */
export function reconcileMachine(w: World, msName: string, m: MachineLike, i: number, log: FileLogger): void {
  log.log(`[M controller] Iteration ${i}, Reconcile ${nameOf(m)}`);
  if (!isDeleting(m)) return;
  log.log(`[M controller] - ${nameOf(m)} finalizer removed`);
  w.machines.set(
    msName,
    machinesOf(w, msName).filter((x) => x !== m),
  );
}
