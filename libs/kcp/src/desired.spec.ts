import {
  KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION,
  KCP_REMEDIATION_FOR_ANNOTATION,
  type KubeadmConfigSpec,
} from '@capi/api';
import {
  computeDesiredInfraMachine,
  computeDesiredKubeadmConfig,
  computeDesiredMachine,
  controlPlaneMachineAnnotations,
  controlPlaneMachineLabels,
} from './desired';
import { defaultKubeadmConfigFeatureGates } from './kubeadm-feature-gates';
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
    expect(desired.spec.readinessGates?.map((g) => g.conditionType)).toEqual([
      'NodeKubeadmLabelsAndTaintsSet',
      'APIServerPodHealthy',
      'ControllerManagerPodHealthy',
      'SchedulerPodHealthy',
      'EtcdPodHealthy',
      'EtcdMemberHealthy',
      'Ready2',
    ]);
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

// Upstream controlplane/kubeadm/pkg/desiredstate/desired_state_test.go.
describe('desired state as upstream desiredstate', () => {
  const MANDATORY = [
    { conditionType: 'NodeKubeadmLabelsAndTaintsSet' },
    { conditionType: 'APIServerPodHealthy' },
    { conditionType: 'ControllerManagerPodHealthy' },
    { conditionType: 'SchedulerPodHealthy' },
  ];
  const ETCD = [{ conditionType: 'EtcdPodHealthy' }, { conditionType: 'EtcdMemberHealthy' }];
  const newMachine = (k: ReturnType<typeof kcp>) =>
    computeDesiredMachine({
      kcp: k,
      clusterName: CLUSTER,
      name: 'm-new',
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name: 'm-new' },
      bootstrapConfigRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'm-new' },
      failureDomain: 'fd-1',
    });

  describe('Test_ComputeDesiredMachine', () => {
    it('should return the correct Machine object when creating a new Machine (mandatory gates, then the KCP ones)', () => {
      const k = templated('v1.16.6');
      k.spec.machineTemplate.spec.readinessGates = [{ conditionType: 'Foo' }];
      const m = newMachine(k);
      expect(m.spec.readinessGates).toEqual([...MANDATORY, ...ETCD, { conditionType: 'Foo' }]);
      expect(m.spec.version).toBe('v1.16.6');
      expect(m.spec.failureDomain).toBe('fd-1');
      expect(m.metadata.labels).toEqual({
        tier: 'gold',
        'cluster.x-k8s.io/cluster-name': CLUSTER,
        'cluster.x-k8s.io/control-plane': '',
        'cluster.x-k8s.io/control-plane-name': 'cp',
      });
    });

    it('should return the correct Machine object when creating a new Machine with additional kcp readinessGates', () => {
      const k = templated('v1.16.6');
      k.spec.machineTemplate.spec.readinessGates = [{ conditionType: 'Bar' }];
      expect(newMachine(k).spec.readinessGates).toEqual([...MANDATORY, ...ETCD, { conditionType: 'Bar' }]);
    });

    it('drops KCP gates that repeat a mandatory one (first wins) and leaves out the etcd gates for external etcd', () => {
      const k = templated('v1.16.6');
      k.spec.machineTemplate.spec.readinessGates = [
        { conditionType: 'APIServerPodHealthy', polarity: 'Negative' },
        { conditionType: 'Foo' },
        { conditionType: 'Foo', polarity: 'Negative' },
      ];
      (k.spec.kubeadmConfigSpec!.clusterConfiguration as Record<string, unknown>).etcd = {
        external: { endpoints: ['https://etcd:2379'] },
      };
      expect(newMachine(k).spec.readinessGates).toEqual([...MANDATORY, { conditionType: 'Foo' }]);
    });

    it('should return the correct Machine object when creating a new Machine with taints', () => {
      const k = templated('v1.16.6');
      k.spec.machineTemplate.spec.taints = [
        { key: 'foo', effect: 'NoSchedule', propagation: 'Always' },
        { key: 'bar', effect: 'NoExecute', propagation: 'OnInitialization' },
      ];
      expect(newMachine(k).spec.taints).toEqual(k.spec.machineTemplate.spec.taints);
    });

    it('should return the correct Machine object when updating an existing Machine (gates included)', () => {
      const k = templated('v1.16.6');
      k.spec.machineTemplate.spec.readinessGates = [{ conditionType: 'Foo' }];
      const existing = machine('existing-machine', { version: 'v1.25.3' });
      existing.spec.readinessGates = [{ conditionType: 'Foo' }];
      const m = computeDesiredMachine({ kcp: k, clusterName: CLUSTER, existing });
      expect(m.spec.version).toBe('v1.25.3');
      expect(m.spec.readinessGates).toEqual([...MANDATORY, ...ETCD, { conditionType: 'Foo' }]);
    });

    it('formats a control-plane-name label value longer than 63 characters (MustFormatValue)', () => {
      const k = templated();
      k.metadata.name = 'k'.repeat(70);
      expect(controlPlaneMachineLabels(k, CLUSTER)['cluster.x-k8s.io/control-plane-name']).toMatch(/^hash_.{6}_z$/);
    });
  });

  describe('Test_ComputeDesiredKubeadmConfig', () => {
    const base = () => {
      const k = kcp({ version: 'v1.31.0' });
      k.spec.kubeadmConfigSpec = {
        initConfiguration: { nodeRegistration: { kubeletExtraArgs: [{ name: 'v', value: '4' }] } },
        joinConfiguration: { nodeRegistration: { kubeletExtraArgs: [{ name: 'v', value: '8' }] } },
      } as never;
      return k;
    };
    it.each([true, false])(
      'isJoin=%s: the defaulted feature gates, the KCP owner until a Machine owns it',
      (isJoin) => {
        const k = base();
        const config = computeDesiredKubeadmConfig(k, CLUSTER, isJoin, 'machine-1');
        const spec = config.spec as Record<string, unknown>;
        expect(spec.clusterConfiguration).toEqual({ featureGates: { ControlPlaneKubeletLocalMode: true } });
        if (isJoin) {
          expect(spec.initConfiguration).toBeUndefined();
          expect(spec.joinConfiguration).toEqual({
            nodeRegistration: { kubeletExtraArgs: [{ name: 'v', value: '8' }] },
            controlPlane: {},
          });
        } else {
          expect(spec.initConfiguration).toEqual({
            nodeRegistration: { kubeletExtraArgs: [{ name: 'v', value: '4' }] },
          });
          expect(spec.joinConfiguration).toBeUndefined();
        }
        expect(config.metadata.ownerReferences).toEqual([
          {
            apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
            kind: 'KubeadmControlPlane',
            name: 'cp',
            uid: 'kcp-uid',
          },
        ]);
        const owned = computeDesiredKubeadmConfig(k, CLUSTER, isJoin, 'machine-1', {
          ...config,
          metadata: {
            ...config.metadata,
            ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'machine-1', uid: '' }],
          },
        });
        expect(owned.metadata.ownerReferences).toBeUndefined();
        // The KCP is not modified.
        expect(k.spec.kubeadmConfigSpec).toEqual(base().spec.kubeadmConfigSpec);
      },
    );

    it('fails with a clear error when the KCP version cannot be parsed', () => {
      expect(() => computeDesiredKubeadmConfig(kcp({ version: 'vx' }), CLUSTER, true, 'm')).toThrow(
        'failed to compute desired KubeadmConfig: failed to parse Kubernetes version "vx"',
      );
    });
  });

  describe('Test_ComputeDesiredInfraMachine', () => {
    const template = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'GenericInfrastructureMachineTemplate',
      metadata: { name: 'infra-machine-template-1', namespace: 'default' },
      spec: { template: { spec: { hello: 'world' } } },
    };
    const k = () => {
      const x = kcp();
      x.spec.machineTemplate.spec.infrastructureRef = {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'GenericInfrastructureMachineTemplate',
        name: 'infra-machine-template-1',
      };
      return x;
    };
    const expected = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'GenericInfrastructureMachine',
      metadata: {
        name: 'machine-1',
        namespace: 'default',
        labels: {
          'cluster.x-k8s.io/cluster-name': CLUSTER,
          'cluster.x-k8s.io/control-plane': '',
          'cluster.x-k8s.io/control-plane-name': 'cp',
        },
        annotations: {
          'cluster.x-k8s.io/cloned-from-name': 'infra-machine-template-1',
          'cluster.x-k8s.io/cloned-from-groupkind':
            'GenericInfrastructureMachineTemplate.infrastructure.cluster.x-k8s.io',
        },
      },
      spec: { hello: 'world' },
    };
    it('a new InfraMachine has the KCP owner; one a Machine owns gets none', () => {
      const infra = computeDesiredInfraMachine(k(), CLUSTER, template, 'machine-1');
      expect(infra).toEqual({
        ...expected,
        metadata: {
          ...expected.metadata,
          ownerReferences: [
            {
              apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
              kind: 'KubeadmControlPlane',
              name: 'cp',
              uid: 'kcp-uid',
            },
          ],
        },
      });
      const owned = computeDesiredInfraMachine(k(), CLUSTER, template, 'machine-1', {
        ...expected,
        metadata: {
          ...expected.metadata,
          ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'machine-1', uid: '' }],
        },
      });
      expect(owned).toEqual(expected);
    });

    it('tolerates a template without spec.template (upstream external.GenerateTemplate)', () => {
      const infra = computeDesiredInfraMachine(k(), CLUSTER, { ...template, spec: {} }, 'machine-1');
      expect(infra.kind).toBe('GenericInfrastructureMachine');
      expect(infra.spec).toBeUndefined();
      expect(infra.metadata.annotations).toEqual(expected.metadata.annotations);
    });
  });

  describe('TestDefaultFeatureGates', () => {
    const gate = 'ControlPlaneKubeletLocalMode';
    it.each([
      [
        "don't default ControlPlaneKubeletLocalMode for 1.30",
        'v1.30.99',
        { EtcdLearnerMode: true },
        { EtcdLearnerMode: true },
      ],
      ['default ControlPlaneKubeletLocalMode for 1.31 (no feature gates)', 'v1.31.0', undefined, { [gate]: true }],
      ['default ControlPlaneKubeletLocalMode for 1.31 (empty feature gates)', 'v1.31.0', {}, { [gate]: true }],
      [
        'default ControlPlaneKubeletLocalMode for 1.31 (other feature gates)',
        'v1.31.0',
        { EtcdLearnerMode: true },
        { [gate]: true, EtcdLearnerMode: true },
      ],
      [
        "don't default ControlPlaneKubeletLocalMode for 1.31 if already set to false",
        'v1.31.0',
        { [gate]: false },
        { [gate]: false },
      ],
      ['default ControlPlaneKubeletLocalMode for a 1.35 pre-release', 'v1.35.0-rc.1', undefined, { [gate]: true }],
      ["don't default ControlPlaneKubeletLocalMode from 1.36 (GA)", 'v1.36.0', undefined, undefined],
      ["don't default ControlPlaneKubeletLocalMode for a 1.36 pre-release", 'v1.36.0-alpha.0', undefined, undefined],
    ])('%s', (_, version, featureGates, want) => {
      const spec: KubeadmConfigSpec = { clusterConfiguration: featureGates ? { featureGates } : {} };
      defaultKubeadmConfigFeatureGates(spec, version);
      expect((spec.clusterConfiguration as { featureGates?: unknown }).featureGates).toEqual(want);
    });
  });
});
