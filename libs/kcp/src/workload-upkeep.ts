// What KCP keeps in line in the workload cluster's kubeadm-managed objects (pure): the kubeadm-config ConfigMap's
// ClusterConfiguration, the kube-proxy image and the ClusterRoleBindings newer kubeadm versions expect (upstream
// controlplane/kubeadm/pkg/workload_cluster.go, workload_cluster_etcd.go, workload_cluster_rbac.go and
// desiredstate/desired_state.go DefaultFeatureGates).
import {
  marshalClusterConfigurationForVersion,
  unmarshalClusterConfiguration,
  type ClusterConfiguration,
  type KubeadmControlPlane,
} from '@capi/api';
import { canonicalJson, compareKubernetesVersions, parseKubernetesVersion, type KubeObject } from '@capi/apimachinery';
import { modifyImageRepository, modifyImageTag } from './container-image';
import { defaultFeatureGates, withoutPreRelease } from './kubeadm-feature-gates';

export const KUBEADM_CONFIG_MAP = 'kubeadm-config';
export const CLUSTER_CONFIGURATION_KEY = 'ClusterConfiguration';
export const KUBE_PROXY = 'kube-proxy';
/** Annotations on the KCP turning the kube-proxy / CoreDNS upkeep off (upstream controlplanev1). */
export const SKIP_KUBE_PROXY_ANNOTATION = 'controlplane.cluster.x-k8s.io/skip-kube-proxy';
export const SKIP_COREDNS_ANNOTATION = 'controlplane.cluster.x-k8s.io/skip-coredns';

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Go zero values (empty strings/maps/lists, 0) dropped everywhere: what reflect.DeepEqual sees as equal. `false` is
 * kept: in a map (featureGates) it differs from absent.
 */
export function pruneZero(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(pruneZero) : undefined;
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const p = pruneZero(x);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v === '' || v === 0 || v === null ? undefined : v;
}

/** ClusterConfiguration.IsDefined: anything but the zero value. */
export const isDefined = (v: unknown): boolean => pruneZero(v) !== undefined;

export const kcpClusterConfiguration = (kcp: KubeadmControlPlane): Obj =>
  isObj(kcp.spec.kubeadmConfigSpec?.clusterConfiguration) ? kcp.spec.kubeadmConfigSpec!.clusterConfiguration : {};

/** semver.ParseTolerant of the KCP version, as upstream errors when it does not parse. */
export function parsedKcpVersion(kcp: KubeadmControlPlane): string {
  const v = parseKubernetesVersion(kcp.spec.version ?? '');
  if (!v) throw new Error(`failed to parse Kubernetes version "${kcp.spec.version}"`);
  // semver.Version.String() keeps build metadata ("1.16.3+build1").
  return v.build.length ? `${v.version}+${v.build.join('.')}` : v.version;
}

export type ClusterConfigurationMutator = (c: Obj) => void;

const setOrDelete = (c: Obj, key: string, value: unknown) => {
  if (isDefined(value)) c[key] = structuredClone(value);
  else delete c[key];
};

export const updateImageRepository =
  (imageRepository: string | undefined): ClusterConfigurationMutator =>
  (c) => {
    if (imageRepository) c.imageRepository = imageRepository;
  };

/** Even without feature gates the KCP's (defaulted) value replaces the ConfigMap's. */
export const updateFeatureGates =
  (kcpConfig: Obj, version: string): ClusterConfigurationMutator =>
  (c) =>
    setOrDelete(c, 'featureGates', defaultFeatureGates(kcpConfig.featureGates, version));

/** UpdateAPIServer/ControllerManager/Scheduler/CertificateValidityPeriodDays/EncryptionAlgorithm: the KCP's value. */
export const replaceField =
  (key: string, value: unknown): ClusterConfigurationMutator =>
  (c) =>
    setOrDelete(c, key, value);

/** Etcd local and external are mutually exclusive and cannot be switched once set. */
export const updateEtcd =
  (kcpConfig: Obj, managed: boolean): ClusterConfigurationMutator =>
  (c) => {
    const etcd: Obj = isObj(c.etcd) ? c.etcd : {};
    setOrDelete(etcd, managed ? 'local' : 'external', kcpConfig.etcd?.[managed ? 'local' : 'external']);
    delete etcd[managed ? 'external' : 'local'];
    c.etcd = etcd;
  };

