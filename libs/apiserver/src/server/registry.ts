import type { OpenApiSchema } from './engines';
import { engines } from './engines';

import { reviewResources } from './reviews';

/** Everything the server knows about one REST resource (one group/version/kind). */

export interface ResourceInfo {
  group: string; // "" for core
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  statusSubresource: boolean;
  /** The CRD's `subresources.scale`: where the autoscaling/v1 Scale's fields live in the object. */
  scale?: ScalePaths;
  /** Versions of the same group/resource this one is stored with (only one served version per CRD here). */
  schema: OpenApiSchema | undefined;
  verbs: string[];
  categories: string[];
  printerColumns: {
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    priority?: number;
    format?: string;
  }[];
  /** True for CRD-defined resources (strategic merge patch is rejected for them). */
  custom: boolean;
  /** Connect subresources (pods/portforward): served outside the object store, listed by discovery. */
  connect?: { subresource: string; kind: string; verbs: string[]; group?: string; version?: string }[];
  /** Names validated as path segments (kube's RBAC kinds), not as DNS-1123 subdomains. */
  pathSegmentNames?: boolean;
  /** Storage shared with another resource (events.k8s.io Events are core Events). */
  storedAs?: { group: string; plural: string };
  /** A create-only review answered without storage (./reviews.ts). */
  review?: boolean;
}

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** "<group>/<plural>": the storage prefix shared by all versions of a resource. */
export function storageResource(r: {
  group: string;
  plural: string;
  storedAs?: { group: string; plural: string };
}): string {
  const s = r.storedAs ?? r;
  return `${s.group}/${s.plural}`;
}

function builtin(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  extra: Partial<ResourceInfo> = {},
): ResourceInfo {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    namespaced,
    statusSubresource: false,
    schema: engines.builtinSchema(group ? `${group}/${version}` : version, kind),
    verbs: ALL_VERBS,
    categories: [],
    printerColumns: [],
    custom: false,
    ...extra,
  };
}

export const CRD_RESOURCE = { group: 'apiextensions.k8s.io', plural: 'customresourcedefinitions' };

