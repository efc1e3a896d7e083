import { SIMULATED_ETCD_MEMBER_LABEL, SIMULATED_STATIC_POD_LABEL } from '@capi/api';
import { controlPlaneObjectNames, controlPlaneObjects, etcdMemberOf, staticPod } from './control-plane';
import type { HostState } from './node';

const state: HostState = {
  nodeName: 'cp-1',
  providerID: 'in-memory://c/cp-1',
  controlPlane: true,
  kubeletVersion: 'v1.31.0',
  spec: {},
  ready: true,
};
const t = new Date('2026-01-01T00:00:00Z');
const ready = (pod: ReturnType<typeof staticPod>) =>
  (pod.status as { conditions: { type: string; status: string }[] }).conditions.find((c) => c.type === 'Ready')?.status;

describe('control-plane host objects', () => {
  it('a control-plane host publishes its four static Pods and its etcd member; a worker nothing', () => {
    const objs = controlPlaneObjects(state, t);
    expect(objs.map((o) => o.metadata.name)).toEqual([
      'static-pod-kube-apiserver-cp-1',
      'static-pod-kube-controller-manager-cp-1',
      'static-pod-kube-scheduler-cp-1',
      'static-pod-etcd-cp-1',
      'etcd-member-cp-1',
    ]);
    expect(objs.map((o) => o.metadata.name)).toEqual(controlPlaneObjectNames('cp-1'));
    expect(objs[0].metadata).toMatchObject({
      namespace: 'kube-system',
      labels: { [SIMULATED_STATIC_POD_LABEL]: 'kube-apiserver' },
    });
    expect(objs[4].metadata.labels).toEqual({ [SIMULATED_ETCD_MEMBER_LABEL]: 'cp-1' });
    const pod = JSON.parse((objs[0].data as Record<string, string>).pod);
    expect(pod).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'kube-apiserver-cp-1', labels: { component: 'kube-apiserver', tier: 'control-plane' } },
      spec: { nodeName: 'cp-1' },
      status: { phase: 'Running' },
    });
    expect(JSON.parse((objs[4].data as Record<string, string>).member)).toEqual(etcdMemberOf(state));
    expect(controlPlaneObjects({ ...state, controlPlane: false }, t)).toEqual([]);
  });

  it('Pods are Ready while the kubelet is; member IDs are stable per Node', () => {
    expect(ready(staticPod(state, 'etcd', t))).toBe('True');
    expect(ready(staticPod({ ...state, ready: false }, 'etcd', t))).toBe('False');
    expect(etcdMemberOf(state).id).toBe(etcdMemberOf({ ...state, kubeletVersion: 'v1.32.0' }).id);
    expect(etcdMemberOf(state).id).not.toBe(etcdMemberOf({ ...state, nodeName: 'cp-2' }).id);
  });
});
