// What the demo shows of the workload cluster: the objects kubeadm init created in kube-system and KCP keeps in line
// with its version (kubeadm-config ClusterConfiguration, kube-proxy DaemonSet, CoreDNS Deployment), and the sample
// workload the in-memory provider runs (Deployment default/sample behind a PodDisruptionBudget), which Machine
// replacements drain; read through the `<cluster>-kubeconfig` Secret as any client of the workload cluster would.
import type { Client } from '@capi/controller-runtime';
import { SAMPLE_NAME, SAMPLE_NAMESPACE } from '@capi/inmemory';
import YAML from 'yaml';

export interface WorkloadKubeadmState {
  /** kubeadm-config ClusterConfiguration kubernetesVersion and apiVersion. */
  kubeadmConfig?: { kubernetesVersion?: string; apiVersion?: string };
  kubeProxyImage?: string;
  corednsImage?: string;
  /** The sample workload (absent when the provider runs none): ready replicas of the Deployment, and its Nodes. */
  sample?: { replicas: number; ready: number; nodes: string[] };
  /** Why the state could not be read (workload cluster unreachable, objects missing). */
  error?: string;
}

const SAMPLE = { namespace: SAMPLE_NAMESPACE, name: SAMPLE_NAME };

const firstImage = (o: any): string | undefined => o?.spec?.template?.spec?.containers?.[0]?.image;

export async function readWorkloadKubeadmState(workload: Client): Promise<WorkloadKubeadmState> {
  const get = (apiVersion: string, kind: string, name: string) =>
    workload.tryGet<any>({ apiVersion, kind, namespace: 'kube-system', name });
  try {
    const [cm, ds, deploy, sample] = await Promise.all([
      get('v1', 'ConfigMap', 'kubeadm-config'),
      get('apps/v1', 'DaemonSet', 'kube-proxy'),
      get('apps/v1', 'Deployment', 'coredns'),
      workload.tryGet<any>({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: SAMPLE.namespace,
        name: SAMPLE.name,
      }),
    ]);
    const cc = cm?.data?.ClusterConfiguration ? YAML.parse(cm.data.ClusterConfiguration) : undefined;
    return {
      kubeadmConfig: cc ? { kubernetesVersion: cc.kubernetesVersion, apiVersion: cc.apiVersion } : undefined,
      kubeProxyImage: firstImage(ds),
      corednsImage: firstImage(deploy),
      sample: sample ? await sampleState(workload, sample) : undefined,
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function sampleState(workload: Client, deployment: any): Promise<WorkloadKubeadmState['sample']> {
  const selector = Object.entries(deployment.spec?.selector?.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = await workload.list<any>('v1', 'Pod', { namespace: SAMPLE.namespace, labelSelector: selector });
  const running = pods.items.filter((p) => !p.metadata.deletionTimestamp && p.spec?.nodeName);
  return {
    replicas: deployment.spec?.replicas ?? 0,
    ready: deployment.status?.readyReplicas ?? 0,
    nodes: [...new Set(running.map((p) => p.spec.nodeName as string))].sort(),
  };
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
  // The Pods drained off replaced Machines run again elsewhere.
  if (s.sample && s.sample.ready < s.sample.replicas)
    out.push(`sample workload ${s.sample.ready}/${s.sample.replicas} ready`);
  return out;
}

/** Lines to print indented by 3 (the demo's output stays within 120 columns: CoreDNS has a line of its own). */
export const workloadLine = (s: WorkloadKubeadmState): string =>
  `workload kube-system: kubeadm-config ${s.kubeadmConfig?.kubernetesVersion} (${s.kubeadmConfig?.apiVersion}), kube-proxy ${s.kubeProxyImage}` +
  `\n   workload coredns: ${s.corednsImage}` +
  (s.sample
    ? `\n   sample workload: ${s.sample.ready}/${s.sample.replicas} ready on ${s.sample.nodes.join(', ')}`
    : '');
