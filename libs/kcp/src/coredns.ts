// CoreDNS upkeep decisions (pure; upstream controlplane/kubeadm/pkg/workload_cluster_coredns.go): which image the
// coredns Deployment should run, whether the change is allowed, and the Deployment/ConfigMap edits of the upgrade.
import { compareKubernetesVersions, parseKubernetesVersion, type KubeObject } from '@capi/apimachinery';
import { imageFromString } from './container-image';
import { COREDNS_VERSIONS, migrateCorefile } from './corefile-migration';

export const COREDNS = 'coredns';
export const COREFILE_KEY = 'Corefile';
export const COREFILE_BACKUP_KEY = 'Corefile-backup';
const COREDNS_VOLUME = 'config-volume';
const OLD_COREDNS_IMAGE_NAME = 'coredns';
const COREDNS_IMAGE_NAME = 'coredns/coredns';

type Obj = Record<string, any>;

/** Migrates a Corefile between CoreDNS versions (upstream's coreDNSMigrator; swappable in tests). */
export interface CoreDnsMigrator {
  migrate(fromVersion: string, toVersion: string, corefile: string, deprecations: boolean): string;
}

/** The ported part of github.com/coredns/corefile-migration (see corefile-migration.ts). */
export const corefileMigrator: CoreDnsMigrator = {
  migrate: (from, to, corefile) => migrateCorefile(from, to, corefile),
};

export interface CoreDnsInfo {
  corefile: string;
  deployment: KubeObject;
  fromImageTag: string;
  toImageTag: string;
  currentMajorMinorPatch: string;
  targetMajorMinorPatch: string;
  fromImage: string;
  toImage: string;
}

/** version.ParseTolerantImageTag: "_" stands for "+" in image tags. */
function parseImageTag(tag: string): { major: number; minor: number; patch: number; version: string } {
  const v = parseKubernetesVersion(tag.replace(/_/g, '+'));
  if (!v) throw new Error(`error parsing semver from ${JSON.stringify(tag)}`);
  return { major: v.major, minor: v.minor, patch: v.patch, version: v.version };
}
const majorMinorPatch = (v: { major: number; minor: number; patch: number }) => `${v.major}.${v.minor}.${v.patch}`;

/**
 * getCoreDNSInfo from the coredns ConfigMap and Deployment and the KCP's ClusterConfiguration: the current image and
 * the one to run (repository: DNS imageRepository, else the global one, else the current; tag: DNS imageTag, else the
 * current; registry.k8s.io / k8s.gcr.io "coredns" becomes "coredns/coredns" from 1.8.0).
 */
export function coreDnsInfo(configMap: KubeObject, deployment: KubeObject, clusterConfig: Obj): CoreDnsInfo {
  const corefile = (configMap.data as Record<string, string> | undefined)?.[COREFILE_KEY];
  if (corefile === undefined) throw new Error('unable to find the CoreDNS Corefile data');
  const container = ((deployment as Obj).spec?.template?.spec?.containers ?? []).find((c: Obj) => c?.name === COREDNS);
  if (!container) throw new Error(`failed to update coredns deployment: deployment spec has no "${COREDNS}" container`);
  const fromImage = String(container.image ?? '');
  let parsed;
  try {
    parsed = imageFromString(fromImage);
  } catch (e) {
    throw new Error(`unable to parse "${fromImage}" deployment image: ${(e as Error).message}`, { cause: e });
  }
  let toRepository = parsed.repository;
  if (clusterConfig.imageRepository) toRepository = String(clusterConfig.imageRepository).replace(/\/$/, '');
  if (clusterConfig.dns?.imageRepository) toRepository = String(clusterConfig.dns.imageRepository).replace(/\/$/, '');
  if (!parsed.tag)
    throw new Error(`failed to update coredns deployment: does not have a valid image tag: "${fromImage}"`);
  const current = parseImageTag(parsed.tag);
  const toImageTag = clusterConfig.dns?.imageTag ? String(clusterConfig.dns.imageTag) : parsed.tag;
  const target = parseImageTag(toImageTag);
  let toName = parsed.name;
  if (
    (toRepository === 'k8s.gcr.io' || toRepository === 'registry.k8s.io') &&
    toName === OLD_COREDNS_IMAGE_NAME &&
    compareKubernetesVersions(majorMinorPatch(target), '1.8.0') >= 0
  )
    toName = COREDNS_IMAGE_NAME;
  return {
    corefile,
    deployment,
    currentMajorMinorPatch: majorMinorPatch(current),
    targetMajorMinorPatch: majorMinorPatch(target),
    fromImageTag: parsed.tag,
    toImageTag,
    fromImage,
    toImage: `${toRepository}/${toName}:${toImageTag}`,
  };
}

/** validateCoreDNSImageTag: no downgrade, and the current version must be one the migration library knows. */
export function validateCoreDnsImageTag(fromTag: string, toTag: string): void {
  let from, to;
  try {
    from = parseImageTag(fromTag);
  } catch (e) {
    throw new Error(`failed to parse CoreDNS current version "${fromTag}": ${(e as Error).message}`);
  }
  try {
    to = parseImageTag(toTag);
  } catch (e) {
    throw new Error(`failed to parse CoreDNS target version "${toTag}": ${(e as Error).message}`);
  }
  // version.Compare WithoutPreReleases.
  if (compareKubernetesVersions(majorMinorPatch(from), majorMinorPatch(to)) > 0)
    throw new Error(`toVersion "${toTag}" must be greater than or equal to fromVersion "${fromTag}"`);
  if (!COREDNS_VERSIONS.includes(majorMinorPatch(from)))
    throw new Error(`fromVersion "${from.version}" is not a compatible coredns version`);
}

/** patchCoreDNSDeploymentVolume: the config-volume's coredns ConfigMap item `fromKey`/`toKey` becomes `toKey`. */
export function withCorefileVolumeKey(deployment: KubeObject, fromKey: string, toKey: string): KubeObject {
  const d = structuredClone(deployment) as Obj;
  for (const volume of d.spec?.template?.spec?.volumes ?? []) {
    if (volume?.name !== COREDNS_VOLUME || volume.configMap?.name !== COREDNS) continue;
    for (const item of volume.configMap.items ?? []) if (item.key === fromKey || item.key === toKey) item.key = toKey;
  }
  return d as KubeObject;
}

/** patchCoreDNSDeploymentImage. */
export function withCoreDnsImage(deployment: KubeObject, image: string): KubeObject {
  const d = structuredClone(deployment) as Obj;
  for (const c of d.spec?.template?.spec?.containers ?? []) if (c?.name === COREDNS) c.image = image;
  return d as KubeObject;
}
