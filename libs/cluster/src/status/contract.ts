// The control plane fields the Cluster's status reads, at the paths of upstream internal/contract/controlplane.go:
// v1beta1 providers report status.initialized, status.updatedReplicas and status.unavailableReplicas, v1beta2 ones
// status.initialization.controlPlaneInitialized, status.upToDateReplicas and status.availableReplicas.
import { parseKubernetesVersion, type KubeObject } from '@capi/apimachinery';
import { compareKubernetesVersions } from '@capi/apimachinery';
import { controlPlaneInitializedPath, nested } from '../contract';

/** A field that is absent (upstream ErrFieldNotFound) is `notFound`; one of the wrong type is an `error`. */
export type FieldResult<T> = { value: T } | { notFound: true } | { error: string };

const dotted = (path: readonly string[]) => `.${path.join('.')}`;

/** unstructured.NestedInt64 (an int32 read truncates as upstream's Int32.Get). */
export function getInt(obj: KubeObject, path: readonly string[]): FieldResult<number> {
  const v = nested(obj, path);
  if (v === undefined) return { notFound: true };
  if (typeof v !== 'number' || !Number.isInteger(v)) return { error: `failed to get ${dotted(path)} from object` };
  return { value: v };
}

/** unstructured.NestedBool. */
export function getBool(obj: KubeObject, path: readonly string[]): FieldResult<boolean> {
  const v = nested(obj, path);
  if (v === undefined) return { notFound: true };
  if (typeof v !== 'boolean') return { error: `failed to get ${dotted(path)} from object` };
  return { value: v };
}

export interface StatusVersion {
  version: string;
  replicas?: number;
}

/** Upstream StatusVersions.Get: versions in ascending order, none negative. */
export function getStatusVersions(obj: KubeObject): FieldResult<StatusVersion[]> {
  const path = ['status', 'versions'];
  const v = nested(obj, path);
  if (v === undefined) return { notFound: true };
  if (!Array.isArray(v)) return { error: `failed to get ${dotted(path)} from object` };
  const out: StatusVersion[] = [];
  let previous: string | undefined;
  for (const [i, item] of v.entries()) {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as { version?: unknown; replicas?: unknown };
    const version = typeof entry.version === 'string' ? entry.version : '';
    const replicas = typeof entry.replicas === 'number' ? entry.replicas : 0;
    if (!parseKubernetesVersion(version)) return { error: `failed to parse ${dotted(path)}[${i}].version from object` };
    if (previous !== undefined && compareKubernetesVersions(version, previous) < 0) {
      return { error: `version "${previous}" and "${version}" are in the wrong order` };
    }
    if (replicas < 0) return { error: `${dotted(path)}[${i}].replicas must not be negative` };
    out.push({ version, replicas });
    previous = version;
  }
  return { value: out };
}

const v1beta1 = (contractVersion: string) => contractVersion === 'v1beta1';

export const controlPlaneContract = {
  replicas: ['spec', 'replicas'],
  statusReplicas: ['status', 'replicas'],
  readyReplicas: ['status', 'readyReplicas'],
  availableReplicas: ['status', 'availableReplicas'],
  v1beta1UnavailableReplicas: ['status', 'unavailableReplicas'],
  upToDateReplicas: (contractVersion: string) =>
    v1beta1(contractVersion) ? ['status', 'updatedReplicas'] : ['status', 'upToDateReplicas'],
  initialized: (contractVersion: string) =>
    controlPlaneInitializedPath(v1beta1(contractVersion) ? 'v1beta1' : 'v1beta2'),
  /** The condition type mirrored as the Cluster's ControlPlaneAvailable. */
  availableConditionType: 'Available',
} as const;

/** The condition type of an InfraCluster mirrored as the Cluster's InfrastructureReady (contract/infrastructure_cluster.go). */
export const INFRA_CLUSTER_READY_CONDITION_TYPE = 'Ready';
