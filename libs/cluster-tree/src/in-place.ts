// A Machine's in-place state, from the annotations and the Updating condition the controllers write
// (upstream internal/util/inplace/inplace.go IsUpdateInProgress, internal/hooks/tracking.go; Updating condition of
// core/reconcilers/machine/machine_controller_status.go).
import {
  getCondition,
  IN_PLACE_UPDATERS_ANNOTATION,
  isUpdateInProgress,
  parseCommaList,
  PENDING_HOOKS_ANNOTATION,
  UPDATING_CONDITION,
  type Machine,
} from '@capi/api';
import type { MachineInPlaceState } from './model';

/** The Machine's in-place state; undefined when nothing in-place is recorded (not updating, no pending hooks). */
export function machineInPlaceState(machine: Machine): MachineInPlaceState | undefined {
  const annotations = machine.metadata.annotations ?? {};
  const pendingHooks = parseCommaList(annotations[PENDING_HOOKS_ANNOTATION]);
  const updating = isUpdateInProgress(machine);
  const condition = getCondition(machine, UPDATING_CONDITION);
  const conditionTrue = condition?.status === 'True';
  if (!updating && pendingHooks.length === 0 && !conditionTrue) return undefined;
  const updaters = parseCommaList(annotations[IN_PLACE_UPDATERS_ANNOTATION]);
  const state: MachineInPlaceState = {
    updating: updating || conditionTrue,
    pendingHooks,
    updaters,
    updatersRecorded: updaters.length > 0,
  };
  if (conditionTrue && condition.lastTransitionTime) state.since = condition.lastTransitionTime;
  if (condition?.reason) state.reason = condition.reason;
  if (condition?.message) state.message = condition.message;
  return state;
}

/** "updater-a, updater-b", or what the Machine controller will call when nothing is recorded. */
export function describeUpdaters(state: MachineInPlaceState): string {
  return state.updatersRecorded ? state.updaters.join(', ') : 'all registered (none recorded)';
}
