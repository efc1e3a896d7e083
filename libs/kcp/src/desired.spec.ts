import { KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION, KCP_REMEDIATION_FOR_ANNOTATION } from '@capi/api';
import { computeDesiredMachine, controlPlaneMachineAnnotations, controlPlaneMachineLabels } from './desired';
import { CLUSTER, kcp, machine } from './testing/fixtures';

/** A KCP whose machineTemplate carries metadata, timeouts, taints and readiness gates, at `version`. */
function templated(version = 'v1.31.0') {
  const k = kcp({ version });
  k.spec.machineTemplate.metadata = {
    labels: { tier: 'gold', 'cluster.x-k8s.io/cluster-name': 'spoofed' },
    annotations: { note: 'a' },
  };
  k.spec.machineTemplate.spec.deletion = { nodeDrainTimeoutSeconds: 60, nodeDeletionTimeoutSeconds: 5 };
  k.spec.machineTemplate.spec.taints = [{ key: 'k', effect: 'NoSchedule', propagation: 'Always' }];
  k.spec.machineTemplate.spec.readinessGates = [{ conditionType: 'Ready2' }];
  return k;
}

describe('control-plane Machine metadata', () => {
  it('takes the template labels, forcing the control-plane labels over them', () => {
    expect(controlPlaneMachineLabels(templated(), CLUSTER)).toEqual({
      tier: 'gold',
      'cluster.x-k8s.io/cluster-name': CLUSTER,
      'cluster.x-k8s.io/control-plane': '',
      'cluster.x-k8s.io/control-plane-name': 'cp',
    });
    expect(controlPlaneMachineAnnotations(templated())).toEqual({ note: 'a' });
  });

  it('copies the template maps (the KCP object is never modified through them)', () => {
    const k = templated();
    controlPlaneMachineLabels(k, CLUSTER).tier = 'x';
    controlPlaneMachineAnnotations(k).note = 'x';
    expect(k.spec.machineTemplate.metadata).toEqual({
      labels: { tier: 'gold', 'cluster.x-k8s.io/cluster-name': 'spoofed' },
      annotations: { note: 'a' },
    });
  });
});

describe('computeDesiredMachine for an existing Machine (what syncMachines applies)', () => {
  const existing = () => {
    const m = machine('m1', {
      version: 'v1.30.0',
      annotations: { [KCP_REMEDIATION_FOR_ANNOTATION]: '{"machine":"m0"}', 'other-writer': 'x' },
      labels: { stale: 'x' },
    });
    m.spec.failureDomain = 'fd-2';
    m.metadata.resourceVersion = '42';
    return m;
  };

  it('keeps the Machine version, references, failure domain, uid and remediation data', () => {
    const m = existing();
    const desired = computeDesiredMachine({ kcp: templated(), clusterName: CLUSTER, existing: m });
    expect(desired.metadata.name).toBe('m1');
    expect(desired.metadata.uid).toBe(m.metadata.uid);
    expect(desired.spec.version).toBe('v1.30.0');
    expect(desired.spec.infrastructureRef).toEqual(m.spec.infrastructureRef);
    expect(desired.spec.bootstrap).toEqual({ configRef: m.spec.bootstrap.configRef });
    expect(desired.spec.failureDomain).toBe('fd-2');
    expect(desired.metadata.annotations?.[KCP_REMEDIATION_FOR_ANNOTATION]).toBe('{"machine":"m0"}');
    // An SSA intent: no resourceVersion (it would make the apply conditional).
    expect(desired.metadata.resourceVersion).toBeUndefined();
  });

  it('takes the in-place mutable fields from the KCP: labels, annotations, deletion timeouts, taints, readiness gates', () => {
    const desired = computeDesiredMachine({ kcp: templated(), clusterName: CLUSTER, existing: existing() });
    expect(desired.metadata.labels).toEqual(controlPlaneMachineLabels(templated(), CLUSTER));
    // Annotations other writers put on the Machine are not part of the intent (the apply leaves them alone).
    expect(desired.metadata.annotations).toEqual({
      note: 'a',
      [KCP_REMEDIATION_FOR_ANNOTATION]: '{"machine":"m0"}',
      [KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION]: '',
    });
    expect(desired.spec.deletion).toEqual({ nodeDrainTimeoutSeconds: 60, nodeDeletionTimeoutSeconds: 5 });
    expect(desired.spec.taints).toEqual([{ key: 'k', effect: 'NoSchedule', propagation: 'Always' }]);
    expect(desired.spec.readinessGates).toEqual([{ conditionType: 'Ready2' }]);
    expect(desired.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'KubeadmControlPlane', name: 'cp', controller: true }),
    ]);
  });

  it('leaves out what the template no longer sets, so the apply removes it', () => {
    const desired = computeDesiredMachine({ kcp: kcp(), clusterName: CLUSTER, existing: existing() });
    expect(desired.spec.deletion).toBeUndefined();
    expect(desired.spec.taints).toBeUndefined();
    expect(desired.metadata.labels?.stale).toBeUndefined();
    expect(desired.metadata.annotations).toEqual({
      [KCP_REMEDIATION_FOR_ANNOTATION]: '{"machine":"m0"}',
      [KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION]: '',
    });
  });
});

describe('KCP pre-terminate hook (upstream desired_state_test.go: every desired Machine carries it)', () => {
  it('a new Machine and an existing Machine both carry pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup', () => {
    const created = computeDesiredMachine({
      kcp: templated(),
      clusterName: CLUSTER,
      name: 'new',
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'new' },
    });
    expect(created.metadata.annotations).toEqual({ note: 'a', [KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION]: '' });
    // An existing Machine that lost it (e.g. created before) gets it back with the next apply.
    const existing = machine('old', { annotations: {} });
    expect(
      computeDesiredMachine({ kcp: templated(), clusterName: CLUSTER, existing }).metadata.annotations?.[
        KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION
      ],
    ).toBe('');
  });
});
