// KCP's upkeep of the workload cluster's kubeadm-managed objects, through the workload cluster's API client (upstream
// controlplane/kubeadm/pkg/workload_cluster.go UpdateClusterConfiguration / UpdateKubeProxyImageInfo,
// workload_cluster_coredns.go UpdateCoreDNS, workload_cluster_rbac.go EnsureKubeadmPermissions); the decisions are
// in workload-upkeep.ts and coredns.ts. Called by the reconciler: before a rollout (update.go updateControlPlane) and
// on a stable control plane (controller.go reconcile, after scaling).
import type { Cluster, KubeadmControlPlane } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { isAlreadyExists, isConflict, isNotFound, type Client } from '@capi/controller-runtime';
import {
  COREDNS,
  COREFILE_BACKUP_KEY,
  COREFILE_KEY,
  coreDnsInfo,
  corefileMigrator,
  validateCoreDnsImageTag,
  withCorefileVolumeKey,
  withCoreDnsImage,
  type CoreDnsInfo,
  type CoreDnsMigrator,
} from './coredns';
import {
  clusterConfigurationMutators,
  desiredKubeProxyImage,
  isDefined,
  kcpClusterConfiguration,
  KUBE_PROXY,
  KUBEADM_CONFIG_MAP,
  kubeadmPermissions,
  parsedKcpVersion,
  SKIP_COREDNS_ANNOTATION,
  SKIP_KUBE_PROXY_ANNOTATION,
  updateDnsImage,
  updatedClusterConfiguration,
  type ClusterConfigurationMutator,
} from './workload-upkeep';
import type { WorkloadClusterProvider } from './workload-cluster';

const KUBE_SYSTEM = 'kube-system';
const ref = (apiVersion: string, kind: string, name: string, namespace?: string) => ({
  apiVersion,
  kind,
  name,
  ...(namespace ? { namespace } : {}),
});
const configMapRef = (name: string) => ref('v1', 'ConfigMap', name, KUBE_SYSTEM);
const wrap = (message: string, e: unknown) => new Error(`${message}: ${(e as Error).message}`, { cause: e });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** client-go retry.DefaultBackoff: 4 steps, 10 ms × 5 each. */
const CONFLICT_BACKOFF_MS = [10, 50, 250, 1250];

export class WorkloadUpkeep {
  constructor(
    private readonly client: Client,
    private readonly migrator: CoreDnsMigrator = corefileMigrator,
  ) {}

