import { labelSelectorAsSelector } from '@capi/apimachinery';
import {
  computeDesiredMachine,
  desiredMachineInputsKey,
  selectorProblem,
  formatLabelValue,
  generateMachineName,
  kindFromTemplateKind,
  objectFromTemplate,
  TemplateError,
} from './desired';
import { machine, machineSet } from '../testing/fixtures';

describe('desiredMachineInputsKey (syncMachines intent memo)', () => {
  const base = () => machineSet('md-abc', { version: 'v1.31.0' });
  // Every change of the MS that changes the desired Machine must change the key (else a stale intent is taken for
  // applied); changes it does not read must not (else the memo never hits).
  const changes: [string, (ms: ReturnType<typeof base>) => void][] = [
    [
      'template label',
      (ms) => {
        ms.spec.template.metadata = {
          ...ms.spec.template.metadata,
          labels: { ...ms.spec.template.metadata?.labels, extra: 'x' },
        };
      },
    ],
    [
      'template annotation',
      (ms) => {
        ms.spec.template.metadata = { ...ms.spec.template.metadata, annotations: { a: 'b' } };
      },
    ],
    [
      'template spec',
      (ms) => {
        ms.spec.template.spec.minReadySeconds = 9;
      },
    ],
    [
      'clusterName',
      (ms) => {
        ms.spec.clusterName = 'c2';
      },
    ],
    [
      'deployment-name label',
      (ms) => {
        ms.metadata.labels = { ...ms.metadata.labels, 'cluster.x-k8s.io/deployment-name': 'md2' };
      },
    ],
    [
      'uid',
      (ms) => {
        ms.metadata.uid = 'other';
      },
    ],
    [
      'name',
      (ms) => {
        ms.metadata.name = 'md-abd';
      },
    ],
    [
      'namespace',
      (ms) => {
        ms.metadata.namespace = 'ns2';
      },
    ],
  ];
  it.each(changes)('changes with the desired Machine: %s', (_what, change) => {
    const changed = base();
    change(changed);
    const existing = machine('m1', { version: 'v1.30.0' });
    expect(computeDesiredMachine(changed, existing)).not.toEqual(computeDesiredMachine(base(), existing));
    expect(desiredMachineInputsKey(changed)).not.toBe(desiredMachineInputsKey(base()));
  });
  it('stays for what the desired Machine does not read (replicas, status, other annotations)', () => {
    const changed = base();
    changed.spec.replicas = 7;
    changed.metadata.generation = 5;
    changed.metadata.annotations = { 'machinedeployment.clusters.x-k8s.io/revision': '3' };
    changed.status = { replicas: 2 };
    const existing = machine('m1');
    expect(computeDesiredMachine(changed, existing)).toEqual(computeDesiredMachine(base(), existing));
    expect(desiredMachineInputsKey(changed)).toBe(desiredMachineInputsKey(base()));
  });
});

describe('computeDesiredMachine', () => {
  const ms = machineSet('md-abc', { version: 'v1.31.0' });
  it('builds a new Machine from the MS template with the MS as controller owner', () => {
    const m = computeDesiredMachine(ms, undefined, 'md-abc-xyz12');
    expect(m.metadata).toMatchObject({
      name: 'md-abc-xyz12',
      namespace: 'ns',
      labels: {
        'cluster.x-k8s.io/deployment-name': 'md',
        'machine-template-hash': 'md-abc',
        'cluster.x-k8s.io/set-name': 'md-abc',
        'cluster.x-k8s.io/cluster-name': 'c1',
      },
      ownerReferences: [{ kind: 'MachineSet', name: 'md-abc', uid: 'uid-md-abc', controller: true }],
    });
    expect(m.spec.version).toBe('v1.31.0');
    expect(m.spec.clusterName).toBe('c1');
  });
  it('keeps name, uid, the references, version and failureDomain of an existing Machine, taking the rest from the template', () => {
    const existing = machine('m1', { version: 'v1.30.0' });
    existing.spec.bootstrap = {
      configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'm1' },
    };
    existing.spec.failureDomain = 'fd-a';
    const withTemplate = machineSet('md-abc', { version: 'v1.31.0' });
    withTemplate.spec.template.spec.failureDomain = 'fd-b';
    withTemplate.spec.template.spec.minReadySeconds = 7;
    const m = computeDesiredMachine(withTemplate, existing);
    expect(m.metadata.name).toBe('m1');
    expect(m.metadata.uid).toBe('uid-m1');
    expect(m.spec.infrastructureRef).toEqual({
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'TestMachine',
      name: 'm1',
    });
    expect(m.spec.bootstrap.configRef?.name).toBe('m1');
    // Not in-place mutable by syncMachines: only a new Machine or an in-place update changes them.
    expect(m.spec.version).toBe('v1.30.0');
    expect(m.spec.failureDomain).toBe('fd-a');
    expect(m.spec.minReadySeconds).toBe(7);
  });
  // Upstream machineset_controller_test.go TestComputeDesiredMachine: expectedNewMachine / expectedUpdatedMachine.
  it('creates a new Machine with the Machine finalizer', () => {
    expect(computeDesiredMachine(ms, undefined, 'md-abc-xyz12').metadata.finalizers).toEqual([
      'machine.cluster.x-k8s.io',
    ]);
  });
  it("keeps an existing Machine's finalizers and adds the Machine finalizer after them", () => {
    const existing = machine('m1');
    existing.metadata.finalizers = ['pre-existing-finalizer'];
    expect(computeDesiredMachine(ms, existing).metadata.finalizers).toEqual([
      'pre-existing-finalizer',
      'machine.cluster.x-k8s.io',
    ]);
  });
  it('does not repeat the Machine finalizer an existing Machine has', () => {
    const existing = machine('m1');
    existing.metadata.finalizers = ['machine.cluster.x-k8s.io', 'foregroundDeletion'];
    expect(computeDesiredMachine(ms, existing).metadata.finalizers).toEqual([
      'machine.cluster.x-k8s.io',
      'foregroundDeletion',
    ]);
  });
  it('leaves version and failureDomain out when the existing Machine has none', () => {
    const m = computeDesiredMachine(ms, machine('m1'));
    expect('version' in m.spec).toBe(false);
    expect('failureDomain' in m.spec).toBe(false);
  });
  it("never points an existing Machine at the template's bootstrap configRef", () => {
    const withConfig = machineSet('md-abc');
    withConfig.spec.template.spec.bootstrap = {
      configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'kct' },
    };
    expect(computeDesiredMachine(withConfig, machine('m1')).spec.bootstrap.configRef).toBeUndefined();
  });
});

