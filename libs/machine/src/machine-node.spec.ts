import { WorkloadClusterConnectionError, type WorkloadClusterCache } from '@capi/clustercache';
import type { KubeObject } from '@capi/apimachinery';
import { lookupNode } from './machine-node';

const cluster = { namespace: 'ns', name: 'c1' };
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { providerID: 'p://1' } };

describe('lookupNode', () => {
  it('returns the cached Node with the providerID, or none', async () => {
    const cache = {
      nodeByProviderID: async (_c: unknown, id: string) => (id === 'p://1' ? node : undefined),
    } as unknown as WorkloadClusterCache;
    expect(await lookupNode(cache, cluster, 'p://1')).toEqual({ node });
    expect(await lookupNode(cache, cluster, 'p://2')).toEqual({ node: undefined });
  });

  it('returns a connection or read error instead of throwing it', async () => {
    const cache = {
      nodeByProviderID: async () => {
        throw new Error('informer v1 Node did not sync within 1000 ms');
      },
    } as unknown as WorkloadClusterCache;
    expect(await lookupNode(cache, cluster, 'p://1')).toEqual({
      error: 'informer v1 Node did not sync within 1000 ms',
    });
  });
});

describe('lookupNode connection errors', () => {
  it('marks a workload cluster it cannot connect to apart from a failed read', async () => {
    const cache = {
      nodeByProviderID: async () => {
        throw new WorkloadClusterConnectionError('kubeconfig Secret ns/c1-kubeconfig not found');
      },
    } as unknown as WorkloadClusterCache;
    expect(await lookupNode(cache, cluster, 'p://1')).toEqual({
      error: 'kubeconfig Secret ns/c1-kubeconfig not found',
      connectionError: true,
    });
  });
});
