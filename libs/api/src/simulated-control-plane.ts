// How a simulated workload cluster (the in-memory provider's) publishes what a real one exposes through kubelet mirror
// Pods and the etcd API, in objects the embedded API server serves: one ConfigMap per control-plane static Pod (the
// Pod object in `data.pod`) and one per etcd member (`data.member`), in kube-system. The in-memory hosts write them,
// KCP reads them when the workload cluster does not serve v1 Pods / has no etcd client.

export const SIMULATED_NAMESPACE = 'kube-system';
/** Label on the ConfigMaps carrying a static Pod (value: the component, e.g. kube-apiserver). */
export const SIMULATED_STATIC_POD_LABEL = 'simulated.cluster.x-k8s.io/static-pod';
/** Label on the ConfigMaps carrying an etcd member (value: the member name = Node name). */
export const SIMULATED_ETCD_MEMBER_LABEL = 'simulated.cluster.x-k8s.io/etcd-member';
export const SIMULATED_STATIC_POD_KEY = 'pod';
export const SIMULATED_ETCD_MEMBER_KEY = 'member';

/** An etcd member as `etcdctl member list` + `alarm list` report it. */
export interface SimulatedEtcdMember {
  /** Member ID (hex). */
  id: string;
  /** Member name: kubeadm names it after the Node. */
  name: string;
  /** Active alarms of this member (NOSPACE, CORRUPT). */
  alarms?: string[];
}

export const simulatedStaticPodConfigMapName = (podName: string): string => `static-pod-${podName}`;
export const simulatedEtcdMemberConfigMapName = (memberName: string): string => `etcd-member-${memberName}`;
