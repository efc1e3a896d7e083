// RollingOut, ScalingUp and ScalingDown, as upstream setRollingOutCondition, setScalingUpCondition and
// setScalingDownCondition in core/reconcilers/cluster/cluster_controller_status.go: the negative-polarity condition
// of the control plane (when it reports one), the MachineDeployments and (for scaling) the Cluster's own MachineSets,
// aggregated (MachinePools left out: this project has none).
import {
  aggregateSourceOf,
  newAggregateCondition,
  ROLLING_OUT_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  unstructuredGetAll,
  type AggregateSource,
  type Cluster,
  type Condition,
  type ConditionInput,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { CHECK_LOGS_MESSAGE, INTERNAL_ERROR_REASON } from './constants';
import { isRefDefined } from './phase';
import { isOwnedByCluster } from '../descendants';

export interface RolloutInputs {
  cluster: Cluster;
  controlPlane?: KubeObject;
  controlPlaneIsNotFound: boolean;
  machineDeployments: readonly MachineDeployment[];
  machineSets: readonly MachineSet[];
  getDescendantsSucceeded: boolean;
}

const RESULTS = {
  [ROLLING_OUT_CONDITION]: { issue: 'RollingOut', unknown: 'RollingOutUnknown', info: 'NotRollingOut' },
  [SCALING_UP_CONDITION]: { issue: 'ScalingUp', unknown: 'ScalingUpUnknown', info: 'NotScalingUp' },
  [SCALING_DOWN_CONDITION]: { issue: 'ScalingDown', unknown: 'ScalingDownUnknown', info: 'NotScalingDown' },
} as const;

type RolloutType = keyof typeof RESULTS;

/** The control plane's conditions (UnstructuredGetAll; unreadable ones count as none). */
function controlPlaneConditions(cp: KubeObject): Condition[] {
  try {
    return unstructuredGetAll(cp);
  } catch {
    return [];
  }
}

function rolloutCondition(type: RolloutType, input: RolloutInputs, withMachineSets: boolean): ConditionInput {
  const { cluster, controlPlane } = input;
  // Reading the control plane or listing descendants failed (should never happen).
  const cpReadFailed = isRefDefined(cluster.spec.controlPlaneRef) && !controlPlane && !input.controlPlaneIsNotFound;
  if (cpReadFailed || !input.getDescendantsSucceeded) {
    return { type, status: 'Unknown', reason: INTERNAL_ERROR_REASON, message: CHECK_LOGS_MESSAGE };
  }
  const sources: AggregateSource[] = [];
  if (controlPlane) {
    // The contract does not require conditions: a control plane that does not report this one is left out
    // (so it never shows up as "Condition <type> not yet reported").
    const conditions = controlPlaneConditions(controlPlane);
    if (conditions.some((c) => c.type === type)) {
      sources.push({ kind: controlPlane.kind, name: controlPlane.metadata.name ?? '', conditions });
    }
  }
  sources.push(...input.machineDeployments.map((md) => aggregateSourceOf(md, 'MachineDeployment')));
  if (withMachineSets) {
    sources.push(
      ...input.machineSets
        .filter((ms) => isOwnedByCluster(ms, cluster))
        .map((ms) => aggregateSourceOf(ms, 'MachineSet')),
    );
  }
  const reasons = RESULTS[type];
  if (sources.length === 0) return { type, status: 'False', reason: reasons.info };
  try {
    // Negative polarity: True (rolling out, scaling) is what surfaces, and the result is True when any source is.
    return newAggregateCondition(sources, type, {
      targetType: type,
      negativePolarity: [type],
      targetPositivePolarity: false,
      reasons,
    });
  } catch {
    return { type, status: 'Unknown', reason: INTERNAL_ERROR_REASON, message: CHECK_LOGS_MESSAGE };
  }
}

export const rollingOutCondition = (input: RolloutInputs) => rolloutCondition(ROLLING_OUT_CONDITION, input, false);
export const scalingUpCondition = (input: RolloutInputs) => rolloutCondition(SCALING_UP_CONDITION, input, true);
export const scalingDownCondition = (input: RolloutInputs) => rolloutCondition(SCALING_DOWN_CONDITION, input, true);
