// Wire constants of the Runtime SDK hooks API (upstream: api/runtime/hooks/v1alpha1).

export const HOOKS_GROUP = 'hooks.runtime.cluster.x-k8s.io';
export const HOOKS_VERSION = 'v1alpha1';
export const HOOKS_API_VERSION = `${HOOKS_GROUP}/${HOOKS_VERSION}`;

/** Hooks this project knows. `Discovery` is special: it has no handler name in its path. */
export const HOOK_NAMES = ['Discovery', 'CanUpdateMachine', 'CanUpdateMachineSet', 'UpdateMachine'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

export type ResponseStatus = 'Success' | 'Failure';
export const RESPONSE_STATUSES: readonly ResponseStatus[] = ['Success', 'Failure'];

export type FailurePolicy = 'Fail' | 'Ignore';
export const FAILURE_POLICIES: readonly FailurePolicy[] = ['Fail', 'Ignore'];

export type PatchType = 'JSONPatch' | 'JSONMergePatch';
export const PATCH_TYPES: readonly PatchType[] = ['JSONPatch', 'JSONMergePatch'];

/** Upstream DefaultHandlersTimeoutSeconds. */
export const DEFAULT_HANDLER_TIMEOUT_SECONDS = 10;
/** Upper bound accepted for a handler's timeoutSeconds. */
export const MAX_HANDLER_TIMEOUT_SECONDS = 30;
