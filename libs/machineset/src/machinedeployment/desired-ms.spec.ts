import { computeDesiredMachineSet, computeTemplateHash, machineSetApplyIntent } from './desired-ms';
import { machineDeployment, machineSet } from '../testing/fixtures';

describe('computeDesiredMachineSet', () => {
  it('creates <md>-<hash> with the hash in name, labels, selector and template labels, owned by the MD', () => {
    const md = machineDeployment({ version: 'v1.31.0' });
    const ms = computeDesiredMachineSet(md, undefined);
    const hash = computeTemplateHash(md.spec.template);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(ms.metadata.name).toBe(`md-${hash}`);
    expect(ms.metadata.labels).toMatchObject({
      'machine-template-hash': hash,
      'cluster.x-k8s.io/deployment-name': 'md',
      'cluster.x-k8s.io/cluster-name': 'c1',
    });
    expect(ms.spec.selector.matchLabels).toEqual({
      'cluster.x-k8s.io/deployment-name': 'md',
      'machine-template-hash': hash,
    });
    expect(ms.spec.template.metadata?.labels?.['machine-template-hash']).toBe(hash);
    expect(ms.spec.template.spec.version).toBe('v1.31.0');
    expect(ms.spec.replicas).toBe(0);
    expect(ms.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'MachineDeployment', name: 'md', uid: 'uid-md', controller: true }),
    ]);
  });

  it('gives a different name to a different template and avoids names already taken', () => {
    const a = computeDesiredMachineSet(machineDeployment({ version: 'v1.30.0' }), undefined);
    const b = computeDesiredMachineSet(machineDeployment({ version: 'v1.31.0' }), undefined);
    expect(a.metadata.name).not.toBe(b.metadata.name);
    const again = computeDesiredMachineSet(
      machineDeployment({ version: 'v1.30.0' }),
      undefined,
      new Set([a.metadata.name!]),
    );
    expect(again.metadata.name).not.toBe(a.metadata.name);
    expect(again.spec.selector.matchLabels?.['machine-template-hash']).toBe(again.metadata.name!.slice('md-'.length));
  });

  it('keeps an existing MS (and its hash) but drops the planner-managed move annotations and propagates in-place fields', () => {
    const md = machineDeployment();
    md.spec.template.metadata = {
      labels: { ...md.spec.template.metadata?.labels, team: 'a' },
      annotations: { note: 'x' },
    };
    md.spec.template.spec.minReadySeconds = 10;
    const current = machineSet('md-old', {
      hash: 'old',
      annotations: {
        'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset': 'md-new',
        'in-place-updates.internal.cluster.x-k8s.io/acknowledged-move': 'm1',
        'machinedeployment.clusters.x-k8s.io/revision': '1',
      },
    });
    const ms = computeDesiredMachineSet(md, current);
    expect(ms.metadata.name).toBe('md-old');
    // The revision is the planner's (carried over for old MachineSets), not computeDesiredMachineSet's.
    expect(ms.metadata.annotations).toEqual({
      'machinedeployment.clusters.x-k8s.io/desired-replicas': '3',
      'machinedeployment.clusters.x-k8s.io/max-replicas': '4',
    });
    expect(ms.spec.template.metadata).toEqual({
      labels: { 'cluster.x-k8s.io/deployment-name': 'md', team: 'a', 'machine-template-hash': 'old' },
      annotations: { note: 'x' },
    });
    expect(ms.spec.template.spec.minReadySeconds).toBe(10);
    expect(current.metadata.annotations).toHaveProperty([
      'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset',
    ]);
  });

  // Upstream TestComputeDesiredMS (core/reconcilers/machinedeployment/machinedeployment_rollout_planner_test.go).
  describe('as upstream computeDesiredMS', () => {
    const md = machineDeployment();
    md.metadata.annotations = {
      'top-level-annotation': 'top-level-annotation-value',
      // Not propagated (upstream mdutil annotationsToSkip).
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'machinedeployment.clusters.x-k8s.io/revision': '5',
      'machinedeployment.clusters.x-k8s.io/revision-history': '1,3',
      'machinedeployment.clusters.x-k8s.io/desired-replicas': '99',
      'machinedeployment.clusters.x-k8s.io/max-replicas': '99',
      'cluster.x-k8s.io/conversion-data': '{}',
    };
    md.spec.deletion = { order: 'Random' };
    md.spec.machineNaming = { template: '{{ .machineSet.name }}test-{{ .random }}' };
    md.spec.template.metadata = {
      labels: { 'cluster.x-k8s.io/deployment-name': 'md', 'machine-label1': 'machine-value1' },
      annotations: { 'machine-annotation1': 'machine-value1' },
    };
    Object.assign(md.spec.template.spec, {
      minReadySeconds: 3,
      readinessGates: [{ conditionType: 'foo' }],
      deletion: { nodeDrainTimeoutSeconds: 10, nodeVolumeDetachTimeoutSeconds: 10, nodeDeletionTimeoutSeconds: 10 },
      taints: [{ key: 'taint-key', value: 'taint-value', effect: 'NoSchedule', propagation: 'Always' }],
    });
    const mdAnnotations = {
      'top-level-annotation': 'top-level-annotation-value',
      'machinedeployment.clusters.x-k8s.io/desired-replicas': '3',
      'machinedeployment.clusters.x-k8s.io/max-replicas': '4', // 3 replicas + maxSurge 1
    };

    it('should compute a new MachineSet when current MS is nil', () => {
      const ms = computeDesiredMachineSet(md, undefined);
      const hash = ms.metadata.labels?.['machine-template-hash'];
      expect(ms.metadata.annotations).toEqual(mdAnnotations);
      expect(ms.metadata.labels).toEqual({
        'cluster.x-k8s.io/deployment-name': 'md',
        'machine-label1': 'machine-value1',
        'machine-template-hash': hash,
        'cluster.x-k8s.io/cluster-name': 'c1',
      });
      expect(ms.spec.replicas).toBe(0);
      expect(ms.spec.deletion).toEqual({ order: 'Random' });
      expect(ms.spec.machineNaming).toEqual({ template: '{{ .machineSet.name }}test-{{ .random }}' });
      expect(ms.spec.template.metadata?.annotations).toEqual({ 'machine-annotation1': 'machine-value1' });
      expect(ms.spec.template.spec).toEqual(md.spec.template.spec);
    });

    it('should compute the updated MachineSet when current MS is not nil', () => {
      const current = machineSet('foo', { hash: '123', replicas: 1, order: 'Oldest' });
      current.metadata.finalizers = ['pre-existing-finalizer'];
      current.metadata.labels = { 'machine-template-hash': '123', foo: 'bar' };
      current.metadata.annotations = { foo: 'bar' };
      current.spec.machineNaming = { template: 'foo' };
      current.spec.template.metadata = { labels: { foo: 'machine-value1' }, annotations: { foo: 'machine-value1' } };
      Object.assign(current.spec.template.spec, {
        version: 'foo',
        minReadySeconds: 5,
        readinessGates: [{ conditionType: 'bar' }],
        deletion: {},
      });
      const ms = computeDesiredMachineSet(md, current);
      // Carried over from the current MS.
      expect(ms.metadata).toMatchObject({ name: 'foo', uid: 'uid-foo', finalizers: ['pre-existing-finalizer'] });
      expect(ms.spec.replicas).toBe(1);
      expect(ms.spec.template.spec.version).toBe('foo');
      // Inferred from the MD: unknown labels and annotations of the current MS are not part of the desired state.
      expect(ms.metadata.labels).toEqual({
        'cluster.x-k8s.io/deployment-name': 'md',
        'machine-label1': 'machine-value1',
        'machine-template-hash': '123',
        'cluster.x-k8s.io/cluster-name': 'c1',
      });
      expect(ms.metadata.annotations).toEqual(mdAnnotations);
      expect(ms.spec.deletion).toEqual({ order: 'Random' });
      expect(ms.spec.machineNaming).toEqual(md.spec.machineNaming);
      expect(ms.spec.template.metadata).toEqual({
        labels: {
          'cluster.x-k8s.io/deployment-name': 'md',
          'machine-label1': 'machine-value1',
          'machine-template-hash': '123',
        },
        annotations: { 'machine-annotation1': 'machine-value1' },
      });
      for (const field of ['minReadySeconds', 'readinessGates', 'deletion', 'taints'] as const)
        expect(ms.spec.template.spec[field]).toEqual(md.spec.template.spec[field]);
    });

    it('drops machineNaming and the deletion order from an existing MS when the MD no longer sets them', () => {
      const current = machineSet('foo', { hash: '123', order: 'Oldest' });
      current.spec.machineNaming = { template: 'foo-{{ .random }}' };
      const ms = computeDesiredMachineSet(machineDeployment(), current);
      expect(ms.spec.machineNaming).toBeUndefined();
      expect(ms.spec.deletion).toBeUndefined();
    });

    it('max-replicas is spec.replicas (no surge) for OnDelete', () => {
      const onDelete = machineDeployment({ replicas: 2 });
      onDelete.spec.rollout = { strategy: { type: 'OnDelete' } };
      expect(computeDesiredMachineSet(onDelete, undefined).metadata.annotations).toEqual({
        'machinedeployment.clusters.x-k8s.io/desired-replicas': '2',
        'machinedeployment.clusters.x-k8s.io/max-replicas': '2',
      });
    });
  });

  it('apply intents carry the planned replicas and no status', () => {
    const intent = machineSetApplyIntent({ ...machineSet('ms'), status: { replicas: 3 } }, 5);
    expect(intent.spec.replicas).toBe(5);
    expect(intent.status).toBeUndefined();
  });
});
