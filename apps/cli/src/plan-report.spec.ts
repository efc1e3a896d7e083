import { readPlanFile } from './rollout-plan';
import { formatFirstStep, formatOutcome, simulationInput } from './plan-report';

describe('rollout plan report', () => {
  it('says per Machine in place by which updaters, or replaced because of which fields', () => {
    expect(formatOutcome({ machine: 'm1', machineSet: 'ms', outcome: { type: 'inPlace', updaters: ['a', 'b'] } })).toBe(
      'Machine m1 (MachineSet ms): in place by a, b',
    );
    expect(
      formatOutcome({
        machine: 'm1',
        machineSet: 'ms',
        outcome: { type: 'replaced', reasons: ['Machine cannot be updated in-place: version'] },
      }),
    ).toBe('Machine m1 (MachineSet ms): replaced because Machine cannot be updated in-place: version');
  });

  it('prints the first step per MachineSet', () => {
    expect(
      formatFirstStep({
        machineSets: [
          { name: 'old', current: 2, planned: 1, isNew: false, created: false, notes: ['scale down'] },
          { name: 'new', current: 0, planned: 0, isNew: true, created: true, notes: [] },
        ],
      }),
    ).toEqual(['old MachineSet old: replicas 2 → 1 (scale down)', 'new MachineSet (to create) new: replicas 0']);
  });

  it('maps the real MachineSets and Machines to the simulation names, with a legend', () => {
    const { initial, legend } = simulationInput([
      { name: 'md-old', replicas: 2, machines: ['x', 'y'], upToDate: false },
      { name: 'md-new', replicas: 1, machines: ['z'], upToDate: true },
    ]);
    expect(initial).toEqual([
      { name: 'ms1', failureDomain: 'v1', replicas: 2, machines: ['m1', 'm2'] },
      { name: 'ms2', failureDomain: 'v2', replicas: 1, machines: ['m3'] },
    ]);
    expect(legend[0]).toBe('ms1 = MachineSet md-old');
    expect(legend[legend.length - 1]).toBe('ms3 and later, m4 and later = created during the rollout');
  });
});

describe('readPlanFile', () => {
  const read = (text: string) => () => readPlanFile('f.yaml', () => text);

  it('accepts one MachineDeployment or KubeadmControlPlane, YAML or JSON', () => {
    expect(
      read('apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata: {name: md}\n')(),
    ).toMatchObject({ kind: 'MachineDeployment' });
    expect(
      read(
        '{"apiVersion":"controlplane.cluster.x-k8s.io/v1beta2","kind":"KubeadmControlPlane","metadata":{"name":"cp"}}',
      )(),
    ).toMatchObject({
      kind: 'KubeadmControlPlane',
    });
  });

  it.each([
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n',
      'f.yaml is not a MachineDeployment or KubeadmControlPlane (found kind ConfigMap v1)',
    ],
    ['apiVersion: apps/v1\nkind: MachineDeployment\nmetadata: {name: x}\n', 'found kind MachineDeployment apps/v1'],
    ['just text', 'found no kind'],
    ['a: [1\n', 'f.yaml is not valid YAML or JSON'],
    ['', 'f.yaml must hold one MachineDeployment or KubeadmControlPlane, it holds 0 documents'],
    [
      'kind: MachineDeployment\napiVersion: cluster.x-k8s.io/v1beta2\nmetadata: {name: a}\n---\nkind: X\n',
      'it holds 2 documents',
    ],
    ['kind: MachineDeployment\napiVersion: cluster.x-k8s.io/v1beta2\n', 'the MachineDeployment has no metadata.name'],
  ])('%j is one error', (text, message) => {
    expect(read(text)).toThrow(message);
  });
});
