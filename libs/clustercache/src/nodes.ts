// Finding a workload cluster's Node by spec.providerID over a client, for callers without a Node cache (the
// in-memory provider's host backend); the Machine controller reads Nodes through WorkloadClusterCache instead.
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';

const providerIdOf = (n: KubeObject) => (n.spec as { providerID?: string } | undefined)?.providerID;

/**
 * The Node with `providerID`. With `knownNodeName` (the Machine's status.nodeRef) it is one GET; only a Machine whose
 * Node is not known yet (or was replaced under another name) lists the workload cluster's Nodes — listing on every
 * reconcile made each reconcile cost O(Nodes), a rollout O(Machines²).
 */
export async function findNodeByProviderID(
  client: Client,
  providerID: string,
  knownNodeName?: string,
): Promise<KubeObject | undefined> {
  if (knownNodeName) {
    const node = await client.tryGet<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: knownNodeName });
    if (node && providerIdOf(node) === providerID) return node;
  }
  const nodes = await client.list<KubeObject>('v1', 'Node');
  return nodes.items.find((n) => providerIdOf(n) === providerID);
}
