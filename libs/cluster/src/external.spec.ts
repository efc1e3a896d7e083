// upstream cluster_controller_phases_test.go TestEnsureOwnerRefAndLabel.
import type { Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { clusterRequestsFor, ownerRefAndLabelPatch } from './external';

const cluster = (topology: boolean) =>
  ({
    metadata: { name: 'c', namespace: 'ns', uid: 'u' },
    spec: topology ? { topology: { classRef: { name: 'x' } } } : {},
  }) as Cluster;
const infra = (more: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
  kind: 'InMemoryCluster',
  metadata: { name: 'i', namespace: 'ns', resourceVersion: '7', ...more },
});
const ref = (controller: boolean) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  name: 'c',
  uid: 'u',
  controller,
});

describe('ownerRefAndLabelPatch', () => {
  it('Topology defined - should set ownerReference with controller: true', () => {
    expect(ownerRefAndLabelPatch(infra(), cluster(true))).toEqual({
      metadata: {
        resourceVersion: '7',
        ownerReferences: [ref(true)],
        labels: { 'cluster.x-k8s.io/cluster-name': 'c' },
      },
    });
  });

  it('Topology not defined - should set ownerReference with controller: false, keeping other owners', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x' };
    const p = ownerRefAndLabelPatch(infra({ ownerReferences: [other] }), cluster(false));
    expect((p!.metadata as { ownerReferences: unknown }).ownerReferences).toEqual([other, ref(false)]);
  });

  it('nothing to do when the exact reference and the label are there', () => {
    const o = infra({ ownerReferences: [ref(false)], labels: { 'cluster.x-k8s.io/cluster-name': 'c' } });
    expect(ownerRefAndLabelPatch(o, cluster(false))).toBeUndefined();
  });

  it('a stale reference to the same Cluster (old uid) is replaced, not duplicated', () => {
    const p = ownerRefAndLabelPatch(infra({ ownerReferences: [{ ...ref(false), uid: 'old' }] }), cluster(false));
    expect((p!.metadata as { ownerReferences: unknown }).ownerReferences).toEqual([ref(false)]);
  });
});

describe('clusterRequestsFor', () => {
  it('every Cluster owner of the cluster.x-k8s.io group', () => {
    const o = infra({
      ownerReferences: [ref(false), { apiVersion: 'other.io/v1', kind: 'Cluster', name: 'z', uid: 'z' }],
    });
    expect(clusterRequestsFor(o)).toEqual([{ namespace: 'ns', name: 'c' }]);
  });
});
