// The rollout simulation: the real RolloutPlanner driven together with the fake MS/Machine controllers (and the
// OnDelete user), iteration after iteration, writing the upstream golden-log format.
import {
  maxSurge as resolveMaxSurge,
  maxUnavailable as resolveMaxUnavailable,
  totalMachineSetsReplicaSum,
} from '../mdutil';
import { RolloutPlanner } from '../planner';
import { MachineDeploymentLike, MachineSetLike, RolloutAnnotations, nameOf } from '../types';
import { reconcileMachine, reconcileMachineSet, SimulationError, userDeletesMachine } from './fakes';
import { GoRand } from './gorand';
import { FileLogger } from './logger';
import {
  allMachines,
  byMSNumber,
  desiredWorld,
  findMS,
  machinesSummary,
  mdSummary,
  newMachine,
  newMachineSet,
  stateSummary,
  World,
  worldEquals,
} from './world';

export interface InitialMachineSet {
  name: string;
  failureDomain: string;
  replicas: number;
  machines: string[];
}

export interface RolloutSimulationOptions {
  /** Header name (first line `## <name>`); defaults to a name derived from the parameters. */
  name?: string;
  strategy?: 'RollingUpdate' | 'OnDelete';
  /** md.spec.replicas; for a generated initial state also the size of ms1. */
  replicas: number;
  maxSurge?: number;
  maxUnavailable?: number;
  /** Answer of the "can update MachineSet in place" hook (RollingUpdate only). */
  inPlace?: boolean;
  /** Only used by the fake OnDelete user. */
  maxUserUnavailable?: number;
  /** Custom initial MachineSets (default: ms1 at template v1 with `replicas` machines m1..mN). */
  initialMachineSets?: InitialMachineSet[];
  /** The MD template version (failureDomain); default v2. A third version models a spec change mid-rollout. */
  mdTemplateVersion?: string;
  /** Machine-name counter at start; default: the highest initial machine number. */
  machineUID?: number;
  /** RollingUpdate checks: log a toleration line instead of failing when the limit is breached. */
  tolerateMaxUnavailableBreach?: boolean;
  tolerateMaxSurgeBreach?: boolean;
  /** Expected machines on the new MS at the end; without it only their number is checked. */
  desiredMachineNames?: string[];
  /** Shuffle the controller order with Go math/rand seeded with this value. */
  randomSeed?: number;
  maxIterations?: number;
  /** Streams the log as it is written; the result's `log` is then empty. Use it for large rollouts. */
  onLog?: (chunk: string) => void;
  /** Without onLog: the most log characters kept in memory (default DEFAULT_MAX_LOG_CHARS); more fails the run. */
  maxLogChars?: number;
}

export interface RolloutSimulationResult {
  /** The whole log, or '' when it was streamed to onLog. */
  log: string;
  /** Characters written to the log (streamed or kept). */
  logLength: number;
  converged: boolean;
  iterations: number;
  error?: string;
}

const MD_TEMPLATE_VERSION = 'v2';
const OLD_TEMPLATE_VERSION = 'v1';

function initialWorld(o: RolloutSimulationOptions): World {
  const strategy = o.strategy ?? 'RollingUpdate';
  const md: MachineDeploymentLike = {
    metadata: { name: 'md' },
    spec: {
      replicas: o.replicas,
      template: { spec: { failureDomain: o.mdTemplateVersion ?? MD_TEMPLATE_VERSION } },
      rollout: {
        strategy:
          strategy === 'OnDelete'
            ? { type: 'OnDelete' }
            : {
                type: 'RollingUpdate',
                rollingUpdate: { maxSurge: o.maxSurge ?? 1, maxUnavailable: o.maxUnavailable ?? 0 },
              },
      },
    },
    status: { replicas: o.replicas, availableReplicas: o.replicas },
  };
  const initial = o.initialMachineSets ?? [
    {
      name: 'ms1',
      failureDomain: OLD_TEMPLATE_VERSION,
      replicas: o.replicas,
      machines: Array.from({ length: o.replicas }, (_, k) => `m${k + 1}`),
    },
  ];
  const world: World = { md, machineSets: [], machines: new Map(), machineUID: 0 };
  for (const ms of initial) {
    world.machineSets.push(newMachineSet(ms.name, ms.failureDomain, ms.replicas, ms.replicas));
    world.machines.set(
      ms.name,
      ms.machines.map((m) => newMachine(m, ms.name, ms.failureDomain)),
    );
    for (const m of ms.machines) world.machineUID = Math.max(world.machineUID, Number(m.slice(1)));
  }
  world.machineSets.sort(byMSNumber);
  if (o.machineUID !== undefined) world.machineUID = o.machineUID;
  return world;
}

export function defaultScenarioName(o: RolloutSimulationOptions): string {
  if ((o.strategy ?? 'RollingUpdate') === 'OnDelete')
    return `${o.replicas} replicas, maxUserUnavailable ${o.maxUserUnavailable ?? 1}`;
  return `${o.inPlace ? 'In-place' : 'Regular'} rollout, ${o.replicas} Replicas, maxSurge ${o.maxSurge ?? 1}, ${o.inPlace ? 'MaxUnavailable' : 'maxUnavailable'} ${o.maxUnavailable ?? 0}`;
}

