// In-place update predicates and diff normalisation (upstream internal/util/inplace/inplace.go).
import { UPDATE_IN_PROGRESS_ANNOTATION } from './constants';
import { isPending } from './pendinghooks';
import type { MachineSpec } from './types/machine';

export interface AnnotatedObject {
  metadata: { annotations?: Record<string, string> };
}

/** A Machine is updating in place iff it has the update-in-progress annotation or UpdateMachine is pending. */
export function isUpdateInProgress(machine: AnnotatedObject): boolean {
  const annotations = machine.metadata.annotations ?? {};
  return UPDATE_IN_PROGRESS_ANNOTATION in annotations || isPending('UpdateMachine', machine);
}

/**
 * Deep copy of a Machine spec without the fields that legitimately differ between current and desired or that CAPI
 * propagates in place itself (upstream CleanupMachineSpecForDiff). Emptied structs are dropped, as Go's omitzero would.
 */
export function cleanupMachineSpecForDiff<T extends Partial<MachineSpec>>(spec: T): Partial<MachineSpec> {
  const out = structuredClone(spec) as Partial<MachineSpec>;
  delete out.clusterName;
  delete out.bootstrap;
  delete out.infrastructureRef;
  delete out.providerID;
  delete out.minReadySeconds;
  delete out.readinessGates;
  delete out.taints;
  if (out.deletion) {
    delete out.deletion.nodeDrainTimeoutSeconds;
    delete out.deletion.nodeVolumeDetachTimeoutSeconds;
    delete out.deletion.nodeDeletionTimeoutSeconds;
    if (Object.keys(out.deletion).length === 0) delete out.deletion;
  }
  return out;
}

/**
 * The object shape sent to extensions (upstream cleanupMachine / cleanupUnstructured in
 * controlplane/kubeadm/reconcilers/kubeadmcontrolplane/inplace_canupdatemachine.go).
 */
export interface ReducedObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
}

export interface ReducibleObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: unknown;
}

/**
 * Reduces an object to apiVersion, kind, metadata.{name,namespace,labels,annotations} and spec (deep copies).
 * `gvk` overrides apiVersion/kind (typed objects are always sent at the latest version).
 */
export function reduceObjectForHook(obj: ReducibleObject, gvk?: { apiVersion: string; kind: string }): ReducedObject {
  const apiVersion = gvk?.apiVersion ?? obj.apiVersion;
  const kind = gvk?.kind ?? obj.kind;
  if (!apiVersion || !kind) throw new Error('reduceObjectForHook: object has no apiVersion/kind and none was given');
  const m = obj.metadata ?? {};
  const metadata: ReducedObject['metadata'] = {};
  if (m.name !== undefined) metadata.name = m.name;
  if (m.namespace !== undefined) metadata.namespace = m.namespace;
  if (m.labels !== undefined) metadata.labels = { ...m.labels };
  if (m.annotations !== undefined) metadata.annotations = { ...m.annotations };
  const out: ReducedObject = { apiVersion, kind, metadata };
  if (obj.spec !== undefined) out.spec = structuredClone(obj.spec) as Record<string, unknown>;
  return out;
}
