// The clusterctl provider releases built from deploy/ (docs/book/src/developer/providers/contracts/clusterctl.md
// upstream): which object goes to which provider, the variables a user sets, the metadata.yaml. Pure: the objects come
// in already rendered (`kubectl kustomize`), release-components.ts reads and writes the files.
//
// One manager runs upstream's core controllers and KCP, so the split is:
// - CoreProvider `cluster-api`: the manager (Namespace capi-system, Deployment, RBAC, Services, webhooks, the
//   cert-manager Issuer/Certificate) and the core CRDs. The manager's ClusterRole keeps the KCP rules: clusterctl
//   rewrites every ClusterRoleBinding subject to the namespace of the provider that ships it
//   (cmd/clusterctl/client/repository/components.go fixTargetNamespace), so a binding shipped by another provider could
//   not name the manager's ServiceAccount. The KCP webhooks stay in its webhook configurations for the same reason
//   (fixWebhookNamespaceReferences).
// - ControlPlaneProvider `kubeadm`: the KubeadmControlPlane CRD, in its own namespace as upstream's
//   (capi-kubeadm-control-plane-system), which holds only clusterctl's inventory: no Deployment (clusterctl only waits
//   for and scales Deployments it finds, cmd/clusterctl/client/cluster/installer.go waitManagerDeploymentsReady).
// - The KubeadmConfig CRDs and webhooks are left out: they belong to the bootstrap provider, upstream's CABPK
//   (`bootstrap-kubeadm`), or `bootstrap-in-memory` below.
// - InfrastructureProvider `in-memory` + BootstrapProvider `in-memory`: the in-memory provider's CRDs and RBAC
//   (deploy/inmemory) and the KubeadmConfig CRDs its bootstrap controller reconciles; both run inside the manager when
//   the core is installed with CAPI_EMBEDDED_PROVIDER=true.
import { parseAllDocuments, stringify } from 'yaml';

export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: any;
}

export type ProviderType = 'CoreProvider' | 'ControlPlaneProvider' | 'BootstrapProvider' | 'InfrastructureProvider';

export interface ProviderRelease {
  /** The provider's name in clusterctl's `providers:` list and on the command line. */
  name: string;
  type: ProviderType;
  /** clusterctl's manifest label (cluster.x-k8s.io/provider), also the local repository's folder name. */
  label: string;
  /** The components file name clusterctl's contract recommends for the type. */
  file: string;
  objects: Obj[];
}

export const PROVIDER_LABEL = 'cluster.x-k8s.io/provider';
const BOOTSTRAP_GROUP = 'bootstrap.cluster.x-k8s.io';
const CONTROL_PLANE_GROUP = 'controlplane.cluster.x-k8s.io';
/** The manager's namespace and ServiceAccount in deploy/ (core's target namespace by default). */
const MANAGER_NAMESPACE = 'capi-system';

/**
 * The manager flags a user sets through clusterctl variables, with the defaults upstream's core-components use for
 * its feature gates (RuntimeSDK and InPlaceUpdates off: set EXP_RUNTIME_SDK=true and EXP_IN_PLACE_UPDATES=true for
 * in-place updates; PriorityQueue and ReconcilerRateLimiting on).
 */
export const MANAGER_VARIABLE_ARGS: Record<string, string> = {
  '--feature-gates':
    '--feature-gates=RuntimeSDK=${EXP_RUNTIME_SDK:=false},InPlaceUpdates=${EXP_IN_PLACE_UPDATES:=false},PriorityQueue=${EXP_PRIORITY_QUEUE:=true},ReconcilerRateLimiting=${EXP_RECONCILER_RATE_LIMITING:=true}',
  '--embedded-provider': '--embedded-provider=${CAPI_EMBEDDED_PROVIDER:=false}',
};

export function parseObjects(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`invalid YAML: ${d.errors[0].message}`);
      return d.toJS() as Obj | null;
    })
    .filter((o): o is Obj => !!o)
    .map((o) => {
      if (typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string')
        throw new Error(
          `not a Kubernetes object (kind and metadata.name required): ${JSON.stringify(o).slice(0, 120)}`,
        );
      return o;
    });
}