/** Upstream's shuffled order: tasks may be skipped, and may run twice, within one iteration. */
export function randomTaskOrder(count: number, rng: GoRand): number[] {
  const order: number[] = [];
  const seen = new Set<number>();
  while (seen.size < count) {
    let n = rng.intn(count);
    while (seen.has(n)) n = rng.intn(count);
    seen.add(n);
    if (rng.intn(10) < 3) continue;
    order.push(n);
    if (rng.intn(10) < 3) seen.delete(n);
  }
  return order;
}

class Simulation {
  readonly world: World;
  readonly log: FileLogger;
  readonly onDelete: boolean;
  readonly rng?: GoRand;
  canDelete = false;

  constructor(readonly o: RolloutSimulationOptions) {
    this.world = initialWorld(o);
    this.onDelete = (o.strategy ?? 'RollingUpdate') === 'OnDelete';
    const random = o.randomSeed !== undefined ? `, random(${o.randomSeed})` : '';
    this.log = new FileLogger(`${o.name ?? defaultScenarioName(o)}${random}`, {
      sink: o.onLog,
      maxChars: o.maxLogChars,
    });
    if (o.randomSeed !== undefined) this.rng = new GoRand(o.randomSeed);
  }

  run(): RolloutSimulationResult {
    const w = this.world;
    const desired = desiredWorld(w, this.o.desiredMachineNames);
    const random = this.rng ? `, random(${this.o.randomSeed})` : '';
    const machineCount = allMachines(w).length;
    const maxIterations = this.o.maxIterations ?? (this.rng ? 70 : 50);
    let i = 1;
    try {
      this.log.log(`[Test] Initial state\n${stateSummary(w)}`);
      this.log.log(
        this.onDelete
          ? `[Test] Rollout ${machineCount} replicas, onDeleteStrategy${random}`
          : `[Test] Rollout ${machineCount} replicas, MaxSurge=${this.o.maxSurge ?? 1}, MaxUnavailable=${this.o.maxUnavailable ?? 0}${random}`,
      );
      for (;;) {
        const tasks = this.taskList();
        const order = this.rng ? randomTaskOrder(tasks.length, this.rng) : tasks.map((_, k) => k);
        for (const t of order) this.runTask(tasks[t], i);
        const updating = allMachines(w).some(
          (m) => m.metadata.annotations?.[RolloutAnnotations.updateInProgress] !== undefined,
        );
        if (worldEquals(w, desired.world, desired.machineNames !== undefined) && (this.onDelete || !updating)) {
          this.log.log(`[Test] Final state\n${stateSummary(w)}`);
          return this.result(true, i);
        }
        i++;
        if (i > maxIterations) {
          this.log.log(`[Test] Desired state\n${stateSummary(desired.world)}`);
          return this.result(false, i - 1, `not converged after ${maxIterations} iterations`);
        }
      }
    } catch (e) {
      return this.result(false, i, (e as Error).message);
    }
  }

  private result(converged: boolean, iterations: number, error?: string): RolloutSimulationResult {
    const r: RolloutSimulationResult = { log: this.log.toString(), logLength: this.log.length, converged, iterations };
    if (error !== undefined) r.error = error;
    return r;
  }

  private taskList(): string[] {
    const w = this.world;
    const names = w.machineSets.map((ms) => nameOf(ms));
    const tasks = ['md', ...names, `ms${names.length + 1}`];
    if (this.onDelete) tasks.push('delete-machine', ...allMachines(w).map((m) => nameOf(m)));
    return tasks;
  }

  private runTask(task: string, i: number): void {
    const w = this.world;
    if (task === 'md') this.reconcileMD(i);
    const ms = findMS(w, task);
    if (ms) reconcileMachineSet(w, ms, i, this.log);
    if (!this.onDelete) return;
    if (task === 'delete-machine')
      userDeletesMachine(w, this.o.maxUserUnavailable ?? 1, this.canDelete, i, this.log, this.rng);
    for (const set of w.machineSets) {
      const m = w.machines.get(nameOf(set))?.find((x) => nameOf(x) === task);
      if (m) reconcileMachine(w, nameOf(set), m, i, this.log);
    }
  }

