import {
  ACKNOWLEDGED_MOVE_ANNOTATION,
  DISABLE_MACHINE_CREATE_ANNOTATION,
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  REVISION_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
} from '@capi/api';

// Minimal structural views of the Cluster API v1beta2 objects the rollout planner reads and writes.
// They follow the upstream JSON shape; the @capi/api kinds are assignable to them (checked in types.spec.ts).

export type IntOrString = number | string;

export interface ObjectReferenceLike {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

export interface OwnerReferenceLike {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface ObjectMetaLike {
  /** Required by the planner (validated in init); optional here to match the Kubernetes ObjectMeta type. */
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: OwnerReferenceLike[];
}

export interface MachineSpecLike {
  clusterName?: string;
  version?: string;
  failureDomain?: string;
  providerID?: string;
  bootstrap?: { configRef?: ObjectReferenceLike; dataSecretName?: string };
  infrastructureRef?: ObjectReferenceLike;
  [field: string]: unknown;
}

export interface MachineTemplateSpecLike {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: MachineSpecLike;
}

export type RolloutStrategyType = 'RollingUpdate' | 'OnDelete';

export interface MachineDeploymentLike {
  metadata: ObjectMetaLike;
  spec: {
    replicas?: number;
    template: MachineTemplateSpecLike;
    rollout?: {
      after?: string;
      strategy?: {
        type?: RolloutStrategyType;
        rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
      };
    };
  };
  status?: { replicas?: number; availableReplicas?: number; upToDateReplicas?: number };
}

export interface MachineSetLike {
  metadata: ObjectMetaLike;
  spec: { replicas?: number; template: MachineTemplateSpecLike };
  status?: { replicas?: number; availableReplicas?: number; upToDateReplicas?: number };
}

export interface MachineLike {
  metadata: ObjectMetaLike;
  spec?: MachineSpecLike;
}

/** Annotation keys the planner and the MachineSet controller use to coordinate in-place moves. */
export const RolloutAnnotations = {
  revision: REVISION_ANNOTATION,
  // Deprecated upstream, still carried over; not exported by @capi/api.
  revisionHistory: 'machinedeployment.clusters.x-k8s.io/revision-history',
  moveMachinesToMachineSet: MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  receiveMachinesFromMachineSets: RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  acknowledgedMove: ACKNOWLEDGED_MOVE_ANNOTATION,
  disableMachineCreate: DISABLE_MACHINE_CREATE_ANNOTATION,
  pendingAcknowledgeMove: PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  updateInProgress: UPDATE_IN_PROGRESS_ANNOTATION,
} as const;

/** The object's name ('' when unset; the planner rejects unnamed MachineSets in init). */
export function nameOf(obj: { metadata: { name?: string } }): string {
  return obj.metadata.name ?? '';
}
