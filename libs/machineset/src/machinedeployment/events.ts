// The Events the MachineDeployment controller records on its MachineDeployment, worded as upstream's
// core/reconcilers/machinedeployment/machinedeployment_controller.go (createOrUpdateMachineSetsAndSyncMachineDeploymentRevision)
// and machinedeployment_sync.go (cleanupDeployment). klog.KObj prints namespace/name; %q quotes as Go (JSON's for names).
import type { MachineSet } from '@capi/api';
import type { MachineSetDiff } from '../rollout';

export interface MachineDeploymentEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

const kObj = (ms: MachineSet) => `${ms.metadata.namespace}/${ms.metadata.name}`;
const quoted = (ms: MachineSet) => JSON.stringify(ms.metadata.name ?? '');

/** After a MachineSet apply succeeded: created, or scaled (an apply that keeps the replicas records nothing). */
export function machineSetAppliedEvent(
  ms: MachineSet,
  created: boolean,
  diff: Pick<MachineSetDiff, 'originalReplicas' | 'desiredReplicas'>,
): MachineDeploymentEvent | undefined {
  const { originalReplicas: from, desiredReplicas: to } = diff;
  if (created)
    return {
      type: 'Normal',
      reason: 'SuccessfulCreate',
      message: `Created MachineSet ${kObj(ms)} with ${to} replicas`,
    };
  if (to < from)
    return {
      type: 'Normal',
      reason: 'SuccessfulScale',
      message: `Scaled down MachineSet ${ms.metadata.name}: ${from} -> ${to}`,
    };
  if (to > from)
    return {
      type: 'Normal',
      reason: 'SuccessfulScale',
      message: `Scaled up MachineSet ${ms.metadata.name}: ${from} -> ${to}`,
    };
  return undefined;
}

/** After a MachineSet apply failed. */
export function machineSetApplyFailedEvent(ms: MachineSet, created: boolean, err: Error): MachineDeploymentEvent {
  return created
    ? { type: 'Warning', reason: 'FailedCreate', message: `Failed to create MachineSet ${kObj(ms)}: ${err.message}` }
    : { type: 'Warning', reason: 'FailedUpdate', message: `Failed to update MachineSet ${kObj(ms)}: ${err.message}` };
}

/** Deleting a drained old MachineSet (a NotFound counts as deleted, as upstream). */
export function machineSetDeletedEvent(ms: MachineSet, err?: Error): MachineDeploymentEvent {
  return err
    ? { type: 'Warning', reason: 'FailedDelete', message: `Failed to delete MachineSet ${quoted(ms)}: ${err.message}` }
    : { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted MachineSet ${quoted(ms)}` };
}
