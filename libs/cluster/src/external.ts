// The Cluster's referenced objects (upstream cluster_controller_phases.go reconcileExternal, ensureOwnerRefAndLabel):
// read at their contract version, watched by kind, and given the Cluster's ownerReference and cluster-name label.
import { CLUSTER_API_VERSION, CLUSTER_GROUP, CLUSTER_NAME_LABEL, type Cluster } from '@capi/api';
import type { KubeObject, OwnerReference } from '@capi/apimachinery';
import { isNotFound, type Client, type InformerCache, type Request } from '@capi/controller-runtime';
import type { ContractVersionedRef, ContractVersionResolver, ExternalObjectTracker } from '@capi/external';
import type { ContractVersion } from './contract';
import type { ExternalRead } from './phases';

/** A read that failed otherwise than NotFound. */
export interface FailedRead extends ExternalRead {
  error?: Error;
}

/**
 * Reads `ref` at the version its CRD's contract label names. The resolver only accepts CRDs with the
 * cluster.x-k8s.io/v1beta2 contract label, and upstream GetContractVersion prefers that label, so a resolved kind's
 * contract version is v1beta2.
 */
export async function readExternal(
  cache: InformerCache,
  resolver: ContractVersionResolver,
  tracker: ExternalObjectTracker,
  ref: ContractVersionedRef,
  namespace: string | undefined,
): Promise<FailedRead> {
  try {
    const objectRef = await resolver.objectRef(ref, namespace);
    tracker.watch(objectRef.apiVersion, objectRef.kind);
    const cached = await cache.tryGet<KubeObject>(objectRef, { readOnly: true });
    const object = cached && { ...cached, metadata: { ...cached.metadata } };
    const contractVersion: ContractVersion = 'v1beta2';
    return { object, notFound: !object, contractVersion };
  } catch (e) {
    if (isNotFound(e)) return { notFound: true };
    return { notFound: false, error: e as Error };
  }
}

/** Requests for the Clusters owning an object (upstream handler.EnqueueRequestForOwner with the Cluster type). */
export function clusterRequestsFor(obj: KubeObject): Request[] {
  return (obj.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === 'Cluster' && r.apiVersion.split('/')[0] === CLUSTER_GROUP)
    .map((r) => ({ namespace: obj.metadata.namespace, name: r.name }));
}

/**
 * The metadata patch giving `obj` the Cluster's ownerReference (controller only for a Cluster with a topology, so
 * other tools may control it otherwise) and the cluster-name label; undefined when both are there already.
 */
export function ownerRefAndLabelPatch(obj: KubeObject, cluster: Cluster): Record<string, unknown> | undefined {
  const desired: OwnerReference = {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    name: cluster.metadata.name!,
    uid: cluster.metadata.uid!,
    controller: !!cluster.spec?.topology,
  };
  const refs = obj.metadata.ownerReferences ?? [];
  const exact = refs.some(
    (r) =>
      r.apiVersion === desired.apiVersion &&
      r.kind === desired.kind &&
      r.name === desired.name &&
      r.uid === desired.uid &&
      (r.controller ?? false) === desired.controller,
  );
  if (exact && obj.metadata.labels?.[CLUSTER_NAME_LABEL] === cluster.metadata.name) return undefined;
  // controllerutil.SetOwnerReference: replace the reference to the same object (group, kind, name), else append.
  const same = (r: OwnerReference) =>
    r.kind === 'Cluster' && r.apiVersion.split('/')[0] === CLUSTER_GROUP && r.name === desired.name;
  const ownerReferences = refs.some(same) ? refs.map((r) => (same(r) ? { ...r, ...desired } : r)) : [...refs, desired];
  return {
    metadata: {
      resourceVersion: obj.metadata.resourceVersion,
      ownerReferences,
      labels: { [CLUSTER_NAME_LABEL]: cluster.metadata.name },
    },
  };
}

/** Applies ownerRefAndLabelPatch; the object in the scope takes the server's answer. */
export async function ensureOwnerRefAndLabel(
  client: Client,
  obj: KubeObject,
  cluster: Cluster,
  fieldManager: string,
): Promise<void> {
  const patch = ownerRefAndLabelPatch(obj, cluster);
  if (!patch) return;
  const updated = await client.patch<KubeObject>(
    { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name!, namespace: obj.metadata.namespace },
    'merge',
    patch,
    { fieldManager },
  );
  if (updated) Object.assign(obj, updated);
}
