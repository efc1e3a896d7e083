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
    expect(ms.metadata.annotations).toEqual({ 'machinedeployment.clusters.x-k8s.io/revision': '1' });
    expect(ms.spec.template.metadata).toEqual({
      labels: { 'cluster.x-k8s.io/deployment-name': 'md', team: 'a', 'machine-template-hash': 'old' },
      annotations: { note: 'x' },
    });
    expect(ms.spec.template.spec.minReadySeconds).toBe(10);
    expect(current.metadata.annotations).toHaveProperty([
      'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset',
    ]);
  });

  it('apply intents carry the planned replicas and no status', () => {
    const intent = machineSetApplyIntent({ ...machineSet('ms'), status: { replicas: 3 } }, 5);
    expect(intent.spec.replicas).toBe(5);
    expect(intent.status).toBeUndefined();
  });
});