  private reconcileMD(i: number): void {
    const w = this.world;
    this.log.log(`[MD controller] Iteration ${i}, Reconcile md`);
    const inPlace = this.o.inPlace ?? false;
    const planner = new RolloutPlanner({
      inPlaceUpdatesEnabled: !this.onDelete,
      canUpdateMachineSetInPlace: () => inPlace,
      // The harness works on its own objects: desired == current, and a new MS joins the harness list at once.
      computeDesiredMachineSet: (md, current) => current ?? this.createMachineSet(md),
    });
    planner.init(w.md, w.machineSets, allMachines(w), true, true);
    if (this.onDelete) planner.planOnDelete();
    else planner.planRollingUpdateSync();

    for (const [name, replicas] of planner.scaleIntents) {
      const ms = findMS(w, name);
      if (ms) ms.spec.replicas = replicas;
    }
    const status = w.md.status ?? {};
    status.replicas = w.machineSets.reduce((t, ms) => t + (ms.status?.replicas ?? 0), 0);
    status.availableReplicas = w.machineSets.reduce((t, ms) => t + (ms.status?.availableReplicas ?? 0), 0);
    if (!this.onDelete)
      status.upToDateReplicas = w.machineSets.reduce((t, ms) => t + (ms.status?.upToDateReplicas ?? 0), 0);
    w.md.status = status;

    this.log.log(`[MD controller] - Result of rollout planner\n${this.resultBlock(planner)}`);
    if (!this.onDelete) this.checkRollingUpdateLimits();
    if (this.onDelete && planner.newMS) this.canDelete = true;
  }

  private createMachineSet(md: MachineDeploymentLike): MachineSetLike {
    const w = this.world;
    const ms = newMachineSet(`ms${w.machineSets.length + 1}`, md.spec.template.spec.failureDomain, 0, 0);
    ms.spec.template = structuredClone(md.spec.template);
    w.machineSets.push(ms);
    w.machines.set(nameOf(ms), []);
    return ms;
  }

  private resultBlock(planner: RolloutPlanner): string {
    const w = this.world;
    const lines = [`  md: ${mdSummary(w.md)}`];
    for (const ms of [...w.machineSets].sort(byMSNumber)) {
      const d = planner.getMachineSetDiff(ms);
      const name = nameOf(ms);
      lines.push(`  ${name}: ${d.summary} (${machinesSummary(w, ms)})`);
      if (!d.hasOriginal) {
        lines.push(`    - MachineSet ${name} created, it is now the current MachineSet`);
        if (d.desiredReplicas > 0) {
          lines.push(
            `    - Scaled up current MachineSet ${name} from 0 to ${d.desiredReplicas} replicas (+${d.desiredReplicas})`,
          );
          lines.push(`      - Reason: ${d.reason}`);
        }
        continue;
      }
      if (d.desiredReplicas < d.originalReplicas) {
        lines.push(
          `    - Scaled down ${d.type} MachineSet ${name} from ${d.originalReplicas} to ${d.desiredReplicas} replicas (-${d.originalReplicas - d.desiredReplicas})`,
        );
        lines.push(`      - Reason: ${d.reason}`);
      } else if (d.desiredReplicas > d.originalReplicas) {
        lines.push(
          `    - Scaled up ${d.type} MachineSet ${name} from ${d.originalReplicas} to ${d.desiredReplicas} replicas (+${d.desiredReplicas - d.originalReplicas})`,
        );
        lines.push(`      - Reason: ${d.reason}`);
      } else if (d.otherChanges !== '') {
        lines.push(`    - Updated ${d.type} MachineSet ${name}`);
      }
      if (d.otherChanges !== '') lines.push(`      - Diff: ${d.otherChanges}`);
    }
    return lines.join('\n');
  }

  private checkRollingUpdateLimits(): void {
    const md = this.world.md;
    const replicas = md.spec.replicas ?? 0;
    const minAvailable = replicas - resolveMaxUnavailable(md);
    if ((md.status?.availableReplicas ?? 0) < minAvailable) {
      if (!this.o.tolerateMaxUnavailableBreach) {
        throw new SimulationError(
          `maxUnavailable breached: ${md.status?.availableReplicas ?? 0} available < ${minAvailable} minimum`,
        );
      }
      this.log.log('[Toleration] tolerate maxUnavailable breach');
    }
    // Like upstream's TotalMachineSetsReplicaSum: Machines not yet deleted still count against maxSurge.
    const total = totalMachineSetsReplicaSum(this.world.machineSets);
    if (total > replicas + resolveMaxSurge(md)) {
      if (!this.o.tolerateMaxSurgeBreach)
        throw new SimulationError(`maxSurge breached: ${total} replicas > ${replicas} + ${resolveMaxSurge(md)}`);
      this.log.log('[Toleration] tolerate maxSurge breach');
    }
  }
}

/** Runs one simulated rollout and returns its log and outcome. */
export function runRolloutSimulation(options: RolloutSimulationOptions): RolloutSimulationResult {
  if (!Number.isInteger(options.replicas) || options.replicas < 0)
    throw new RangeError(`replicas must be a non-negative integer, got ${options.replicas}`);
  return new Simulation(options).run();
}

/** Runs one simulated rollout and returns its log; throws (with the partial log) when it fails or does not converge. */
export function simulateRollout(options: RolloutSimulationOptions): string {
  const result = runRolloutSimulation(options);
  if (!result.converged) {
    throw new SimulationError(`rollout simulation failed: ${result.error}\n${result.log}`);
  }
  return result.log;
}
