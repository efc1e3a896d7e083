import type { Cluster, MachineDeployment } from '@capi/api';
import { clusterOwnershipPatch } from './cluster-ownership';

const cluster = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: 'c1', namespace: 'ns', uid: 'cluster-uid' },
  spec: {},
} as Cluster;
const owner = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: 'cluster-uid' };
const md = (metadata: Partial<MachineDeployment['metadata']> = {}) =>
  ({
    metadata: { name: 'md', namespace: 'ns', resourceVersion: '7', ...metadata },
    spec: { clusterName: 'c1' },
  }) as MachineDeployment;

describe('clusterOwnershipPatch (upstream MachineDeployment reconcile: label and Cluster ownerReference)', () => {
  it('adds the cluster-name label and the Cluster ownerReference, keeping other labels and owners', () => {
    const other = { apiVersion: 'example.com/v1', kind: 'Thing', name: 't', uid: 'x' };
    expect(clusterOwnershipPatch(md({ labels: { a: 'b' }, ownerReferences: [other] }), cluster)).toEqual({
      metadata: {
        labels: { a: 'b', 'cluster.x-k8s.io/cluster-name': 'c1' },
        ownerReferences: [other, owner],
        resourceVersion: '7',
      },
    });
  });

  it('nothing to do when both are there', () => {
    expect(
      clusterOwnershipPatch(
        md({ labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, ownerReferences: [owner] }),
        cluster,
      ),
    ).toBeUndefined();
  });

  it('a reference to a re-created Cluster (another uid) is replaced', () => {
    const stale = { ...owner, uid: 'old' };
    expect(
      clusterOwnershipPatch(
        md({ labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, ownerReferences: [stale] }),
        cluster,
      )?.metadata.ownerReferences,
    ).toEqual([owner]);
  });
});
