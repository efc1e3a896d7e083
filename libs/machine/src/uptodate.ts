// The UpToDate condition of a worker Machine (upstream machine controller setUpToDateCondition). Only Machines owned
// by a MachineDeployment through a MachineSet get it here; control plane Machines get it from their control plane.
import {
  MACHINE_UP_TO_DATE_UPDATING_REASON,
  NOT_UP_TO_DATE_REASON,
  UPDATING_CONDITION,
  UP_TO_DATE_CONDITION,
  UP_TO_DATE_REASON,
  compareMachineTemplates,
  getCondition,
  type Condition,
  type ConditionInput,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import type { MachineObject } from './types';

/** Upstream setUpToDateCondition's message when the Updating condition has none. */
export const DEFAULT_UPDATING_MESSAGE = 'In-place update in progress';

export interface UpToDateOwners {
  machineSet?: Pick<MachineSet, 'metadata' | 'spec'>;
  machineDeployment?: Pick<MachineDeployment, 'spec'>;
}

/**
 * Undefined (leave the condition alone) for stand-alone Machines and MachineSets. Otherwise, in this order:
 * NotUpToDate when the MachineSet template differs from the MachineDeployment's (the MS stands for its Machines,
 * as in the MD controller's rollout decisions) or spec.rollout.after expired for this MS; Updating while the Updating
 * condition is True (`* ` + its message, or the default in-place message); Updating when the Node's kubelet runs
 * another version than spec.version (upstream uses the Updating reason there too: the Machine is expected to converge).
 */
export function upToDateCondition(
  machine: Pick<MachineObject, 'spec' | 'status'>,
  conditions: readonly Condition[],
  owners: UpToDateOwners,
  now: Date,
): ConditionInput | undefined {
  const { machineSet: ms, machineDeployment: md } = owners;
  if (!ms || !md) return undefined;
  const { upToDate, conditionMessages } = compareMachineTemplates(ms.spec.template, md.spec.template);
  const messages = [...conditionMessages];
  const after = md.spec.rollout?.after ? Date.parse(md.spec.rollout.after) : NaN;
  const created = ms.metadata.creationTimestamp ? Date.parse(ms.metadata.creationTimestamp) : NaN;
  // Expired rollout.after: a MachineSet created before it (strictly, as metav1.Time.Before; a missing timestamp is
  // Go's zero time) is outdated, one created at or after it is up to date.
  const rolloutAfterExpired = after < now.getTime() && !(created >= after);
  if (rolloutAfterExpired) messages.push('MachineDeployment spec.rolloutAfter expired');
  if (!upToDate || rolloutAfterExpired) {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: NOT_UP_TO_DATE_REASON,
      message: messages.map((m) => `* ${m}`).join('\n'),
    };
  }
  const updating = getCondition(conditions, UPDATING_CONDITION);
  if (updating?.status === 'True') {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: MACHINE_UP_TO_DATE_UPDATING_REASON,
      // The MachineDeployment's rollout message nests these as bullet points (upstream keeps the `* ` prefix).
      message: `* ${updating.message || DEFAULT_UPDATING_MESSAGE}`,
    };
  }
  const kubelet = (machine.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion;
  const version = machine.spec.version;
  // Upstream compares with spec.version even when it is empty.
  if (kubelet && kubelet !== (version ?? '')) {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: MACHINE_UP_TO_DATE_UPDATING_REASON,
      message: `* Node.status.nodeInfo.kubeletVersion ${kubelet}, ${version ?? ''} required`,
    };
  }
  return { type: UP_TO_DATE_CONDITION, status: 'True', reason: UP_TO_DATE_REASON };
}
