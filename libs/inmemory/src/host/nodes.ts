// Writes simulated Nodes in a workload cluster (finding them: @capi/clustercache findNodeByProviderID), with the
// control-plane mirror Pods and etcd member of control-plane hosts.
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, type Client } from '@capi/controller-runtime';
import { INMEMORY_FIELD_MANAGER } from '../api/constants';
import { hostGone, joinMember, randomUint64 } from '../etcd/cluster-state';
import { EtcdClusterStore } from '../etcd/store';
import { KUBE_SYSTEM, mirrorPodNames, mirrorPods, type EtcdMemberIds } from './control-plane';
import { internalIpFor, nodeObject, nodeStatus, type HostState } from './node';
import type { ForceDeletePod } from '../pods/force-delete';

const apply = { fieldManager: INMEMORY_FIELD_MANAGER, force: true };

/**
 * Server-side applies the Node (metadata/spec, then status) as the provider's field manager; a control-plane host
 * then starts its etcd member (the first one creates the cluster, later ones join; an existing member is kept as it
 * is) and its mirror Pods appear.
 */
export async function applyNode(
  client: Client,
  state: HostState,
  now: Date,
  previous?: KubeObject,
): Promise<KubeObject> {
  await client.apply(nodeObject(state), apply);
  const node = await client.apply(nodeStatus(state, now, previous), { ...apply, subresource: 'status' });
  if (!state.controlPlane) return node;
  const etcd = await joinEtcd(client, state, now);
  for (const pod of mirrorPods(state, now, { nodeUid: node.metadata.uid, etcd })) {
    const { status, ...withoutStatus } = pod;
    await client.apply(withoutStatus, apply);
    const ref = { apiVersion: 'v1', kind: 'Pod', metadata: { name: pod.metadata.name, namespace: KUBE_SYSTEM } };
    await client.apply({ ...ref, status }, { ...apply, subresource: 'status' });
  }
  return node;
}

async function joinEtcd(client: Client, state: HostState, now: Date): Promise<EtcdMemberIds> {
  return new EtcdClusterStore(client).update((s) => {
    const host = { name: state.nodeName, ip: internalIpFor(state.providerID) };
    const joined = joinMember(s, host, randomUint64, now.getTime());
    const ids = { clusterID: joined.state.clusterID, memberID: joined.member.id };
    return { state: joined.state, result: ids, changed: joined.changed };
  });
}

/**
 * Removes a host from its workload cluster: the Node and (control plane) its mirror Pods. Its etcd member stays a
 * member, down, until someone removes it (a member removed already goes with the host). `controlPlane` false (a
 * worker, known from its Machine) skips the control-plane part; when unknown, pass nothing. The mirror Pods go with
 * `deletePodNow` (grace 0: no kubelet is left to finish them; a plain delete of a bound Pod only starts terminating).
 */
export async function removeNode(
  client: Client,
  nodeName: string,
  controlPlane = true,
  deletePodNow?: ForceDeletePod,
): Promise<void> {
  const ignoreNotFound = (e: unknown) => {
    if (!isNotFound(e)) throw e;
  };
  await client.delete({ apiVersion: 'v1', kind: 'Node', name: nodeName }).catch(ignoreNotFound);
  for (const name of controlPlane ? mirrorPodNames(nodeName) : []) {
    const ref = { apiVersion: 'v1', kind: 'Pod', namespace: KUBE_SYSTEM, name };
    await (deletePodNow ? deletePodNow(ref) : client.delete(ref)).catch(ignoreNotFound);
  }
  if (!controlPlane) return;
  const store = new EtcdClusterStore(client);
  await store.update((s) => {
    const next = s ? hostGone(s, nodeName) : undefined;
    return { state: next!, result: undefined, changed: next !== undefined && next !== s };
  });
}