  /** UpdateClusterConfiguration: mutators + kubernetesVersion on the kubeadm-config ConfigMap, retried on conflict. */
  async updateClusterConfiguration(version: string, mutators: ClusterConfigurationMutator[] = []): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let configMap: KubeObject;
      try {
        configMap = await this.client.get(configMapRef(KUBEADM_CONFIG_MAP));
      } catch (e) {
        throw wrap(
          `failed to get kubeadmConfigMap: error getting ${KUBE_SYSTEM}/${KUBEADM_CONFIG_MAP} configmap from target cluster`,
          e,
        );
      }
      const data = updatedClusterConfiguration(configMap, version, mutators);
      if (data === undefined) return;
      try {
        await this.client.update({ ...configMap, data: { ...(configMap.data as object), ClusterConfiguration: data } });
        return;
      } catch (e) {
        if (isConflict(e) && attempt < CONFLICT_BACKOFF_MS.length) {
          await sleep(CONFLICT_BACKOFF_MS[attempt]);
          continue;
        }
        throw wrap('failed to upgrade cluster configuration in the kubeadmConfigMap', e);
      }
    }
  }

  /** update.go: the kubeadm-config ConfigMap brought to the KCP's spec before rolling Machines out. */
  async updateClusterConfigurationForRollout(kcp: KubeadmControlPlane, etcdManaged: boolean): Promise<void> {
    const version = parsedKcpVersion(kcp);
    await this.updateClusterConfiguration(version, clusterConfigurationMutators(kcp, version, etcdManaged));
  }

  /** EnsureKubeadmPermissions: creates what is missing, leaves what exists. */
  async ensureKubeadmPermissions(version: string): Promise<void> {
    for (const obj of kubeadmPermissions(version)) {
      const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
      let existing;
      try {
        existing = await this.client.tryGet({ ...ref(obj.apiVersion, obj.kind, obj.metadata.name!) });
      } catch (e) {
        throw wrap(`failed to determine if resource ${key} already exists`, e);
      }
      if (existing) continue;
      try {
        await this.client.create(obj);
      } catch (e) {
        if (!isAlreadyExists(e)) throw wrap(`unable to create resource ${key} on workload cluster`, e);
      }
    }
  }

  /** UpdateKubeProxyImageInfo: the kube-proxy DaemonSet runs the KCP's version (no DaemonSet: nothing to do). */
  async updateKubeProxyImageInfo(kcp: KubeadmControlPlane): Promise<void> {
    if (SKIP_KUBE_PROXY_ANNOTATION in (kcp.metadata.annotations ?? {})) return;
    let ds: KubeObject | undefined;
    try {
      ds = await this.client.tryGet(ref('apps/v1', 'DaemonSet', KUBE_PROXY, KUBE_SYSTEM));
    } catch (e) {
      throw wrap(`failed to determine if ${KUBE_PROXY} daemonset already exists`, e);
    }
    if (!ds) return;
    const image = desiredKubeProxyImage(kcp, ds);
    if (!image) return;
    await this.client.patch(ref('apps/v1', 'DaemonSet', KUBE_PROXY, KUBE_SYSTEM), 'merge', {
      spec: {
        template: { spec: { containers: withImage((ds as any).spec.template.spec.containers, KUBE_PROXY, image) } },
      },
    });
  }

  /** UpdateCoreDNS: image in the kubeadm-config ConfigMap, Corefile migrated (with a backup), Deployment image. */
  async updateCoreDNS(kcp: KubeadmControlPlane): Promise<void> {
    if (SKIP_COREDNS_ANNOTATION in (kcp.metadata.annotations ?? {})) return;
    const clusterConfig = kcpClusterConfiguration(kcp);
    if (!isDefined(clusterConfig)) return;
    const info = await this.coreDnsInfo(clusterConfig);
    // A missing ConfigMap or Deployment: CoreDNS is not managed this way here.
    if (!info || info.fromImage === info.toImage) return;
    try {
      validateCoreDnsImageTag(info.fromImageTag, info.toImageTag);
    } catch (e) {
      throw wrap('failed to validate CoreDNS', e);
    }
    const version = parsedKcpVersion(kcp);
    await this.updateClusterConfiguration(version, [updateDnsImage(clusterConfig.dns)]);
    await this.updateCorefile(info);
    try {
      const deployment = withCorefileVolumeKey(
        withCoreDnsImage(info.deployment, info.toImage),
        COREFILE_BACKUP_KEY,
        COREFILE_KEY,
      );
      await this.patchDeployment(info.deployment, deployment);
    } catch (e) {
      throw wrap('unable to update coredns deployment', e);
    }
  }

  private async coreDnsInfo(clusterConfig: Record<string, any>): Promise<CoreDnsInfo | undefined> {
    const key = `${KUBE_SYSTEM}/${COREDNS}`;
    let configMap: KubeObject, deployment: KubeObject;
    try {
      configMap = await this.client.get(configMapRef(COREDNS));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw wrap(`error getting ${key} config map from target cluster`, e);
    }
    // Upstream reads the Corefile before the Deployment: a ConfigMap without one is an error even then.
    if ((configMap.data as Record<string, string> | undefined)?.[COREFILE_KEY] === undefined)
      throw new Error('unable to find the CoreDNS Corefile data');
    try {
      deployment = await this.client.get(ref('apps/v1', 'Deployment', COREDNS, KUBE_SYSTEM));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw wrap(`unable to get ${key} deployment from target cluster`, e);
    }
    return coreDnsInfo(configMap, deployment, clusterConfig);
  }

  /**
   * updateCoreDNSCorefile: migrate first (nothing is written when that fails), back the Corefile up, point the
   * Deployment at the backup, then write the migrated Corefile.
   */
  private async updateCorefile(info: CoreDnsInfo): Promise<void> {
    let migrated: string;
    try {
      migrated = this.migrator.migrate(info.currentMajorMinorPatch, info.targetMajorMinorPatch, info.corefile, false);
    } catch (e) {
      throw wrap('unable to migrate CoreDNS corefile', e);
    }
    const write = (corefile: string) =>
      this.client.update({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: COREDNS, namespace: KUBE_SYSTEM },
        data: { [COREFILE_KEY]: corefile, [COREFILE_BACKUP_KEY]: info.corefile },
      });
    try {
      await write(info.corefile);
    } catch (e) {
      throw wrap('unable to update CoreDNS config map with backup Corefile', e);
    }
    const toBackup = withCorefileVolumeKey(info.deployment, COREFILE_KEY, COREFILE_BACKUP_KEY);
    await this.patchDeployment(info.deployment, toBackup);
    info.deployment = toBackup;
    try {
      await write(migrated);
    } catch (e) {
      throw wrap('unable to update CoreDNS config map', e);
    }
  }

  /** client.MergeFrom(original): the pod template's containers and volumes as they are now (lists replace). */
  private async patchDeployment(original: KubeObject, modified: KubeObject): Promise<void> {
    const spec = (modified as any).spec?.template?.spec ?? {};
    const before = (original as any).spec?.template?.spec ?? {};
    const patch: Record<string, unknown> = {};
    for (const k of ['containers', 'volumes'])
      if (JSON.stringify(spec[k]) !== JSON.stringify(before[k])) patch[k] = spec[k];
    // Sent even when empty, as client.Patch does: a Deployment gone meanwhile is an error, not a silent success.
    await this.client.patch(ref('apps/v1', 'Deployment', COREDNS, KUBE_SYSTEM), 'merge', {
      spec: { template: { spec: patch } },
    });
  }
}

