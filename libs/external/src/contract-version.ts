// Contract-versioned references (apiGroup + kind + name) to provider objects: the version to read them at comes from
// the CRD's contract label `cluster.x-k8s.io/v1beta2` (upstream internal/contract/version.go GetGKMetadata,
// GetLatestContractAndAPIVersionFromContract).
import { CONTRACT_VERSION_LABEL_V1BETA2 } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client, ObjectRef } from '@capi/controller-runtime';

export interface ContractVersionedRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export class ContractVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractVersionError';
  }
}

interface CrdLike extends KubeObject {
  spec?: {
    group?: string;
    names?: { kind?: string };
    versions?: { name: string; served?: boolean; storage?: boolean }[];
  };
}

/**
 * The version to use from a CRD: the last listed version of its contract label (values joined by "_") that the CRD
 * serves. Pure; throws ContractVersionError when the CRD does not declare the v1beta2 contract.
 */
export function contractVersionOf(crd: CrdLike): string {
  const label = crd.metadata.labels?.[CONTRACT_VERSION_LABEL_V1BETA2];
  if (!label) {
    throw new ContractVersionError(
      `CRD ${crd.metadata.name} does not have the ${CONTRACT_VERSION_LABEL_V1BETA2} contract label: cannot find the version to use`,
    );
  }
  const served = new Set((crd.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name));
  const candidates = label.split('_').filter((v) => v && (served.size === 0 || served.has(v)));
  if (candidates.length === 0)
    throw new ContractVersionError(
      `CRD ${crd.metadata.name} serves none of the versions in its contract label "${label}"`,
    );
  return candidates[candidates.length - 1];
}

/** Resolves apiGroup+kind to "group/version" by reading CRDs (results are remembered per process). */
export class ContractVersionResolver {
  private readonly known = new Map<string, string>();

  constructor(private readonly client: Client) {}

  async apiVersionFor(apiGroup: string, kind: string): Promise<string> {
    const key = `${kind}.${apiGroup}`;
    const hit = this.known.get(key);
    if (hit) return hit;
    const crds = await this.client.list<CrdLike>('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
    const crd = crds.items.find((c) => c.spec?.group === apiGroup && c.spec?.names?.kind === kind);
    if (!crd) throw new ContractVersionError(`no CustomResourceDefinition found for ${key}`);
    const apiVersion = `${apiGroup}/${contractVersionOf(crd)}`;
    this.known.set(key, apiVersion);
    return apiVersion;
  }

  async objectRef(ref: ContractVersionedRef, namespace: string | undefined): Promise<ObjectRef> {
    return { apiVersion: await this.apiVersionFor(ref.apiGroup, ref.kind), kind: ref.kind, name: ref.name, namespace };
  }
}