/** DNS image repository and tag (UpdateCoreDNS's updateCoreDNSImageInfoInKubeadmConfigMap). */
export const updateDnsImage =
  (dns: Obj | undefined): ClusterConfigurationMutator =>
  (c) => {
    const current: Obj = isObj(c.dns) ? c.dns : {};
    setOrDelete(current, 'imageRepository', dns?.imageRepository);
    setOrDelete(current, 'imageTag', dns?.imageTag);
    c.dns = current;
  };

/**
 * The mutators of update.go updateControlPlane: only when the KCP defines a ClusterConfiguration (otherwise only
 * the Kubernetes version is brought up to date).
 */
export function clusterConfigurationMutators(
  kcp: KubeadmControlPlane,
  version: string,
  etcdManaged: boolean,
): ClusterConfigurationMutator[] {
  const kcpConfig = kcpClusterConfiguration(kcp);
  if (!isDefined(kcpConfig)) return [];
  return [
    updateImageRepository(kcpConfig.imageRepository),
    updateFeatureGates(kcpConfig, version),
    replaceField('apiServer', kcpConfig.apiServer),
    replaceField('controllerManager', kcpConfig.controllerManager),
    replaceField('scheduler', kcpConfig.scheduler),
    replaceField('certificateValidityPeriodDays', kcpConfig.certificateValidityPeriodDays),
    replaceField('encryptionAlgorithm', kcpConfig.encryptionAlgorithm),
    updateEtcd(kcpConfig, etcdManaged),
  ];
}

/**
 * UpdateClusterConfiguration's decision: the ConfigMap's ClusterConfiguration after the mutators and with
 * kubernetesVersion v<version>, written for the kubeadm API of `version`; undefined when nothing changes.
 */
export function updatedClusterConfiguration(
  configMap: KubeObject,
  version: string,
  mutators: ClusterConfigurationMutator[],
): string | undefined {
  const current = (configMap.data as Record<string, string> | undefined)?.[CLUSTER_CONFIGURATION_KEY];
  if (current === undefined)
    throw new Error(`unable to find "${CLUSTER_CONFIGURATION_KEY}" in the kubeadm-config ConfigMap`);
  let parsed: ReturnType<typeof unmarshalClusterConfiguration>;
  try {
    parsed = unmarshalClusterConfiguration(current);
  } catch (e) {
    throw new Error(
      `unable to decode "${CLUSTER_CONFIGURATION_KEY}" in the kubeadm-config ConfigMap's from YAML: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const updated: ClusterConfiguration = structuredClone(parsed.config);
  for (const m of mutators) m(updated);
  const kubernetesVersion = `v${version}`;
  if (
    canonicalJson(pruneZero(updated) ?? {}) === canonicalJson(pruneZero(parsed.config) ?? {}) &&
    parsed.data.kubernetesVersion === kubernetesVersion
  )
    return undefined;
  return marshalClusterConfigurationForVersion(updated, version, { ...parsed.data, kubernetesVersion });
}

/** The kube-proxy container of the DaemonSet (by name). */
export const kubeProxyContainer = (ds: KubeObject): Obj | undefined =>
  ((ds as Obj).spec?.template?.spec?.containers ?? []).find((c: Obj) => c?.name === KUBE_PROXY);

/**
 * UpdateKubeProxyImageInfo's decision: the image the kube-proxy container should run (the KCP version as tag, the
 * KCP's imageRepository when set), undefined when it already does or there is no such container. Bad images throw.
 */
export function desiredKubeProxyImage(kcp: KubeadmControlPlane, ds: KubeObject): string | undefined {
  const container = kubeProxyContainer(ds);
  if (!container) return undefined;
  const current = String(container.image ?? '');
  let image = modifyImageTag(current, kcp.spec.version ?? '');
  const repository = kcpClusterConfiguration(kcp).imageRepository;
  if (repository) image = modifyImageRepository(image, repository);
  return image === current ? undefined : image;
}

export const KUBELET_API_ADMIN_CLUSTER_ROLE_BINDING = 'kubeadm:apiserver-kubelet-client';

/**
 * EnsureKubeadmPermissions: the objects kubeadm upgrade would create for `version` (created when missing, never
 * updated). kubeadm 1.37 added the kubelet API ClusterRoleBinding; below 1.38 (pre-releases count as the release)
 * KCP creates it, also for versions older than 1.37 in case the change is backported.
 */
export function kubeadmPermissions(version: string): KubeObject[] {
  if (compareKubernetesVersions(withoutPreRelease(version), '1.38.0') >= 0) return [];
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: KUBELET_API_ADMIN_CLUSTER_ROLE_BINDING },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
      subjects: [{ kind: 'User', name: 'kube-apiserver-kubelet-client' }],
    } as KubeObject,
  ];
}
