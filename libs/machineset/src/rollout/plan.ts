// Functional entry points over a snapshot: run the RolloutPlanner and return its decisions.
import { CanUpdateMachineSetInPlace, MachineSetDiff, RolloutPlanner, RolloutPlannerOptions } from './planner';
import { MachineDeploymentLike, MachineLike, MachineSetLike, nameOf } from './types';

export interface RolloutSnapshot {
  md: MachineDeploymentLike;
  machineSets: MachineSetLike[];
  machines: MachineLike[];
}

export interface RolloutPlan {
  /** The current MS (created when none matched the MD template). */
  newMS?: MachineSetLike;
  /** True when newMS does not exist yet and must be created. */
  createdNewMS: boolean;
  createReason: string;
  oldMSs: MachineSetLike[];
  /** Desired MachineSets (annotations as planned; apply scaleIntents for spec.replicas), old ones then new. */
  machineSets: MachineSetLike[];
  /** MS name -> desired spec.replicas. */
  scaleIntents: Map<string, number>;
  /** MS name -> reasons for the changes. */
  notes: Map<string, string[]>;
  /** MS name -> change summary against the snapshot. */
  diffs: Map<string, MachineSetDiff>;
}

export type PlanOptions = Omit<RolloutPlannerOptions, 'canUpdateMachineSetInPlace'> & {
  canUpdateMachineSetInPlace?: CanUpdateMachineSetInPlace;
};

function start(snapshot: RolloutSnapshot, options: PlanOptions): RolloutPlanner {
  const planner = new RolloutPlanner(options);
  planner.init(snapshot.md, snapshot.machineSets, snapshot.machines, true, true);
  return planner;
}

function result(p: RolloutPlanner): RolloutPlan {
  const machineSets = p.newMS ? [...p.oldMSs, p.newMS] : [...p.oldMSs];
  return {
    newMS: p.newMS,
    createdNewMS: !!p.newMS && !p.originalMSs.has(nameOf(p.newMS)),
    createReason: p.createReason,
    oldMSs: p.oldMSs,
    machineSets,
    scaleIntents: p.scaleIntents,
    notes: p.notes,
    // Against the replicas the apply writes (upstream sets spec.replicas from the scale intent before getMachineSetDiff).
    diffs: new Map(
      machineSets.map((ms) => {
        const intent = p.scaleIntents.get(nameOf(ms));
        const planned = intent === undefined ? ms : { ...ms, spec: { ...ms.spec, replicas: intent } };
        return [nameOf(ms), p.getMachineSetDiff(planned)];
      }),
    ),
  };
}

/** Plans a RollingUpdate step; the in-place predicate may be sync or async. */
export async function planRollingUpdate(snapshot: RolloutSnapshot, options: PlanOptions = {}): Promise<RolloutPlan> {
  const p = start(snapshot, options);
  await p.planRollingUpdate();
  return result(p);
}

/** Plans a RollingUpdate step with a synchronous in-place predicate. */
export function planRollingUpdateSync(snapshot: RolloutSnapshot, options: PlanOptions = {}): RolloutPlan {
  const p = start(snapshot, options);
  p.planRollingUpdateSync();
  return result(p);
}

/** Plans an OnDelete step (no in-place updates). */
export function planOnDelete(snapshot: RolloutSnapshot, options: PlanOptions = {}): RolloutPlan {
  const p = start(snapshot, options);
  p.planOnDelete();
  return result(p);
}
