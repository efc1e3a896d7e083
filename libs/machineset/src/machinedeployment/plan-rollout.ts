// One MachineDeployment rollout decision (upstream machinedeployment_sync.go / machinedeployment_rollout_planner.go):
// the snapshot handed to the rollout planner, the desired MachineSets it starts from and the CanUpdateMachineSet
// predicate. Pure apart from the predicate: the reconciler and `capi-inplace rollout plan` both call it.
import type { Machine, MachineDeployment, MachineSet } from '@capi/api';
import {
  planOnDelete,
  planRollingUpdate,
  type MachineDeploymentLike,
  type MachineLike,
  type MachineSetLike,
  type PlanOptions,
  type RolloutPlan,
} from '../rollout';
import { computeDesiredMachineSet } from './desired-ms';

export interface MachineDeploymentPlanInput {
  md: MachineDeployment;
  /** The MachineSets the MD controls, and their Machines. */
  machineSets: MachineSet[];
  machines: Machine[];
  /** The InPlaceUpdates feature gate: off, the predicate is never called. */
  inPlaceUpdatesEnabled: boolean;
  canUpdateMachineSetInPlace?: (oldMS: MachineSet, newMS: MachineSet) => Promise<boolean> | boolean;
  now: () => Date;
  /** Old MachineSets whose replacement the in-place-only policy holds back (`PlanOptions.replacementsBlockedFor`). */
  replacementsBlockedFor?: ReadonlySet<string>;
}

/** The planner's decision for this snapshot (OnDelete or RollingUpdate, per spec.rollout.strategy.type). */
export function planMachineDeploymentRollout(input: MachineDeploymentPlanInput): Promise<RolloutPlan> | RolloutPlan {
  const { md, machineSets, machines, inPlaceUpdatesEnabled, canUpdateMachineSetInPlace } = input;
  const taken = new Set(machineSets.map((ms) => ms.metadata.name ?? ''));
  const options: PlanOptions = {
    inPlaceUpdatesEnabled,
    canUpdateMachineSetInPlace:
      inPlaceUpdatesEnabled && canUpdateMachineSetInPlace
        ? (oldMS, newMS) => canUpdateMachineSetInPlace(oldMS as unknown as MachineSet, newMS as unknown as MachineSet)
        : undefined,
    computeDesiredMachineSet: (d, current) =>
      computeDesiredMachineSet(
        d as unknown as MachineDeployment,
        current as unknown as MachineSet | undefined,
        taken,
      ) as unknown as MachineSetLike,
    now: input.now,
    replacementsBlockedFor: input.replacementsBlockedFor,
  };
  const snapshot = {
    md: md as unknown as MachineDeploymentLike,
    machineSets: machineSets as unknown as MachineSetLike[],
    machines: machines as unknown as MachineLike[],
  };
  return md.spec.rollout?.strategy?.type === 'OnDelete'
    ? planOnDelete(snapshot, options)
    : planRollingUpdate(snapshot, options);
}
