// What the in-memory provider's controllers read of a Machine, as a watch predicate (upstream providers narrow their
// Machine watches with predicates the same way).
import { MACHINE_CONTROL_PLANE_LABEL } from '@capi/api';
import type { Predicate } from '@capi/controller-runtime';
import { jsonEqual, type KubeObject } from '@capi/apimachinery';

/**
 * Lets through Machine updates that change what the KubeadmConfig and InMemoryMachine reconcilers read of it: the
 * spec (bootstrap/infrastructure refs, dataSecretName, clusterName, version: a generation bump), the deletion and the
 * control-plane label. Status, annotations and the other labels change many times per Machine during a rollout and
 * would each reconcile the config and the InMemoryMachine for nothing. Creates and deletes always pass.
 */
export const machineInputsChangedPredicate: Predicate = {
  update: (o, n) => machineInputsChanged(o, n),
};

export function machineInputsChanged(o: KubeObject, n: KubeObject): boolean {
  if (o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp) return true;
  const controlPlane = (m: KubeObject) => m.metadata.labels?.[MACHINE_CONTROL_PLANE_LABEL] !== undefined;
  if (controlPlane(o) !== controlPlane(n)) return true;
  // The server bumps the generation on every spec change; compare the spec itself only without one.
  if (o.metadata.generation !== undefined || n.metadata.generation !== undefined)
    return o.metadata.generation !== n.metadata.generation;
  return !jsonEqual((o as { spec?: unknown }).spec ?? {}, (n as { spec?: unknown }).spec ?? {});
}
