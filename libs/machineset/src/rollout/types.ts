// Minimal structural views of the Cluster API v1beta2 objects the rollout planner reads and writes.
// They follow the upstream JSON shape so the full @capi/api types (once they exist) are assignable to them.

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
  name: string;
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
  revision: 'machinedeployment.clusters.x-k8s.io/revision',
  revisionHistory: 'machinedeployment.clusters.x-k8s.io/revision-history',
  moveMachinesToMachineSet: 'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset',
  receiveMachinesFromMachineSets: 'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets',
  acknowledgedMove: 'in-place-updates.internal.cluster.x-k8s.io/acknowledged-move',
  disableMachineCreate: 'cluster.x-k8s.io/disable-machine-create',
  pendingAcknowledgeMove: 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move',
  updateInProgress: 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress',
} as const;
