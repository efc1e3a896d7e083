// Upstream controlplane/kubeadm/pkg/control_plane_test.go TestDefaultTaintIsMissing (every case) and the
// updateNodeCondition messages of workload_cluster_conditions_test.go TestUpdateStaticPodConditions.
import type { KubeadmConfig } from '@capi/api';
import { defaultTaintIsMissing, nodeKubeadmLabelsAndTaintsCondition } from './node-kubeadm-condition';
import { machine } from './testing/fixtures';
import type { WorkloadNode } from './workload-cluster';

const DEFAULT_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
const node = (over: Partial<WorkloadNode> = {}): WorkloadNode => ({
  name: 'n1',
  ready: true,
  controlPlane: true,
  ...over,
});
const config = (spec: Record<string, unknown>): KubeadmConfig =>
  ({
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfig',
    metadata: { name: 'm1' },
    spec,
  }) as KubeadmConfig;

describe('defaultTaintIsMissing (TestDefaultTaintIsMissing)', () => {
  it.each<[string, { machineTaint?: boolean; kubeadmConfig?: KubeadmConfig; nodeTaints?: object[] }, boolean]>([
    ['taint exists', { machineTaint: true, nodeTaints: [DEFAULT_TAINT] }, false],
    ['taint is missing if defined at machine level, but not present on the node', { machineTaint: true }, true],
    [
      'taint is missing if kubeadm default taints must be applied on init (taint not set), but not present on the node',
      { kubeadmConfig: config({}) },
      true,
    ],
    [
      'taint is missing if kubeadm default taints must be applied on join (taint not set), but not present on the node',
      { kubeadmConfig: config({ joinConfiguration: { controlPlane: {} } }) },
      true,
    ],
    [
      'taint is missing if kubeadm init taints includes the default taint, but not present on the node',
      { kubeadmConfig: config({ initConfiguration: { nodeRegistration: { taints: [DEFAULT_TAINT] } } }) },
      true,
    ],
    [
      'taint is missing if kubeadm join taints includes the default taint, but not present on the node',
      {
        kubeadmConfig: config({
          joinConfiguration: { controlPlane: {}, nodeRegistration: { taints: [DEFAULT_TAINT] } },
        }),
      },
      true,
    ],
    [
      'taint is not missing if kubeadm init taints does not include the default taint',
      { kubeadmConfig: config({ initConfiguration: { nodeRegistration: { taints: [] } } }) },
      false,
    ],
    [
      'taint is not missing if kubeadm join taints does not include the default taint',
      { kubeadmConfig: config({ joinConfiguration: { controlPlane: {}, nodeRegistration: { taints: [] } } }) },
      false,
    ],
    ['nothing to go by (no Machine taint, no KubeadmConfig): not required', {}, false],
  ])('%s', (_, { machineTaint, kubeadmConfig, nodeTaints }, want) => {
    const m = machine('m1');
    if (machineTaint) m.spec.taints = [{ ...DEFAULT_TAINT, effect: 'NoSchedule', propagation: 'Always' }];
    expect(defaultTaintIsMissing(m, node({ taints: nodeTaints as WorkloadNode['taints'] }), kubeadmConfig)).toBe(want);
  });
});

describe('nodeKubeadmLabelsAndTaintsCondition', () => {
  const m = () => machine('m1', { labels: {} });
  it('Set when the label and the required taint are there', () => {
    expect(nodeKubeadmLabelsAndTaintsCondition(m(), node({ taints: [DEFAULT_TAINT] }), config({}))).toEqual({
      type: 'NodeKubeadmLabelsAndTaintsSet',
      status: 'True',
      reason: 'Set',
    });
  });
  it('a node without the control plane label', () => {
    const mm = m();
    mm.status = { nodeRef: { name: 'n1' } };
    expect(nodeKubeadmLabelsAndTaintsCondition(mm, node({ controlPlane: false }), undefined)).toEqual({
      type: 'NodeKubeadmLabelsAndTaintsSet',
      status: 'False',
      reason: 'NotSet',
      message: 'Node n1 does not have the node-role.kubernetes.io/control-plane label',
    });
  });
  it('missing control plane label and taint should surface', () => {
    const mm = m();
    mm.status = { nodeRef: { name: 'n1' } };
    expect(nodeKubeadmLabelsAndTaintsCondition(mm, node({ controlPlane: false }), config({})).message).toBe(
      'Node n1 does not have the node-role.kubernetes.io/control-plane label and the node-role.kubernetes.io/control-plane:NoSchedule taint',
    );
  });
  it('should surface control plane nodes without the default control plane taint', () => {
    const mm = m();
    mm.status = { nodeRef: { name: 'n1' } };
    expect(nodeKubeadmLabelsAndTaintsCondition(mm, node(), config({})).message).toBe(
      'Node n1 does not have the node-role.kubernetes.io/control-plane:NoSchedule taint',
    );
  });
});
