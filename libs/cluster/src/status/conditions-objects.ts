// RemoteConnectionProbe, InfrastructureReady, ControlPlaneAvailable and ControlPlaneInitialized, as upstream
// setRemoteConnectionProbeCondition, setInfrastructureReadyCondition, setControlPlaneAvailableCondition and
// setControlPlaneInitializedCondition in core/reconcilers/cluster/cluster_controller_status.go. Each returns the
// condition to set, or undefined to leave the current one as it is. The ClusterClass branches (topology defined,
// ref not yet set) are left out: this project has no ClusterClass.
import {
  getCondition,
  isTrue,
  mirrorFromUnstructured,
  NO_REASON_REPORTED,
  type Cluster,
  type ConditionInput,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  AVAILABLE_REASON,
  CHECK_LOGS_MESSAGE,
  CLUSTER_CONTROL_PLANE_AVAILABLE_CONDITION,
  CLUSTER_CONTROL_PLANE_INITIALIZED_CONDITION,
  CLUSTER_CONTROL_PLANE_INITIALIZED_REASON,
  CLUSTER_CONTROL_PLANE_NOT_INITIALIZED_REASON,
  CLUSTER_INFRASTRUCTURE_READY_CONDITION,
  CLUSTER_REMOTE_CONNECTION_PROBE_CONDITION,
  CLUSTER_REMOTE_CONNECTION_PROBE_FAILED_REASON,
  CLUSTER_REMOTE_CONNECTION_PROBE_SUCCEEDED_REASON,
  INTERNAL_ERROR_REASON,
  INVALID_CONDITION_REPORTED_REASON,
  NOT_AVAILABLE_REASON,
  NOT_READY_REASON,
  OBJECT_DELETED_REASON,
  OBJECT_DOES_NOT_EXIST_REASON,
  READY_REASON,
} from './constants';
import type { HealthCheckingState } from '@capi/clustercache';
import { controlPlaneContract, getBool, INFRA_CLUSTER_READY_CONDITION_TYPE } from './contract';
import { isRefDefined } from './phase';

/** Go's time.Format(time.RFC3339) of a UTC instant: seconds, "Z". */
const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export function remoteConnectionProbeCondition(
  cluster: Cluster,
  state: HealthCheckingState,
  gracePeriodMs: number,
  now: number,
): ConditionInput | undefined {
  const type = CLUSTER_REMOTE_CONNECTION_PROBE_CONDITION;
  const lastSuccess = state.lastProbeSuccessTime;
  // The cluster cache has not tried often enough yet (controller start, a new Cluster): keep what is there.
  if (!lastSuccess && state.consecutiveFailures < 5) {
    if (getCondition(cluster, type)) return undefined;
    return {
      type,
      status: 'False',
      reason: CLUSTER_REMOTE_CONNECTION_PROBE_FAILED_REASON,
      message: 'Remote connection not established yet',
    };
  }
  if (now - (lastSuccess ?? 0) > gracePeriodMs) {
    const message = lastSuccess
      ? `Remote connection probe failed, probe last succeeded at ${rfc3339(lastSuccess)}`
      : 'Remote connection probe failed';
    return { type, status: 'False', reason: CLUSTER_REMOTE_CONNECTION_PROBE_FAILED_REASON, message };
  }
  return { type, status: 'True', reason: CLUSTER_REMOTE_CONNECTION_PROBE_SUCCEEDED_REASON };
}

interface ExternalCondition {
  type: string;
  /** The provider object's condition mirrored, and the Cluster flag used when it reports none. */
  sourceType: string;
  flag: boolean;
  trueReason: string;
  falseReason: string;
  fallbackMessage: string;
}

/** The common shape of InfrastructureReady and ControlPlaneAvailable (a provider object behind a ref). */
function externalObjectCondition(
  cluster: Cluster,
  kind: string,
  obj: KubeObject | undefined,
  isNotFound: boolean,
  c: ExternalCondition,
): ConditionInput {
  const { type, flag } = c;
  if (obj) {
    let mirrored: ConditionInput;
    try {
      mirrored = mirrorFromUnstructured(obj, c.sourceType, {
        targetType: type,
        fallback: {
          status: flag ? 'True' : 'False',
          reason: flag ? c.trueReason : c.falseReason,
          ...(flag ? {} : { message: c.fallbackMessage }),
        },
      });
    } catch (e) {
      return { type, status: 'Unknown', reason: INVALID_CONDITION_REPORTED_REASON, message: (e as Error).message };
    }
    // A True condition without a reason is a v1beta1 condition: use a reason that reads better.
    if (mirrored.reason === NO_REASON_REPORTED && mirrored.status === 'True') mirrored.reason = c.trueReason;
    return mirrored;
  }
  // Reading the object failed (rare; the error is logged where it was read).
  if (!isNotFound) return { type, status: 'Unknown', reason: INTERNAL_ERROR_REASON, message: CHECK_LOGS_MESSAGE };
  if (cluster.metadata.deletionTimestamp) {
    return flag
      ? { type, status: 'False', reason: OBJECT_DELETED_REASON, message: `${kind} has been deleted` }
      : { type, status: 'False', reason: OBJECT_DOES_NOT_EXIST_REASON, message: `${kind} does not exist` };
  }
  if (flag) {
    return {
      type,
      status: 'False',
      reason: OBJECT_DELETED_REASON,
      message: `${kind} has been deleted while the cluster still exists`,
    };
  }
  // Not created yet, e.g. the Cluster and its objects were applied together.
  return { type, status: 'False', reason: OBJECT_DOES_NOT_EXIST_REASON, message: `${kind} does not exist` };
}

