// syncMachines (upstream controlplane/kubeadm/internal/controllers/controller.go syncMachines, with helpers.go
// updateMachine and updateLabelsAndAnnotations): the KCP's in-place mutable fields (machineTemplate labels,
// annotations, deletion timeouts, taints, readiness gates) reach its EXISTING Machines, and the labels and annotations
// their InfraMachines and KubeadmConfigs, without a rollout. Runs before any rollout / scale decision.
import type { KubeadmConfig, KubeadmControlPlane, Machine } from '@capi/api';
import { isNotFound, type Client } from '@capi/controller-runtime';
import { canonicalJson, type KubeObject } from '@capi/apimachinery';
import { intentMemoKey, syncLabelsAndAnnotations, type ServerSideApplier } from '@capi/ssa';
import { KCP_MANAGER_NAME, KCP_METADATA_MANAGER_NAME } from './constants';
import { isEtcdManaged } from './health';
import { computeDesiredMachine, controlPlaneMachineAnnotations, controlPlaneMachineLabels } from './desired';

/** A control-plane Machine with the objects it references, as read (either may be missing, e.g. not cached yet). */
export interface ControlPlaneMachineObjects {
  machine: Machine;
  kubeadmConfig?: KubeadmConfig;
  infraMachine?: KubeObject;
}

export interface SyncMachinesDeps {
  client: Client;
  applier: ServerSideApplier;
}

/** The v1beta2 deletion timeouts a deleting Machine still takes from the KCP (they drive its teardown). */
const DELETION_TIMEOUTS = [
  'nodeDrainTimeoutSeconds',
  'nodeVolumeDetachTimeoutSeconds',
  'nodeDeletionTimeoutSeconds',
] as const;

export type DeletionTimeoutsPatch = {
  spec: { deletion: Partial<Record<(typeof DELETION_TIMEOUTS)[number], number | null>> };
};

/**
 * The merge patch that gives a deleting Machine the KCP's deletion timeouts (null drops one the KCP no longer sets),
 * or undefined when they already match. Upstream syncs only these fields on Machines being deleted.
 */
export function deletionTimeoutsPatch(kcp: KubeadmControlPlane, machine: Machine): DeletionTimeoutsPatch | undefined {
  const want = kcp.spec.machineTemplate.spec.deletion ?? {};
  const have = machine.spec.deletion ?? {};
  const deletion: DeletionTimeoutsPatch['spec']['deletion'] = {};
  for (const field of DELETION_TIMEOUTS) {
    if (want[field] === have[field]) continue;
    deletion[field] = want[field] ?? null;
  }
  return Object.keys(deletion).length > 0 ? { spec: { deletion } } : undefined;
}

/**
 * Everything the desired state of an existing Machine and its objects' metadata is computed from, besides the Machine
 * itself (whose resourceVersion the memo keys add): a no-op apply with the same inputs stays a no-op.
 */
export function machineSyncInputs(kcp: KubeadmControlPlane, clusterName: string): string {
  const template = kcp.spec.machineTemplate;
  return canonicalJson({
    clusterName,
    kcp: [kcp.metadata.namespace, kcp.metadata.name, kcp.metadata.uid],
    metadata: template.metadata ?? {},
    deletion: template.spec.deletion ?? {},
    taints: template.spec.taints ?? [],
    readinessGates: template.spec.readinessGates ?? [],
    // The etcd readiness gates depend on it.
    etcdManaged: isEtcdManaged(kcp),
  });
}

/** A NotFound anywhere in the cause chain: a Machine or one of its objects went away while syncing. */
export function isNotFoundCause(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 10; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (isNotFound(cur)) return true;
  }
  return false;
}

const nameOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
const wrap = (what: string, o: KubeObject, e: unknown) =>
  new Error(`failed to update ${what} ${nameOf(o)}: ${(e as Error).message}`, { cause: e });

/**
 * Re-applies an existing Machine with capi-kubeadmcontrolplane (upstream updateMachine): the desired Machine keeps the
 * Machine's version, references and failure domain, so only the in-place mutable fields change. Annotations other
 * managers wrote (in-place update markers, pending hooks) are not in the intent and not owned by this manager: they stay.
 */
async function applyMachine(
  deps: SyncMachinesDeps,
  kcp: KubeadmControlPlane,
  clusterName: string,
  machine: Machine,
  inputs: string,
): Promise<Machine> {
  const memo = intentMemoKey(machine, inputs);
  if (deps.applier.knownNoop(KCP_MANAGER_NAME, memo)) return machine;
  const desired = computeDesiredMachine({ kcp, clusterName, existing: machine });
  // patch() writes the server's answer (or, on a request-cache hit, the Machine as read) into `desired`.
  await deps.applier.patch(deps.client, desired, { fieldOwner: KCP_MANAGER_NAME, original: machine, memo });
  return desired;
}

/**
 * Syncs every control-plane Machine, in upstream's order: a deleting Machine only gets the deletion timeouts; any other
 * is re-applied, then its InfraMachine and KubeadmConfig get the KCP's Machine labels and annotations from
 * capi-kubeadmcontrolplane-metadata (objects whose labels capi-kubeadmcontrolplane still owns are migrated first).
 * Returns the Machines as written, for the rest of the reconcile. Errors keep their cause (see isNotFoundCause).
 */
export async function syncMachines(
  deps: SyncMachinesDeps,
  kcp: KubeadmControlPlane,
  clusterName: string,
  objects: readonly ControlPlaneMachineObjects[],
): Promise<Machine[]> {
  const inputs = machineSyncInputs(kcp, clusterName);
  const metadata = {
    fieldManager: KCP_MANAGER_NAME,
    metadataFieldManager: KCP_METADATA_MANAGER_NAME,
    labels: controlPlaneMachineLabels(kcp, clusterName),
    annotations: controlPlaneMachineAnnotations(kcp),
    inputs,
  };
  const synced: Machine[] = [];
  for (const { machine, infraMachine, kubeadmConfig } of objects) {
    if (machine.metadata.deletionTimestamp) {
      const patch = deletionTimeoutsPatch(kcp, machine);
      try {
        synced.push(
          patch
            ? await deps.client.patch<Machine>(
                {
                  apiVersion: machine.apiVersion,
                  kind: 'Machine',
                  namespace: machine.metadata.namespace,
                  name: machine.metadata.name ?? '',
                },
                'merge',
                patch,
              )
            : machine,
        );
      } catch (e) {
        throw wrap('Machine', machine, e);
      }
      continue;
    }
    try {
      synced.push(await applyMachine(deps, kcp, clusterName, machine, inputs));
    } catch (e) {
      throw wrap('Machine', machine, e);
    }
    // Not read yet (e.g. just created and not in the cache): the next reconcile gets it, as upstream.
    for (const [what, obj] of [
      ['InfrastructureMachine', infraMachine],
      ['KubeadmConfig', kubeadmConfig],
    ] as const) {
      if (!obj) continue;
      try {
        await syncLabelsAndAnnotations(deps.applier, deps.client, obj, metadata);
      } catch (e) {
        throw wrap(what, obj, e);
      }
    }
  }
  return synced;
}
