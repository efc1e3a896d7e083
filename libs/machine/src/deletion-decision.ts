// Pure decisions of the Machine's deletion (upstream core/reconcilers/machine/machine_controller.go reconcileDelete,
// isDeleteNodeAllowed, isNodeDrainAllowed, isNodeVolumeDetachingAllowed, the pre-drain / pre-terminate hooks).
import {
  annotationKeysWithPrefix,
  EXCLUDE_NODE_DRAINING_ANNOTATION,
  EXCLUDE_WAIT_FOR_NODE_VOLUME_DETACH_ANNOTATION,
  MACHINE_DELETING_WAITING_FOR_PRE_DRAIN_HOOK_REASON,
  MACHINE_DELETING_WAITING_FOR_PRE_TERMINATE_HOOK_REASON,
  PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX,
  PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { MachineObject } from './types';

/**
 * Why the Node of a deleting Machine is not deleted (upstream's errNilNodeRef, errNoControlPlaneNodes,
 * errClusterIsBeingDeleted, errControlPlaneIsBeingDeleted; errLastControlPlaneNode is declared upstream but never
 * returned). The Machine still goes away; its Node stays, and the pre-drain hooks, drain and volume detach are skipped.
 */
export const DELETE_NODE_NOT_ALLOWED = {
  nilNodeRef: 'noderef is nil',
  noControlPlaneNodes: 'no control plane members',
  clusterIsBeingDeleted: 'cluster is being deleted',
  controlPlaneIsBeingDeleted: 'control plane is being deleted',
} as const;
export type DeleteNodeNotAllowed = keyof typeof DELETE_NODE_NOT_ALLOWED;

export interface DeleteNodeInput {
  clusterDeleting: boolean;
  /** status.nodeRef.name, or the Node found by providerID when there is no nodeRef yet. */
  nodeName?: string;
  /**
   * The object of the Cluster's spec.controlPlaneRef; undefined when the Cluster has none or it does not exist
   * (upstream then skips the control plane checks).
   */
  controlPlane?: { deleting: boolean; externallyManaged: boolean };
  /** The Cluster's Machines without deletionTimestamp that carry the control-plane label (this one included). */
  activeControlPlaneMachines: number;
}

/** Upstream isDeleteNodeAllowed: undefined when the Node may be deleted. */
export function deleteNodeNotAllowed(input: DeleteNodeInput): DeleteNodeNotAllowed | undefined {
  if (input.clusterDeleting) return 'clusterIsBeingDeleted';
  if (!input.nodeName) return 'nilNodeRef';
  if (input.controlPlane) {
    if (input.controlPlane.deleting) return 'controlPlaneIsBeingDeleted';
    // An externally managed control plane (AKS, EKS, ...) registers no control-plane Nodes.
    if (input.controlPlane.externallyManaged) return undefined;
  }
  // Never delete the Node when no control-plane member remains: the workload cluster is going away with it.
  if (input.activeControlPlaneMachines === 0) return 'noControlPlaneNodes';
  return undefined;
}

/** Upstream util.IsExternalManagedControlPlane: status.externalManagedControlPlane is true. */
export const isExternallyManagedControlPlane = (controlPlane: KubeObject): boolean =>
  (controlPlane.status as { externalManagedControlPlane?: unknown } | undefined)?.externalManagedControlPlane === true;

const parseTime = (t: string | undefined): number | undefined => {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
};

/** A timeout of `seconds` (unset or <= 0: none) since `start` has passed (upstream nodeDrainTimeoutExceeded & co). */
function timeoutExceeded(seconds: number | undefined, start: string | undefined, nowMs: number): boolean {
  if (seconds === undefined || seconds <= 0) return false;
  const startMs = parseTime(start);
  if (startMs === undefined) return false;
  return nowMs - startMs >= seconds * 1000;
}

/**
 * Common part of isNodeDrainAllowed / isNodeVolumeDetachingAllowed: not once the pre-terminate hooks were waited for,
 * not without an InfraMachine (or with a deleting one).
 */
function nodeStepAllowed(machine: MachineObject, infraMachine: KubeObject | undefined): boolean {
  if (machine.status?.deletion?.waitForPreTerminateHookStartTime) return false;
  return !!infraMachine && !infraMachine.metadata?.deletionTimestamp;
}

/** Upstream isNodeDrainAllowed: the drain runs (drain-node.ts) unless excluded, too late, or timed out. */
export function isNodeDrainAllowed(
  machine: MachineObject,
  infraMachine: KubeObject | undefined,
  nowMs: number,
): boolean {
  if (EXCLUDE_NODE_DRAINING_ANNOTATION in (machine.metadata.annotations ?? {})) return false;
  if (!nodeStepAllowed(machine, infraMachine)) return false;
  return !timeoutExceeded(
    machine.status?.deletion ? machine.spec.deletion?.nodeDrainTimeoutSeconds : undefined,
    machine.status?.deletion?.nodeDrainStartTime,
    nowMs,
  );
}

/** Upstream isNodeVolumeDetachingAllowed (waiting for volumes is not implemented: this decides where it would run). */
export function isNodeVolumeDetachingAllowed(
  machine: MachineObject,
  infraMachine: KubeObject | undefined,
  nowMs: number,
): boolean {
  if (EXCLUDE_WAIT_FOR_NODE_VOLUME_DETACH_ANNOTATION in (machine.metadata.annotations ?? {})) return false;
  if (!nodeStepAllowed(machine, infraMachine)) return false;
  return !timeoutExceeded(
    machine.status?.deletion ? machine.spec.deletion?.nodeVolumeDetachTimeoutSeconds : undefined,
    machine.status?.deletion?.waitForNodeVolumeDetachStartTime,
    nowMs,
  );
}

export interface HookWait {
  reason: string;
  message: string;
  hooks: string[];
  /** The status.deletion field recording when the wait started (set once). */
  startField: 'waitForPreDrainHookStartTime' | 'waitForPreTerminateHookStartTime';
}

/** The pre-drain hooks a deleting Machine waits for (only checked when its Node may be deleted). */
export function preDrainHookWait(machine: MachineObject): HookWait | undefined {
  const hooks = annotationKeysWithPrefix(PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX, machine.metadata.annotations);
  if (hooks.length === 0) return undefined;
  return {
    reason: MACHINE_DELETING_WAITING_FOR_PRE_DRAIN_HOOK_REASON,
    message: `Waiting for pre-drain hooks to succeed (hooks: ${hooks.join(',')})`,
    hooks,
    startField: 'waitForPreDrainHookStartTime',
  };
}

/** The pre-terminate hooks a deleting Machine waits for before its InfraMachine, BootstrapConfig and Node go. */
export function preTerminateHookWait(machine: MachineObject): HookWait | undefined {
  const hooks = annotationKeysWithPrefix(PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX, machine.metadata.annotations);
  if (hooks.length === 0) return undefined;
  return {
    reason: MACHINE_DELETING_WAITING_FOR_PRE_TERMINATE_HOOK_REASON,
    message: `Waiting for pre-terminate hooks to succeed (hooks: ${hooks.join(',')})`,
    hooks,
    startField: 'waitForPreTerminateHookStartTime',
  };
}

/**
 * After a failed Node deletion: whether the Machine waits (and retries) rather than going away with its Node left.
 * Upstream: wait while spec.deletion.nodeDeletionTimeoutSeconds is unset or 0 (no timeout), or has not passed since
 * the deletionTimestamp.
 */
export function waitForNodeDeletion(machine: MachineObject, nowMs: number): boolean {
  const seconds = machine.spec.deletion?.nodeDeletionTimeoutSeconds;
  if (seconds === undefined || seconds === 0) return true;
  const deletedAt = parseTime(machine.metadata.deletionTimestamp);
  if (deletedAt === undefined) return true;
  return deletedAt + seconds * 1000 > nowMs;
}
