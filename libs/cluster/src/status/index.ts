// The Cluster's status as upstream updateStatus (core/reconcilers/cluster/cluster_controller_status.go) computes it:
// phase, control plane and workers counters, and the conditions in upstream's order (Available last, as it
// summarises the others). Pure: the reconciler gathers the inputs and writes the result.
import { cloneJson, type PassiveClock } from '@capi/apimachinery';
import { setCondition, type Cluster, type ClusterStatus, type Condition, type ConditionInput } from '@capi/api';
import type { ClusterScope } from '../scope';
import { availableCondition, deletingCondition } from './conditions-available';
import {
  controlPlaneMachinesConditions,
  remediatingCondition,
  workerMachinesConditions,
  workersAvailableCondition,
} from './conditions-machines';
import {
  controlPlaneAvailableCondition,
  controlPlaneInitializedCondition,
  infrastructureReadyCondition,
  remoteConnectionProbeCondition,
} from './conditions-objects';
import { rollingOutCondition, scalingDownCondition, scalingUpCondition } from './conditions-rollout';
import { computePhase, type ClusterPhase } from './phase';
import { controlPlaneReplicas, workersReplicas } from './replicas';
import type { HealthCheckingState } from '@capi/clustercache';

export type { ClusterPhase };

export interface ClusterStatusInputs {
  /** The control plane kind's contract version (e.g. 'v1beta2'), from its CRD labels; '' when no control plane. */
  controlPlaneContractVersion: string;
  /** From the cluster cache (libs/clustercache HealthCheckingState); undefined when not tracked yet. */
  healthCheckingState?: HealthCheckingState;
  /** Upstream's --remote-connection-grace-period, 50 s by default. */
  remoteConnectionGracePeriodMs: number;
  now: Date;
}

export interface ClusterStatusResult {
  /** The new Cluster.status; the input Cluster is not changed. */
  status: ClusterStatus;
  /** The phase changed: the reconciler emits upstream's Normal event "Cluster <name> is <phase>" (reason: the phase). */
  phaseChanged: boolean;
  phase: ClusterPhase;
}

export function computeClusterStatus(scope: ClusterScope, inputs: ClusterStatusInputs): ClusterStatusResult {
  const now = inputs.now.getTime();
  const clock: PassiveClock = { now: () => now };
  // A working copy: conditions set below are read by the ones after them (ControlPlaneInitialized, Available).
  const cluster = cloneJson(scope.cluster) as Cluster;
  const status: ClusterStatus = (cluster.status ??= {});
  const { descendants: d, getDescendantsSucceeded: ok } = scope;

  const { phase, changed } = computePhase(cluster);
  status.phase = phase;

  status.controlPlane = controlPlaneReplicas(
    cluster,
    scope.controlPlane,
    inputs.controlPlaneContractVersion,
    d.controlPlaneMachines,
    scope.controlPlaneIsNotFound,
    ok,
  );
  status.workers = workersReplicas(cluster, d.machineDeployments, d.machineSets, d.workerMachines, ok);

  const set = (input: ConditionInput | undefined) => {
    if (!input) return;
    status.conditions = setCondition(
      status.conditions as Condition[] | undefined,
      { ...input, observedGeneration: cluster.metadata.generation },
      clock,
    );
  };
  const rollout = {
    cluster,
    controlPlane: scope.controlPlane,
    controlPlaneIsNotFound: scope.controlPlaneIsNotFound,
    machineDeployments: d.machineDeployments,
    machineSets: d.machineSets,
    getDescendantsSucceeded: ok,
  };
  set(
    remoteConnectionProbeCondition(
      cluster,
      inputs.healthCheckingState ?? { consecutiveFailures: 0 },
      inputs.remoteConnectionGracePeriodMs,
      now,
    ),
  );
  set(infrastructureReadyCondition(cluster, scope.infraCluster, scope.infraClusterIsNotFound));
  set(controlPlaneAvailableCondition(cluster, scope.controlPlane, scope.controlPlaneIsNotFound));
  set(
    controlPlaneInitializedCondition(
      cluster,
      scope.controlPlane,
      inputs.controlPlaneContractVersion,
      d.controlPlaneMachines,
      scope.controlPlaneIsNotFound,
      ok,
    ),
  );
  set(workersAvailableCondition(d.machineDeployments, ok));
  const [controlPlaneMachinesReady, controlPlaneMachinesUpToDate] = controlPlaneMachinesConditions(
    d.controlPlaneMachines,
    ok,
    now,
  );
  const [workerMachinesReady, workerMachinesUpToDate] = workerMachinesConditions(d.workerMachines, ok, now);
  set(controlPlaneMachinesReady);
  set(workerMachinesReady);
  set(controlPlaneMachinesUpToDate);
  set(workerMachinesUpToDate);
  set(rollingOutCondition(rollout));
  set(scalingUpCondition(rollout));
  set(scalingDownCondition(rollout));
  set(remediatingCondition(d.machinesToBeRemediated, d.unhealthyMachines, ok));
  set(deletingCondition(cluster, scope.deletingReason, scope.deletingMessage));
  set(availableCondition(cluster));

  return { status, phaseChanged: changed, phase };
}
