// status.controlPlane and status.workers counters, as upstream setControlPlaneReplicas and setWorkersReplicas in
// core/reconcilers/cluster/cluster_controller_status.go.
import {
  aggregateStatusVersions,
  AVAILABLE_CONDITION,
  isTrue,
  READY_CONDITION,
  UP_TO_DATE_CONDITION,
  versionsFromMachines,
  type Cluster,
  type ClusterStatus,
  type Machine,
  type MachineDeployment,
  type MachineSet,
  type StatusVersion,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { isOwnedByCluster } from '../descendants';
import { controlPlaneContract as cp, getInt, getStatusVersions } from './contract';
import { isRefDefined } from './phase';

type Counters = NonNullable<ClusterStatus['controlPlane']>;

/** Counts of stand-alone Machines (no owner reporting counters): replicas, Ready, Available, UpToDate. */
function countMachines(machines: readonly Machine[]) {
  const count = (type: string) => machines.filter((m) => isTrue(m, type)).length;
  return {
    replicas: machines.length,
    ready: count(READY_CONDITION),
    available: count(AVAILABLE_CONDITION),
    upToDate: count(UP_TO_DATE_CONDITION),
  };
}

/** A counter that is only set once something was counted (upstream's *int32 left nil). */
const counter = (n: number, any: boolean): number | undefined => (any ? n : undefined);

export function controlPlaneReplicas(
  cluster: Cluster,
  controlPlane: KubeObject | undefined,
  contractVersion: string,
  controlPlaneMachines: readonly Machine[],
  controlPlaneIsNotFound: boolean,
  getDescendantsSucceeded: boolean,
): Counters {
  const current: Counters = { ...(cluster.status?.controlPlane ?? {}) };
  // Topology is not used here (no ClusterClass), so only controlPlaneRef selects the control plane object.
  if (isRefDefined(cluster.spec.controlPlaneRef)) {
    if (!controlPlane || controlPlaneIsNotFound) return {};
    // The contract does not require replica fields: the ones a provider does not report keep their last value.
    const set = (field: keyof Omit<Counters, 'versions'>, path: readonly string[]) => {
      const r = getInt(controlPlane, path);
      if ('value' in r) current[field] = r.value;
    };
    set('desiredReplicas', cp.replicas);
    set('replicas', cp.statusReplicas);
    set('readyReplicas', cp.readyReplicas);
    if (contractVersion === 'v1beta1') {
      const unavailable = getInt(controlPlane, cp.v1beta1UnavailableReplicas);
      if ('value' in unavailable && current.desiredReplicas !== undefined) {
        current.availableReplicas = Math.max(current.desiredReplicas - unavailable.value, 0);
      }
    } else set('availableReplicas', cp.availableReplicas);
    set('upToDateReplicas', cp.upToDateReplicas(contractVersion));
    const versions = getStatusVersions(controlPlane);
    if ('value' in versions) current.versions = versions.value;
    else if ('notFound' in versions) delete current.versions;
    return current;
  }

  // Listing descendants failed (should never happen): keep the counters as they are.
  if (!getDescendantsSucceeded) return current;

  // A control plane of stand-alone Machines: count them; creating a Machine is the intent to have one replica.
  const n = countMachines(controlPlaneMachines);
  const any = n.replicas > 0;
  return strip({
    desiredReplicas: counter(n.replicas, any),
    replicas: counter(n.replicas, any),
    readyReplicas: counter(n.ready, n.ready > 0),
    availableReplicas: counter(n.available, n.available > 0),
    upToDateReplicas: counter(n.upToDate, n.upToDate > 0),
    versions: versionsFromMachines(controlPlaneMachines),
  });
}

type Owner = MachineDeployment | MachineSet;

export function workersReplicas(
  cluster: Cluster,
  machineDeployments: readonly MachineDeployment[],
  machineSets: readonly MachineSet[],
  workerMachines: readonly Machine[],
  getDescendantsSucceeded: boolean,
): NonNullable<ClusterStatus['workers']> {
  if (!getDescendantsSucceeded) return { ...(cluster.status?.workers ?? {}) };
  let desired: number | undefined;
  let replicas: number | undefined;
  let ready: number | undefined;
  let available: number | undefined;
  let upToDate: number | undefined;
  const add = (sum: number | undefined, v: number | undefined) => (v === undefined ? sum : (sum ?? 0) + v);
  const versions: StatusVersion[] = [];
  // MachineSets count only when the Cluster owns them directly (those of MachineDeployments are in the MD's counts).
  const owners: Owner[] = [...machineDeployments, ...machineSets.filter((ms) => isOwnedByCluster(ms, cluster))];
  for (const o of owners) {
    desired = add(desired, o.spec.replicas);
    replicas = add(replicas, o.status?.replicas);
    ready = add(ready, o.status?.readyReplicas);
    available = add(available, o.status?.availableReplicas);
    upToDate = add(upToDate, o.status?.upToDateReplicas);
    versions.push(...(o.status?.versions ?? []));
  }
  // Stand-alone worker Machines owned by the Cluster; creating one is the intent to have one replica.
  const standalone = workerMachines.filter((m) => isOwnedByCluster(m, cluster));
  for (const m of standalone) {
    replicas = add(replicas, 1);
    if (isTrue(m, READY_CONDITION)) ready = add(ready, 1);
    if (isTrue(m, AVAILABLE_CONDITION)) available = add(available, 1);
    if (isTrue(m, UP_TO_DATE_CONDITION)) upToDate = add(upToDate, 1);
    desired = add(desired, 1);
  }
  versions.push(...(versionsFromMachines(standalone) ?? []));
  return strip({
    desiredReplicas: desired,
    replicas,
    readyReplicas: ready,
    availableReplicas: available,
    upToDateReplicas: upToDate,
    versions: aggregateStatusVersions(versions),
  });
}

/** Drops undefined fields so the status JSON has no explicit nulls/undefined. */
function strip<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