describe('objectFromTemplate', () => {
  const template = {
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfigTemplate',
    metadata: { name: 'kct', namespace: 'ns' },
    spec: {
      template: { metadata: { labels: { t: '1' }, annotations: { ta: 'x' } }, spec: { files: [{ path: '/a' }] } },
    },
  };
  it('clones spec.template.spec into <Kind> with cloned-from annotations and the owner', () => {
    const obj = objectFromTemplate({
      template,
      name: 'm1',
      namespace: 'ns',
      clusterName: 'c1',
      labels: { l: '2' },
      annotations: { a: '3' },
      ownerRef: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'ms', uid: 'u' },
    });
    expect(obj).toEqual({
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfig',
      metadata: {
        name: 'm1',
        namespace: 'ns',
        labels: { t: '1', l: '2', 'cluster.x-k8s.io/cluster-name': 'c1' },
        annotations: {
          ta: 'x',
          a: '3',
          'cluster.x-k8s.io/cloned-from-name': 'kct',
          'cluster.x-k8s.io/cloned-from-groupkind': 'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io',
        },
        ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'ms', uid: 'u' }],
      },
      spec: { files: [{ path: '/a' }] },
    });
  });
  it('rejects templates without spec.template and kinds not ending in Template', () => {
    expect(() =>
      objectFromTemplate({
        template: { ...template, spec: {} },
        name: 'x',
        namespace: 'ns',
        clusterName: 'c',
        ownerRef: { apiVersion: 'v', kind: 'k', name: 'n', uid: 'u' },
      }),
    ).toThrow(TemplateError);
    expect(() => kindFromTemplateKind('TestMachine')).toThrow('does not end with "Template"');
    expect(kindFromTemplateKind('InMemoryMachineTemplate')).toBe('InMemoryMachine');
  });
});

describe('names', () => {
  it('formatLabelValue hashes values that are not label values as upstream format.MustFormatValue', () => {
    expect(formatLabelValue('short')).toBe('short');
    const long = formatLabelValue('y'.repeat(70));
    expect(long).toMatch(/^hash_[A-Za-z0-9_-]+_z$/);
    expect(long.length).toBeLessThanOrEqual(63);
  });
});

// Upstream TestComputeDesiredMachine (core/reconcilers/machineset/machineset_controller_test.go), the naming cases.
describe('generateMachineName (spec.machineNaming.template)', () => {
  const withTemplate = (template?: string) => {
    const ms = machineSet('ms1');
    if (template !== undefined) ms.spec.machineNaming = { template };
    return ms;
  };
  it('uses the template: "{{ .machineSet.name }}test-{{ .random }}"', () => {
    const name = generateMachineName(withTemplate('{{ .machineSet.name }}test-{{ .random }}'));
    expect(name).toMatch(/^ms1test-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
  it('refuses a template without {{ .random }}', () => {
    expect(() => generateMachineName(withTemplate('{{ .machineSet.name }}test'))).toThrow(
      new TemplateError('cannot generate Machine name: {{ .random }} is missing in machineNaming.template'),
    );
  });
  it('cuts a generated name over 63 characters to 58 and appends 5 random characters', () => {
    const name = generateMachineName(withTemplate('{{ .random }}' + '0'.repeat(59)));
    expect(name).toHaveLength(63);
    expect(name).toContain('0'.repeat(53));
    expect(name.endsWith('00000')).toBe(false);
  });
  it('refuses a template naming data that does not exist, with the reason MachineCreationFailed', () => {
    const ms = withTemplate('some-hardcoded-name-{{ .doesnotexistindata }}-{{ .random }}');
    expect(() => generateMachineName(ms)).toThrow(/failed to generate Machine name: .*doesnotexistindata/);
    try {
      generateMachineName(ms);
    } catch (e) {
      expect((e as TemplateError).reason).toBe('MachineCreationFailed');
    }
  });
  it('defaults to "{{ .machineSet.name }}-{{ .random }}", long MachineSet names cut to 63 characters', () => {
    expect(generateMachineName(withTemplate(), () => 0)).toBe('ms1-bbbbb');
    const long = machineSet('x'.repeat(80));
    expect(generateMachineName(long)).toHaveLength(63);
  });
});

describe('selectorProblem', () => {
  it('refuses empty selectors and selectors that do not match the Machine labels', () => {
    const ms = machineSet('md-abc');
    expect(selectorProblem(ms, labelSelectorAsSelector(ms.spec.selector))).toBeUndefined();
    expect(selectorProblem(ms, labelSelectorAsSelector({}))).toContain('empty spec.selector');
    expect(selectorProblem(ms, labelSelectorAsSelector({ matchLabels: { other: 'x' } }))).toContain(
      'does not match the labels of its Machines',
    );
  });
});
