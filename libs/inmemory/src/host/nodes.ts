// Writes simulated Nodes in a workload cluster (finding them: @capi/machine findNodeByProviderID).
import type { Client, KubeObject } from '@capi/controller-runtime';
import { INMEMORY_FIELD_MANAGER } from '../api/constants';
import { nodeObject, nodeStatus, type HostState } from './node';

/** Server-side applies the Node (metadata/spec, then status) as the provider's field manager. */
export async function applyNode(client: Client, state: HostState, now: Date, previous?: KubeObject): Promise<KubeObject> {
  await client.apply(nodeObject(state), { fieldManager: INMEMORY_FIELD_MANAGER, force: true });
  return client.apply(nodeStatus(state, now, previous), { fieldManager: INMEMORY_FIELD_MANAGER, force: true, subresource: 'status' });
}