export function componentsYaml(objects: Obj[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

/** metadata.yaml (cmd/clusterctl/api/v1alpha3/metadata_type.go): this release series implements contract v1beta2. */
export function metadataYaml(version: string): string {
  const m = /^v(\d+)\.(\d+)\.\d+/.exec(version);
  if (!m) throw new Error(`provider version ${JSON.stringify(version)} is not a semantic version vX.Y.Z`);
  return stringify({
    apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
    kind: 'Metadata',
    releaseSeries: [{ major: Number(m[1]), minor: Number(m[2]), contract: 'v1beta2' }],
  });
}

const crdGroup = (o: Obj) => (o.kind === 'CustomResourceDefinition' ? (o.spec?.group as string) : undefined);
const namespace = (name: string): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const clone = <T>(o: T): T => structuredClone(o);

function labelled(objects: Obj[], label: string): Obj[] {
  return objects.map((o) => ({
    ...o,
    metadata: { ...o.metadata, labels: { ...o.metadata.labels, [PROVIDER_LABEL]: label } },
  }));
}

/**
 * The image as a canonical reference, as clusterctl requires (its image overrides parse it,
 * cmd/clusterctl/internal/util/objs.go FixImages): what docker names an image built with `-t capi-manager:dev`.
 */
export function canonicalImage(image: string): string {
  const [first, ...rest] = image.split('/');
  const hasRegistry = rest.length > 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return image;
  return `docker.io/${rest.length ? image : `library/${image}`}`;
}

/** The manager container's args with the user-set flags replaced by (or added as) their variables. */
export function withVariableArgs(args: string[]): string[] {
  const flag = (a: string) => a.split('=')[0];
  const out = args.filter((a) => !(flag(a) in MANAGER_VARIABLE_ARGS));
  return [...out, ...Object.values(MANAGER_VARIABLE_ARGS)];
}

function coreObjects(deploy: Obj[]): Obj[] {
  return deploy
    .filter((o) => crdGroup(o) !== BOOTSTRAP_GROUP && crdGroup(o) !== CONTROL_PLANE_GROUP)
    .map((o) => {
      const c = clone(o);
      if (c.kind === 'MutatingWebhookConfiguration' || c.kind === 'ValidatingWebhookConfiguration') {
        // CABPK serves the KubeadmConfig webhooks; ours would call a second server for the same objects.
        c.webhooks = (c.webhooks ?? []).filter(
          (w: { rules?: { apiGroups?: string[] }[] }) =>
            !(w.rules ?? []).every((r) => (r.apiGroups ?? []).every((g) => g === BOOTSTRAP_GROUP)),
        );
      }
      if (c.kind === 'Deployment') {
        const manager = (c.spec?.template?.spec?.containers ?? []).find((k: { name: string }) => k.name === 'manager');
        if (!manager) throw new Error(`Deployment ${c.metadata.name} has no container named manager`);
        manager.args = withVariableArgs(manager.args ?? []);
        manager.image = canonicalImage(manager.image);
      }
      return c;
    });
}

/**
 * The in-memory provider's RBAC binds the manager's ServiceAccount, which lives in the core's namespace. clusterctl
 * would move a ServiceAccount subject into this provider's namespace (fixTargetNamespace), so it is bound by the user
 * name the API server authenticates that ServiceAccount as, which clusterctl leaves alone.
 */
function bindManagerByUserName(o: Obj): Obj {
  if (o.kind !== 'ClusterRoleBinding') return o;
  const c = clone(o);
  c.subjects = (c.subjects ?? []).map((s: { kind: string; name: string; namespace?: string }) =>
    s.kind === 'ServiceAccount'
      ? { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccount:${s.namespace}:${s.name}` }
      : s,
  );
  return c;
}

/** The four provider releases from `kubectl kustomize deploy` and `kubectl kustomize deploy/inmemory`. */
export function providerReleases(deploy: Obj[], inmemory: Obj[]): ProviderRelease[] {
  const crds = (group: string) => deploy.filter((o) => crdGroup(o) === group);
  if (!deploy.some((o) => o.kind === 'Namespace' && o.metadata.name === MANAGER_NAMESPACE))
    throw new Error(`deploy/ renders no Namespace ${MANAGER_NAMESPACE}`);
  for (const group of [CONTROL_PLANE_GROUP, BOOTSTRAP_GROUP])
    if (!crds(group).length) throw new Error(`deploy/ renders no CRD of ${group}`);
  const releases: Omit<ProviderRelease, 'objects'>[] = [
    { name: 'cluster-api', type: 'CoreProvider', label: 'cluster-api', file: 'core-components.yaml' },
    {
      name: 'kubeadm',
      type: 'ControlPlaneProvider',
      label: 'control-plane-kubeadm',
      file: 'control-plane-components.yaml',
    },
    {
      name: 'in-memory',
      type: 'BootstrapProvider',
      label: 'bootstrap-in-memory',
      file: 'bootstrap-components.yaml',
    },
    {
      name: 'in-memory',
      type: 'InfrastructureProvider',
      label: 'infrastructure-in-memory',
      file: 'infrastructure-components.yaml',
    },
  ];
  const objects: Obj[][] = [
    coreObjects(deploy),
    [namespace('capi-kubeadm-control-plane-system'), ...crds(CONTROL_PLANE_GROUP)],
    [namespace('capi-in-memory-bootstrap-system'), ...crds(BOOTSTRAP_GROUP)],
    [namespace('capi-in-memory-system'), ...inmemory.map(bindManagerByUserName)],
  ];
  return releases.map((r, i) => ({ ...r, objects: labelled(objects[i], r.label) }));
}
