// The fields of infrastructure cluster and control plane objects the Cluster controller reads, by contract version
// (upstream internal/contract/infrastructure_cluster.go and internal/contract/controlplane.go).
import type { KubeObject } from '@capi/apimachinery';

export type ContractVersion = 'v1beta1' | 'v1beta2';

/** A contract field is absent (upstream contract.ErrFieldNotFound). */
export class FieldNotFoundError extends Error {
  constructor(readonly path: string[]) {
    super(`path .${path.join('.')} not found`);
    this.name = 'FieldNotFoundError';
  }
}

export interface ApiEndpoint {
  host?: string;
  port?: number;
}

export interface FailureDomain {
  name: string;
  controlPlane?: boolean;
  attributes?: Record<string, string>;
}

/** The value at `path` (undefined when absent or below a non-map), as unstructured.NestedFieldNoCopy. */
export function nested(obj: KubeObject, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function getBool(obj: KubeObject, path: string[]): boolean {
  const v = nested(obj, path);
  if (v === undefined || v === null) throw new FieldNotFoundError(path);
  if (typeof v !== 'boolean') throw new Error(`failed to get .${path.join('.')} from object: not a bool`);
  return v;
}

/** InfrastructureCluster Provisioned: status.initialization.provisioned (v1beta1: status.ready). */
export const infraProvisionedPath = (cv: ContractVersion) =>
  cv === 'v1beta1' ? ['status', 'ready'] : ['status', 'initialization', 'provisioned'];

/** ControlPlane Initialized: status.initialization.controlPlaneInitialized (v1beta1: status.initialized). */
export const controlPlaneInitializedPath = (cv: ContractVersion) =>
  cv === 'v1beta1' ? ['status', 'initialized'] : ['status', 'initialization', 'controlPlaneInitialized'];

export const CONTROL_PLANE_ENDPOINT_PATH = ['spec', 'controlPlaneEndpoint'];
export const FAILURE_DOMAINS_PATH = ['status', 'failureDomains'];

/** The bool at a contract path; false when absent (upstream callers treat ErrFieldNotFound as false). */
export function readFlag(obj: KubeObject, path: string[]): boolean {
  try {
    return getBool(obj, path);
  } catch (e) {
    if (e instanceof FieldNotFoundError) return false;
    throw e;
  }
}

/** spec.controlPlaneEndpoint (upstream ControlPlaneEndpoint.Get); FieldNotFoundError when absent. */
export function readControlPlaneEndpoint(obj: KubeObject): ApiEndpoint {
  const v = nested(obj, CONTROL_PLANE_ENDPOINT_PATH);
  if (v === undefined || v === null) throw new FieldNotFoundError(CONTROL_PLANE_ENDPOINT_PATH);
  if (!isMap(v)) throw new Error(`failed to get .${CONTROL_PLANE_ENDPOINT_PATH.join('.')} from object: not a map`);
  const out: ApiEndpoint = {};
  if (v.host !== undefined) out.host = String(v.host);
  if (v.port !== undefined) out.port = Number(v.port);
  return out;
}

const byName = (a: FailureDomain, b: FailureDomain) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * status.failureDomains, sorted by name (upstream FailureDomains.Get): a list in v1beta2, a map by name in v1beta1;
 * the wrong shape for the contract is an error, an absent field FieldNotFoundError.
 */
export function readFailureDomains(obj: KubeObject, cv: ContractVersion): FailureDomain[] {
  const v = nested(obj, FAILURE_DOMAINS_PATH);
  if (v === undefined || v === null) throw new FieldNotFoundError(FAILURE_DOMAINS_PATH);
  const where = `.${FAILURE_DOMAINS_PATH.join('.')}`;
  if (cv === 'v1beta1') {
    if (!isMap(v)) throw new Error(`failed to get ${where} from object: expected a map (contract v1beta1)`);
    return Object.keys(v)
      .sort()
      .map((name) => {
        const d = (isMap(v[name]) ? v[name] : {}) as { controlPlane?: boolean; attributes?: Record<string, string> };
        return {
          name,
          controlPlane: d.controlPlane === true,
          ...(d.attributes ? { attributes: d.attributes } : {}),
        };
      });
  }
  if (!Array.isArray(v)) throw new Error(`failed to get ${where} from object: expected a list (contract v1beta2)`);
  return v
    .map((d) => {
      if (!isMap(d) || typeof d.name !== 'string')
        throw new Error(`failed to get ${where} from object: an item has no name`);
      return {
        name: d.name,
        controlPlane: d.controlPlane === true,
        ...(isMap(d.attributes) ? { attributes: d.attributes as Record<string, string> } : {}),
      };
    })
    .sort(byName);
}

/** upstream APIEndpoint.IsValid: a host and a port. */
export const isValidEndpoint = (e: ApiEndpoint | undefined): e is Required<ApiEndpoint> => !!e?.host && !!e.port;