const withImage = (containers: Record<string, any>[], name: string, image: string) =>
  containers.map((c) => (c.name === name ? { ...c, image } : c));

/**
 * The upkeep of the Cluster's workload cluster; undefined (logged) when its WorkloadCluster offers no API client (a
 * provider implementing only the health reads, e.g. a test double): there is nothing to keep in line through.
 */
async function upkeepFor(
  workloads: WorkloadClusterProvider,
  cluster: Cluster,
  log: { log(message: string): void },
): Promise<WorkloadUpkeep | undefined> {
  const wc = await workloads.forCluster({ namespace: cluster.metadata.namespace!, name: cluster.metadata.name! });
  if (wc.kubeClient) return new WorkloadUpkeep(wc.kubeClient());
  log.log('the workload cluster offers no API client: its kubeadm objects are not kept in line');
  return undefined;
}

/**
 * update.go updateControlPlane, before any Machine is rolled out: the ClusterRoleBindings newer kubeadm versions
 * expect, then the kubeadm-config ConfigMap brought to the KCP's spec and version.
 */
export async function upkeepBeforeRollout(
  workloads: WorkloadClusterProvider,
  cluster: Cluster,
  kcp: KubeadmControlPlane,
  etcdManaged: boolean,
  log: { log(message: string): void },
): Promise<void> {
  let upkeep: WorkloadUpkeep | undefined;
  try {
    upkeep = await upkeepFor(workloads, cluster, log);
  } catch (e) {
    throw wrap('failed to update control plane', e);
  }
  if (!upkeep) return;
  let version: string;
  try {
    version = parsedKcpVersion(kcp);
  } catch (e) {
    throw wrap('failed to update control plane', e);
  }
  try {
    await upkeep.ensureKubeadmPermissions(version);
  } catch (e) {
    throw wrap('failed to update control plane: failed to set cluster-admin ClusterRoleBinding for kubeadm', e);
  }
  try {
    await upkeep.updateClusterConfigurationForRollout(kcp, etcdManaged);
  } catch (e) {
    throw wrap('failed to update control plane', e);
  }
}

/** controller.go reconcile, once nothing is rolled out or scaled: the kube-proxy DaemonSet, then CoreDNS. */
export async function upkeepStableControlPlane(
  workloads: WorkloadClusterProvider,
  cluster: Cluster,
  kcp: KubeadmControlPlane,
  log: { log(message: string): void },
): Promise<void> {
  const upkeep = await upkeepFor(workloads, cluster, log);
  if (!upkeep) return;
  await upkeep.updateKubeProxyImageInfo(kcp);
  try {
    await upkeep.updateCoreDNS(kcp);
  } catch (e) {
    throw wrap('failed to update CoreDNS deployment', e);
  }
}
