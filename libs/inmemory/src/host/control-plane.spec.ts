import {
  ETCD_CLUSTER_ID_ANNOTATION,
  ETCD_MEMBER_ID_ANNOTATION,
  mirrorPodNames,
  mirrorPods,
  staticPod,
} from './control-plane';
import type { HostState } from './node';

const state: HostState = {
  nodeName: 'cp-1',
  providerID: 'in-memory://c/cp-1',
  controlPlane: true,
  kubeletVersion: 'v1.31.0',
  files: {},
  spec: {},
  ready: true,
};
const t = new Date('2026-01-01T00:00:00Z');
const ready = (pod: ReturnType<typeof staticPod>) =>
  (pod.status as { conditions: { type: string; status: string }[] }).conditions.find((c) => c.type === 'Ready')?.status;

describe('control-plane mirror Pods', () => {
  it('a control-plane host has its four static Pods mirrored in kube-system; a worker none', () => {
    const pods = mirrorPods(state, t, { nodeUid: 'uid-1', etcd: { clusterID: '7', memberID: '9' } });
    expect(pods.map((o) => o.metadata.name)).toEqual([
      'kube-apiserver-cp-1',
      'kube-controller-manager-cp-1',
      'kube-scheduler-cp-1',
      'etcd-cp-1',
    ]);
    expect(pods.map((o) => o.metadata.name)).toEqual(mirrorPodNames('cp-1'));
    expect(pods[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        namespace: 'kube-system',
        labels: { component: 'kube-apiserver', tier: 'control-plane' },
        annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.mirror': expect.any(String) },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'cp-1', uid: 'uid-1', controller: true }],
      },
      spec: {
        nodeName: 'cp-1',
        containers: [{ name: 'kube-apiserver', image: 'registry.k8s.io/kube-apiserver:v1.31.0' }],
      },
      status: { phase: 'Running' },
    });
    // The etcd Pod carries its member's IDs, as upstream's in-memory etcd Pods do; the others do not.
    expect(pods[3].metadata.annotations).toMatchObject({
      [ETCD_CLUSTER_ID_ANNOTATION]: '7',
      [ETCD_MEMBER_ID_ANNOTATION]: '9',
    });
    expect(pods[0].metadata.annotations?.[ETCD_MEMBER_ID_ANNOTATION]).toBeUndefined();
    expect(mirrorPods({ ...state, controlPlane: false }, t)).toEqual([]);
  });

  it('Pods are Ready while the kubelet is; without a Node uid they have no owner yet', () => {
    expect(ready(staticPod(state, 'etcd', t))).toBe('True');
    expect(ready(staticPod({ ...state, ready: false }, 'etcd', t))).toBe('False');
    expect(staticPod(state, 'etcd', t).metadata.ownerReferences).toBeUndefined();
  });
});
