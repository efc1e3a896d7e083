// Writes and finds simulated Nodes in a workload cluster.
import type { Client, KubeObject } from '@capi/controller-runtime';
import { INMEMORY_FIELD_MANAGER } from '../api/constants';
import { nodeObject, nodeStatus, type HostState } from './node';

/** Server-side applies the Node (metadata/spec, then status) as the provider's field manager. */
export async function applyNode(client: Client, state: HostState, now: Date, previous?: KubeObject): Promise<KubeObject> {
  await client.apply(nodeObject(state), { fieldManager: INMEMORY_FIELD_MANAGER, force: true });
  return client.apply(nodeStatus(state, now, previous), { fieldManager: INMEMORY_FIELD_MANAGER, force: true, subresource: 'status' });
}

const providerIdOf = (n: KubeObject) => (n.spec as { providerID?: string } | undefined)?.providerID;

/** The Node with this spec.providerID: one GET when the Machine's nodeRef names it, else a list (1,000s of Nodes in the bench). */
export async function findNodeByProviderID(client: Client, providerID: string, knownNodeName?: string): Promise<KubeObject | undefined> {
  if (knownNodeName) {
    const node = await client.tryGet({ apiVersion: 'v1', kind: 'Node', name: knownNodeName });
    if (node && providerIdOf(node) === providerID) return node;
  }
  const nodes = await client.list('v1', 'Node');
  return nodes.items.find((n) => providerIdOf(n) === providerID);
}
