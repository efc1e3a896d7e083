// Writes simulated Nodes in a workload cluster (finding them: @capi/clustercache findNodeByProviderID), with the
// control-plane static Pods and etcd member of control-plane hosts.
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, type Client } from '@capi/controller-runtime';
import { SIMULATED_NAMESPACE } from '@capi/api';
import { INMEMORY_FIELD_MANAGER } from '../api/constants';
import { controlPlaneObjectNames, controlPlaneObjects } from './control-plane';
import { nodeObject, nodeStatus, type HostState } from './node';

/** Server-side applies the Node (metadata/spec, then status) as the provider's field manager, then its control-plane objects. */
export async function applyNode(
  client: Client,
  state: HostState,
  now: Date,
  previous?: KubeObject,
): Promise<KubeObject> {
  await client.apply(nodeObject(state), { fieldManager: INMEMORY_FIELD_MANAGER, force: true });
  const node = await client.apply(nodeStatus(state, now, previous), {
    fieldManager: INMEMORY_FIELD_MANAGER,
    force: true,
    subresource: 'status',
  });
  for (const obj of controlPlaneObjects(state, now))
    await client.apply(obj, { fieldManager: INMEMORY_FIELD_MANAGER, force: true });
  return node;
}

/** Removes a host from its workload cluster: the Node, and (control plane) its static Pods and etcd member. */
export async function removeNode(client: Client, nodeName: string): Promise<void> {
  const refs = [
    { apiVersion: 'v1', kind: 'Node', name: nodeName },
    ...controlPlaneObjectNames(nodeName).map((name) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: SIMULATED_NAMESPACE,
      name,
    })),
  ];
  for (const ref of refs) {
    try {
      await client.delete(ref);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
