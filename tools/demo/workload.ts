// What the demo shows of the workload cluster's kube-system: the objects kubeadm init created there and KCP keeps in
// line with its version (kubeadm-config ClusterConfiguration, kube-proxy DaemonSet, CoreDNS Deployment), read through
// the `<cluster>-kubeconfig` Secret as any client of the workload cluster would.
import type { Client } from '@capi/controller-runtime';
import YAML from 'yaml';

export interface WorkloadKubeadmState {
  /** kubeadm-config ClusterConfiguration kubernetesVersion and apiVersion. */
  kubeadmConfig?: { kubernetesVersion?: string; apiVersion?: string };
  kubeProxyImage?: string;
  corednsImage?: string;
  /** Why the state could not be read (workload cluster unreachable, objects missing). */
  error?: string;
}

const firstImage = (o: any): string | undefined => o?.spec?.template?.spec?.containers?.[0]?.image;

export async function readWorkloadKubeadmState(workload: Client): Promise<WorkloadKubeadmState> {
  const get = (apiVersion: string, kind: string, name: string) =>
    workload.tryGet<any>({ apiVersion, kind, namespace: 'kube-system', name });
  try {
    const [cm, ds, deploy] = await Promise.all([
      get('v1', 'ConfigMap', 'kubeadm-config'),
      get('apps/v1', 'DaemonSet', 'kube-proxy'),
      get('apps/v1', 'Deployment', 'coredns'),
    ]);
    const cc = cm?.data?.ClusterConfiguration ? YAML.parse(cm.data.ClusterConfiguration) : undefined;
    return {
      kubeadmConfig: cc ? { kubernetesVersion: cc.kubernetesVersion, apiVersion: cc.apiVersion } : undefined,
      kubeProxyImage: firstImage(ds),
      corednsImage: firstImage(deploy),
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Settled at `version`: kubeadm-config and the kube-proxy image carry it (KCP's upkeep after a version change). */
export function workloadProblems(s: WorkloadKubeadmState, version: string): string[] {
  if (s.error) return [`workload cluster kube-system not readable: ${s.error}`];
  const out: string[] = [];
  if (s.kubeadmConfig?.kubernetesVersion !== version)
    out.push(
      `workload kubeadm-config kubernetesVersion=${s.kubeadmConfig?.kubernetesVersion ?? 'missing'} (want ${version})`,
    );
  if (!s.kubeProxyImage?.endsWith(`:${version}`))
    out.push(`workload kube-proxy image ${s.kubeProxyImage ?? 'missing'} (want tag ${version})`);
  return out;
}

export const workloadLine = (s: WorkloadKubeadmState): string =>
  `workload kube-system: kubeadm-config ${s.kubeadmConfig?.kubernetesVersion} (${s.kubeadmConfig?.apiVersion}), kube-proxy ${s.kubeProxyImage}, coredns ${s.corednsImage}`;
