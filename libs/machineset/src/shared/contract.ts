// Contract-versioned references (apiGroup + kind + name): the version to read a provider object at comes from its
// CRD's `cluster.x-k8s.io/v1beta2` contract label. Kept small and local until a shared lib exports one.
import { CONTRACT_VERSION_LABEL_V1BETA2 } from '@capi/api';
import type { Client, KubeObject, ObjectRef } from '@capi/controller-runtime';

export interface ContractRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export class ContractRefError extends Error {
  constructor(
    message: string,
    readonly reason = 'InvalidTemplateReference',
  ) {
    super(message);
    this.name = 'ContractRefError';
  }
}

interface CrdLike extends KubeObject {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; served?: boolean }[] };
}

/** The last served version listed in the CRD's contract label (values joined by "_"). */
export function contractVersionOf(crd: CrdLike): string {
  const label = crd.metadata.labels?.[CONTRACT_VERSION_LABEL_V1BETA2];
  if (!label) throw new ContractRefError(`CRD ${crd.metadata.name} has no ${CONTRACT_VERSION_LABEL_V1BETA2} contract label`);
  const served = new Set((crd.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name));
  const candidates = label.split('_').filter((v) => v && (served.size === 0 || served.has(v)));
  if (candidates.length === 0) throw new ContractRefError(`CRD ${crd.metadata.name} serves none of the versions in its contract label "${label}"`);
  return candidates[candidates.length - 1];
}

/** Resolves apiGroup+kind to "group/version" by reading CRDs (remembered per instance). */
export class ContractResolver {
  private readonly known = new Map<string, string>();

  constructor(private readonly client: Client) {}

  async apiVersionFor(apiGroup: string, kind: string): Promise<string> {
    const key = `${kind}.${apiGroup}`;
    const hit = this.known.get(key);
    if (hit) return hit;
    const crds = await this.client.list<CrdLike>('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
    const crd = crds.items.find((c) => c.spec?.group === apiGroup && c.spec?.names?.kind === kind);
    if (!crd) throw new ContractRefError(`no CustomResourceDefinition found for ${key}`, 'TemplateNotFound');
    const apiVersion = `${apiGroup}/${contractVersionOf(crd)}`;
    this.known.set(key, apiVersion);
    return apiVersion;
  }

  async objectRef(ref: ContractRef, namespace: string | undefined): Promise<ObjectRef> {
    return { apiVersion: await this.apiVersionFor(ref.apiGroup, ref.kind), kind: ref.kind, name: ref.name, namespace };
  }

  /** Reads the referenced object; undefined when it does not exist. */
  async tryGet(ref: ContractRef, namespace: string | undefined): Promise<KubeObject | undefined> {
    return this.client.tryGet(await this.objectRef(ref, namespace));
  }
}