export function builtinResources(): ResourceInfo[] {
  return [
    builtin('', 'v1', 'Namespace', 'namespaces', false, { shortNames: ['ns'], statusSubresource: true }),
    builtin('', 'v1', 'Secret', 'secrets', true),
    builtin('', 'v1', 'ConfigMap', 'configmaps', true, { shortNames: ['cm'] }),
    builtin('', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
    // What `kubectl apply -k deploy/rbac` creates; no token controller issues tokens for it here.
    builtin('', 'v1', 'ServiceAccount', 'serviceaccounts', true, { shortNames: ['sa'] }),
    builtin('', 'v1', 'Node', 'nodes', false, { shortNames: ['no'], statusSubresource: true }),
    builtin('', 'v1', 'Pod', 'pods', true, {
      shortNames: ['po'],
      statusSubresource: true,
      categories: ['all'],
      connect: [
        // pods/eviction answers a policy/v1 Eviction (pkg/registry/core/pod/storage/eviction.go).
        { subresource: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
        { subresource: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      ],
    }),
    builtin('', 'v1', 'Service', 'services', true, {
      shortNames: ['svc'],
      categories: ['all'],
      statusSubresource: true,
    }),
    builtin('', 'v1', 'PersistentVolume', 'persistentvolumes', false, { shortNames: ['pv'], statusSubresource: true }),
    builtin('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, {
      shortNames: ['pvc'],
      statusSubresource: true,
    }),
    // What drain and volume detach read (kube's policy/v1 and storage.k8s.io/v1 registries).
    builtin('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, {
      shortNames: ['pdb'],
      statusSubresource: true,
    }),
    builtin('storage.k8s.io', 'v1', 'VolumeAttachment', 'volumeattachments', false, { statusSubresource: true }),
    builtin('events.k8s.io', 'v1', 'Event', 'events', true, {
      shortNames: ['ev'],
      storedAs: { group: '', plural: 'events' },
    }),
    builtin('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
    builtin('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', false, {
      shortNames: ['crd', 'crds'],
      statusSubresource: true,
    }),
    // kubeadm's kube-system workloads and RBAC (kube's apps/v1 and rbac.authorization.k8s.io/v1 registries).
    builtin('apps', 'v1', 'Deployment', 'deployments', true, {
      shortNames: ['deploy'],
      categories: ['all'],
      statusSubresource: true,
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.spec.selector',
      },
    }),
    builtin('apps', 'v1', 'DaemonSet', 'daemonsets', true, {
      shortNames: ['ds'],
      categories: ['all'],
      statusSubresource: true,
    }),
    builtin('apps', 'v1', 'ReplicaSet', 'replicasets', true, {
      shortNames: ['rs'],
      categories: ['all'],
      statusSubresource: true,
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.spec.selector',
      },
    }),
    builtin('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true, { pathSegmentNames: true }),
    builtin('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true, { pathSegmentNames: true }),
    builtin('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false, { pathSegmentNames: true }),
    builtin('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false, {
      pathSegmentNames: true,
    }),
    // What kube-apiserver's admission webhooks are configured with (src/admission).
    builtin(
      'admissionregistration.k8s.io',
      'v1',
      'MutatingWebhookConfiguration',
      'mutatingwebhookconfigurations',
      false,
    ),
    builtin(
      'admissionregistration.k8s.io',
      'v1',
      'ValidatingWebhookConfiguration',
      'validatingwebhookconfigurations',
      false,
    ),
    ...reviewResources(),
  ];
}

/** Resources served from a CRD object: one per served version. */
export function resourcesFromCrd(crd: any): ResourceInfo[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  return ((spec.versions ?? []) as any[])
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural,
      singular: names.singular ?? String(names.kind).toLowerCase(),
      shortNames: names.shortNames ?? [],
      namespaced: spec.scope !== 'Cluster',
      statusSubresource: !!v.subresources?.status,
      ...(v.subresources?.scale ? { scale: v.subresources.scale } : {}),
      schema: v.schema?.openAPIV3Schema,
      verbs: ALL_VERBS,
      categories: names.categories ?? [],
      printerColumns: v.additionalPrinterColumns ?? [],
      custom: true,
    }));
}

/** Looks resources up by REST path segments or by apiVersion/kind. */
export class Registry {
  private byPath = new Map<string, ResourceInfo>(); // "<group>/<version>/<plural>"
  private crdResources = new Map<string, ResourceInfo[]>(); // CRD name → resources

  constructor() {
    for (const r of builtinResources()) this.add(r);
  }

  private add(r: ResourceInfo): void {
    this.byPath.set(`${r.group}/${r.version}/${r.plural}`, r);
  }

  /** (Re)registers the resources of a CRD object. */
  setCrd(crd: any): void {
    this.removeCrd(crd.metadata.name);
    const rs = resourcesFromCrd(crd);
    this.crdResources.set(crd.metadata.name, rs);
    rs.forEach((r) => this.add(r));
  }

  removeCrd(name: string): ResourceInfo[] {
    const old = this.crdResources.get(name) ?? [];
    for (const r of old) this.byPath.delete(`${r.group}/${r.version}/${r.plural}`);
    this.crdResources.delete(name);
    return old;
  }

  lookup(group: string, version: string, plural: string): ResourceInfo | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  byKind(apiVersion: string, kind: string): ResourceInfo | undefined {
    for (const r of this.byPath.values()) if (apiVersionOf(r) === apiVersion && r.kind === kind) return r;
    return undefined;
  }

  all(): ResourceInfo[] {
    return [...this.byPath.values()];
  }

  /** Group → versions → resources, in registration order. */
  groups(): Map<string, Map<string, ResourceInfo[]>> {
    const out = new Map<string, Map<string, ResourceInfo[]>>();
    for (const r of this.byPath.values()) {
      const g = out.get(r.group) ?? new Map<string, ResourceInfo[]>();
      out.set(r.group, g);
      const v = g.get(r.version) ?? [];
      g.set(r.version, v);
      v.push(r);
    }
    return out;
  }
}
