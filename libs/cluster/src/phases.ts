// The Cluster's phases as upstream's core/reconcilers/cluster/cluster_controller_phases.go reconcileInfrastructure and
// reconcileControlPlane: pure functions over a working copy of the Cluster (as upstream mutates the Cluster it patches
// at the end of the reconcile) and what was read for its references.
import type { Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  controlPlaneInitializedPath,
  FieldNotFoundError,
  infraProvisionedPath,
  isValidEndpoint,
  readControlPlaneEndpoint,
  readFailureDomains,
  readFlag,
  type ContractVersion,
} from './contract';

/** How long to wait for a referenced object that does not exist yet (upstream externalReadyWait). */
export const EXTERNAL_READY_WAIT_MS = 30_000;

/** The object a reference names, or that it does not exist. */
export interface ExternalRead {
  object?: KubeObject;
  notFound: boolean;
  contractVersion?: ContractVersion;
}

export interface PhaseEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface PhaseResult {
  requeueAfterMs?: number;
  error?: Error;
  events: PhaseEvent[];
  /** Log lines upstream writes at info level. */
  logs: string[];
}

type Initialization = NonNullable<NonNullable<Cluster['status']>['initialization']>;

const initialization = (cluster: Cluster): Initialization => {
  cluster.status ??= {};
  return (cluster.status.initialization ??= {});
};
const deleting = (o: KubeObject | undefined) => !!o?.metadata.deletionTimestamp;
const result = (): PhaseResult => ({ events: [], logs: [] });

/** Copies spec.controlPlaneEndpoint from `from` unless the Cluster has a valid one; absent there → cleared. */
function copyEndpoint(cluster: Cluster, from: KubeObject, what: string): Error | undefined {
  if (isValidEndpoint(cluster.spec?.controlPlaneEndpoint)) return undefined;
  cluster.spec ??= {};
  try {
    const e = readControlPlaneEndpoint(from);
    cluster.spec.controlPlaneEndpoint = { ...(e.host ? { host: e.host } : {}), ...(e.port ? { port: e.port } : {}) };
  } catch (e) {
    if (!(e instanceof FieldNotFoundError))
      return new Error(
        `failed to retrieve spec.controlPlaneEndpoint from ${what} for Cluster "${cluster.metadata.name}" in namespace "${cluster.metadata.namespace}": ${(e as Error).message}`,
      );
    delete cluster.spec.controlPlaneEndpoint;
  }
  return undefined;
}

/** upstream reconcileInfrastructure, after the read: initialization, endpoint and failure domains. */
export function reconcileInfrastructurePhase(cluster: Cluster, read: ExternalRead | undefined): PhaseResult {
  const out = result();
  const ref = cluster.spec?.infrastructureRef;
  if (!ref) {
    // No infrastructure: provisioned, to unblock the other provisioning workflows (not while deleting).
    if (!cluster.metadata.deletionTimestamp) initialization(cluster).infrastructureProvisioned = true;
    return out;
  }
  const wasProvisioned = cluster.status?.initialization?.infrastructureProvisioned === true;
  const infra = read?.object;
  if (!infra) {
    if (cluster.metadata.deletionTimestamp) return out;
    if (wasProvisioned) {
      out.error = new Error(`${ref.kind} has been deleted after being provisioned`);
      return out;
    }
    out.logs.push(`Could not find ${ref.kind}, requeuing`);
    out.requeueAfterMs = EXTERNAL_READY_WAIT_MS;
    return out;
  }
  const cv = read.contractVersion ?? 'v1beta2';
  let provisioned: boolean;
  try {
    provisioned = readFlag(infra, infraProvisionedPath(cv));
  } catch (e) {
    out.error = e as Error;
    return out;
  }
  if (provisioned && !wasProvisioned) out.logs.push('Infrastructure provider has completed provisioning');
  if (deleting(infra)) return out;
  if (!provisioned && !wasProvisioned) return out;

  out.error = copyEndpoint(cluster, infra, 'infrastructure provider');
  if (out.error) return out;
  try {
    const domains = readFailureDomains(infra, cv);
    if (domains.length) cluster.status!.failureDomains = domains;
    else delete cluster.status!.failureDomains;
  } catch (e) {
    if (!(e instanceof FieldNotFoundError)) {
      out.error = new Error(
        `failed to retrieve status.failureDomains from infrastructure provider for Cluster "${cluster.metadata.name}" in namespace "${cluster.metadata.namespace}": ${(e as Error).message}`,
      );
      return out;
    }
    delete cluster.status?.failureDomains;
  }
  if (!wasProvisioned)
    out.events.push({
      type: 'Normal',
      reason: 'InfrastructureReady',
      message: `Cluster ${cluster.metadata.name} InfrastructureProvisioned is now True`,
    });
  initialization(cluster).infrastructureProvisioned = true;
  return out;
}

/** upstream reconcileControlPlane, after the read: controlPlaneInitialized and the endpoint. */
export function reconcileControlPlanePhase(cluster: Cluster, read: ExternalRead | undefined): PhaseResult {
  const out = result();
  const ref = cluster.spec?.controlPlaneRef;
  if (!ref) return out;
  const wasInitialized = cluster.status?.initialization?.controlPlaneInitialized === true;
  const cp = read?.object;
  if (!cp) {
    if (cluster.metadata.deletionTimestamp) return out;
    if (wasInitialized) {
      out.error = new Error(`${ref.kind} has been deleted after being initialized`);
      return out;
    }
    out.logs.push(`Could not find ${ref.kind}, requeuing`);
    out.requeueAfterMs = EXTERNAL_READY_WAIT_MS;
    return out;
  }
  let initialized: boolean;
  try {
    initialized = readFlag(cp, controlPlaneInitializedPath(read.contractVersion ?? 'v1beta2'));
  } catch (e) {
    out.error = e as Error;
    return out;
  }
  if (initialized && !wasInitialized) out.logs.push('ControlPlane has completed initialization');
  if (deleting(cp)) return out;
  if (!initialized && !wasInitialized) return out;

  out.error = copyEndpoint(cluster, cp, 'control plane provider');
  if (out.error) return out;
  if (!wasInitialized)
    out.events.push({
      type: 'Normal',
      reason: 'ControlPlaneInitialized',
      message: `Cluster ${cluster.metadata.name} ControlPlaneInitialized is now True`,
    });
  initialization(cluster).controlPlaneInitialized = true;
  return out;
}
