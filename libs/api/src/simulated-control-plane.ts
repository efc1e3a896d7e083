// How a simulated workload cluster published its etcd members as ConfigMaps (one per member, `data.member`, in
// kube-system) before its etcd answered etcd's gRPC API. Nothing publishes them any more: the in-memory provider runs
// etcd members reachable by port-forward to the etcd Pods. Kept only while KCP's SimulatedEtcdClient reads them; this
// file goes with it.

export const SIMULATED_NAMESPACE = 'kube-system';
/** Label on the ConfigMaps carrying an etcd member (value: the member name = Node name). */
export const SIMULATED_ETCD_MEMBER_LABEL = 'simulated.cluster.x-k8s.io/etcd-member';
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

export const simulatedEtcdMemberConfigMapName = (memberName: string): string => `etcd-member-${memberName}`;