export function infrastructureReadyCondition(
  cluster: Cluster,
  infraCluster: KubeObject | undefined,
  infraClusterIsNotFound: boolean,
): ConditionInput {
  const kind = cluster.spec.infrastructureRef?.kind ?? '';
  const provisioned = cluster.status?.initialization?.infrastructureProvisioned === true;
  return externalObjectCondition(cluster, kind, infraCluster, infraClusterIsNotFound, {
    type: CLUSTER_INFRASTRUCTURE_READY_CONDITION,
    sourceType: INFRA_CLUSTER_READY_CONDITION_TYPE,
    flag: provisioned,
    trueReason: READY_REASON,
    falseReason: NOT_READY_REASON,
    fallbackMessage: `${kind} status.initialization.provisioned is ${provisioned}`,
  });
}

export function controlPlaneAvailableCondition(
  cluster: Cluster,
  controlPlane: KubeObject | undefined,
  controlPlaneIsNotFound: boolean,
): ConditionInput {
  const kind = cluster.spec.controlPlaneRef?.kind ?? '';
  const initialized = cluster.status?.initialization?.controlPlaneInitialized === true;
  return externalObjectCondition(cluster, kind, controlPlane, controlPlaneIsNotFound, {
    type: CLUSTER_CONTROL_PLANE_AVAILABLE_CONDITION,
    sourceType: controlPlaneContract.availableConditionType,
    flag: initialized,
    trueReason: AVAILABLE_REASON,
    falseReason: NOT_AVAILABLE_REASON,
    fallbackMessage: `${kind} status.initialization.controlPlaneInitialized is ${initialized}`,
  });
}

export function controlPlaneInitializedCondition(
  cluster: Cluster,
  controlPlane: KubeObject | undefined,
  contractVersion: string,
  controlPlaneMachines: readonly Machine[],
  controlPlaneIsNotFound: boolean,
  getDescendantsSucceeded: boolean,
): ConditionInput | undefined {
  const type = CLUSTER_CONTROL_PLANE_INITIALIZED_CONDITION;
  // Once initialized, always initialized.
  if (isTrue(cluster, type)) return undefined;
  const internalError: ConditionInput = {
    type,
    status: 'Unknown',
    reason: INTERNAL_ERROR_REASON,
    message: CHECK_LOGS_MESSAGE,
  };
  const initialized: ConditionInput = { type, status: 'True', reason: CLUSTER_CONTROL_PLANE_INITIALIZED_REASON };

  if (isRefDefined(cluster.spec.controlPlaneRef)) {
    const kind = cluster.spec.controlPlaneRef?.kind ?? '';
    if (!controlPlane) {
      if (!controlPlaneIsNotFound) return internalError;
      return { type, status: 'Unknown', reason: OBJECT_DOES_NOT_EXIST_REASON, message: `${kind} does not exist` };
    }
    const r = getBool(controlPlane, controlPlaneContract.initialized(contractVersion));
    // A field of the wrong type is an error (logged upstream as "Failed to get status.initialized from <kind>").
    if ('error' in r) return internalError;
    if ('value' in r && r.value) return initialized;
    return {
      type,
      status: 'False',
      reason: CLUSTER_CONTROL_PLANE_NOT_INITIALIZED_REASON,
      message: 'Control plane not yet initialized',
    };
  }

  // A control plane of stand-alone Machines is initialized once one of them has a Node.
  if (!getDescendantsSucceeded) return internalError;
  if (controlPlaneMachines.some((m) => !!m.status?.nodeRef?.name)) return initialized;
  return {
    type,
    status: 'False',
    reason: CLUSTER_CONTROL_PLANE_NOT_INITIALIZED_REASON,
    message: 'Waiting for the first control plane machine to have status.nodeRef set',
  };
}
