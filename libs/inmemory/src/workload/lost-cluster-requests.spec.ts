import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { InformerCache } from '@capi/controller-runtime';
import { INMEMORY_API_VERSION } from '../api/types';
import { lostClusterRequests } from './lost-cluster-requests';

/** The one cache read lostClusterRequests makes, over fixed objects. */
function cacheOf(objects: KubeObject[]): InformerCache {
  return {
    listStored: (apiVersion: string, kind: string, opts: { namespace?: string } = {}) =>
      objects.filter(
        (o) =>
          o.apiVersion === apiVersion &&
          o.kind === kind &&
          (!opts.namespace || o.metadata.namespace === opts.namespace),
      ),
  } as unknown as InformerCache;
}

const owner = (kind: string, name: string) => ({ apiVersion: CLUSTER_API_VERSION, kind, name, uid: `uid-${name}` });
const obj = (
  kind: string,
  name: string,
  extra: Partial<KubeObject['metadata']> = {},
  namespace = 'ns',
): KubeObject => ({
  apiVersion: kind === 'Machine' ? CLUSTER_API_VERSION : INMEMORY_API_VERSION,
  kind,
  metadata: { name, namespace, ...extra },
});

describe('lostClusterRequests', () => {
  it("finds the cluster's InMemoryCluster and InMemoryMachines by label, ownerReference or owner Machine", () => {
    const cache = cacheOf([
      obj('InMemoryCluster', 'a-infra', { ownerReferences: [owner('Cluster', 'a')] }),
      obj('InMemoryCluster', 'a-labelled', { labels: { [CLUSTER_NAME_LABEL]: 'a' } }),
      obj('InMemoryCluster', 'b', { ownerReferences: [owner('Cluster', 'b')] }),
      obj('InMemoryCluster', 'a-elsewhere', { ownerReferences: [owner('Cluster', 'a')] }, 'other'),
      obj('InMemoryMachine', 'm1-infra', { labels: { [CLUSTER_NAME_LABEL]: 'a' } }),
      obj('InMemoryMachine', 'm2-infra', { ownerReferences: [owner('Machine', 'm2')] }),
      obj('InMemoryMachine', 'm3-infra', { ownerReferences: [owner('Machine', 'm3')] }),
      obj('InMemoryMachine', 'orphan'),
      { ...obj('Machine', 'm2'), spec: { clusterName: 'a' } },
      { ...obj('Machine', 'm3'), spec: { clusterName: 'b' } },
    ]);
    expect(lostClusterRequests(cache, { namespace: 'ns', name: 'a' })).toEqual({
      inMemoryClusters: [
        { namespace: 'ns', name: 'a-infra' },
        { namespace: 'ns', name: 'a-labelled' },
      ],
      inMemoryMachines: [
        { namespace: 'ns', name: 'm1-infra' },
        { namespace: 'ns', name: 'm2-infra' },
      ],
    });
    expect(lostClusterRequests(cache, { namespace: 'ns', name: 'none' })).toEqual({
      inMemoryClusters: [],
      inMemoryMachines: [],
    });
  });
});
