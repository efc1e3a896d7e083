// Machine deletion lifecycle hooks and the Machine Deleting condition's reasons (upstream
// api/core/v1beta2/machine_types.go, api/controlplane/kubeadm/v1beta2/kubeadm_control_plane_types.go,
// util/annotations/helpers.go HasWithPrefix). Anyone may add a hook: any annotation with the prefix counts.

/** While any annotation with this prefix is on a deleting Machine, the Machine controller waits before draining. */
export const PRE_DRAIN_DELETE_HOOK_ANNOTATION_PREFIX = 'pre-drain.delete.hook.machine.cluster.x-k8s.io';
/**
 * While any annotation with this prefix is on a deleting Machine, the Machine controller waits before deleting the
 * infrastructure machine, the bootstrap config and the Node.
 */
export const PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io';
/** KCP's own pre-terminate hook on its Machines: removed once the etcd member of the Machine is gone. */
export const KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION = `${PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX}/kcp-cleanup`;

// Machine Deleting condition reasons (v1beta2), in the order of upstream's reconcileDelete steps.
export const MACHINE_DELETING_REASON = 'Deleting';
export const MACHINE_DELETING_INTERNAL_ERROR_REASON = 'InternalError';
export const MACHINE_DELETING_WAITING_FOR_PRE_DRAIN_HOOK_REASON = 'WaitingForPreDrainHook';
export const MACHINE_DELETING_DRAINING_NODE_REASON = 'DrainingNode';
export const MACHINE_DELETING_WAITING_FOR_VOLUME_DETACH_REASON = 'WaitingForVolumeDetach';
export const MACHINE_DELETING_WAITING_FOR_PRE_TERMINATE_HOOK_REASON = 'WaitingForPreTerminateHook';
export const MACHINE_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON = 'WaitingForInfrastructureDeletion';
export const MACHINE_DELETING_WAITING_FOR_BOOTSTRAP_DELETION_REASON = 'WaitingForBootstrapDeletion';
export const MACHINE_DELETING_DELETING_NODE_REASON = 'DeletingNode';
export const MACHINE_DELETING_DELETION_COMPLETED_REASON = 'DeletionCompleted';

/** Whether any annotation key starts with `prefix` (upstream annotations.HasWithPrefix). */
export function hasAnnotationWithPrefix(prefix: string, annotations: Record<string, string> | undefined): boolean {
  return Object.keys(annotations ?? {}).some((k) => k.startsWith(prefix));
}

/** The annotation keys starting with `prefix`, sorted (the order upstream lists hooks in messages). */
export function annotationKeysWithPrefix(prefix: string, annotations: Record<string, string> | undefined): string[] {
  return Object.keys(annotations ?? {})
    .filter((k) => k.startsWith(prefix))
    .sort();
}
