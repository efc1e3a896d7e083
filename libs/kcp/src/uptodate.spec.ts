import { upToDate, type UpToDateInput } from './uptodate';
import { CLUSTER, infraMachine, infraTemplate, kcp, kubeadmConfig, machine } from './testing/fixtures';

const NOW = new Date('2026-06-01T00:00:00Z');

function input(over: Partial<UpToDateInput> = {}): UpToDateInput {
  const k = over.kcp ?? kcp();
  return {
    kcp: k,
    clusterName: CLUSTER,
    machine: machine('m1'),
    kubeadmConfig: kubeadmConfig('m1', k),
    infraMachine: infraMachine('m1'),
    infraTemplate: infraTemplate('tmpl-a'),
    now: NOW,
    ...over,
  };
}

describe('upToDate', () => {
  it('is up-to-date when version, KubeadmConfig and infra template all match (join Machine)', () => {
    const r = upToDate(input());
    expect(r.upToDate).toBe(true);
    expect(r.result.logMessages).toEqual([]);
    expect(r.result.eligibleForInPlaceUpdate).toBe(false);
  });

  it('is up-to-date for the first Machine whose KubeadmConfig has initConfiguration', () => {
    const k = kcp();
    expect(upToDate(input({ kcp: k, kubeadmConfig: kubeadmConfig('m1', k, { init: true }) })).upToDate).toBe(true);
  });

  it('detects a version change, eligible for in-place, with desired Machine at the KCP version', () => {
    const r = upToDate(input({ kcp: kcp({ version: 'v1.30.1' }) }));
    expect(r.upToDate).toBe(false);
    expect(r.result.conditionMessages).toEqual(['Version v1.30.0, v1.30.1 required']);
    expect(r.result.logMessages[0]).toBe('Machine version "v1.30.0" is not equal to KCP version "v1.30.1"');
    expect(r.result.eligibleForInPlaceUpdate).toBe(true);
    expect(r.result.desiredMachine.spec.version).toBe('v1.30.1');
    expect(r.result.desiredMachine.metadata.name).toBe('m1');
    expect(r.result.currentMachine.spec.version).toBe('v1.30.0');
  });

  it('an upgrade to 1.31 also changes the KubeadmConfig: KCP defaults ControlPlaneKubeletLocalMode (upstream DefaultFeatureGates)', () => {
    const r = upToDate(input({ kcp: kcp({ version: 'v1.31.0' }) }));
    expect(r.result.conditionMessages).toEqual([
      'Version v1.30.0, v1.31.0 required',
      'KubeadmConfig is not up-to-date',
    ]);
    expect(r.result.logMessages[1]).toContain('ControlPlaneKubeletLocalMode');
    expect(
      (r.result.desiredKubeadmConfig?.spec.clusterConfiguration as { featureGates?: object }).featureGates,
    ).toEqual({ ControlPlaneKubeletLocalMode: true });
    expect(r.result.desiredMachine.metadata.name).toBe('m1');
    expect(r.result.desiredMachine.spec.infrastructureRef.name).toBe('m1');
    expect(r.result.currentMachine.spec.version).toBe('v1.30.0');
  });

  it('detects a ClusterConfiguration change through the KubeadmConfig (no Machine annotation involved)', () => {
    const base = kcp();
    const changed = kcp({
      kubeadmConfigSpec: {
        ...base.spec.kubeadmConfigSpec,
        clusterConfiguration: { etcd: { local: { imageTag: '3.5.9' } } },
      },
    });
    const r = upToDate(input({ kcp: changed, kubeadmConfig: kubeadmConfig('m1', base) }));
    expect(r.upToDate).toBe(false);
    expect(r.result.conditionMessages).toEqual(['KubeadmConfig is not up-to-date']);
    expect(r.result.logMessages[0]).toBe(
      'Machine KubeadmConfig is outdated: diff: clusterConfiguration.etcd.local.imageTag: "3.5.0" → "3.5.9"',
    );
    expect(r.result.desiredKubeadmConfig?.spec.clusterConfiguration).toEqual({
      etcd: { local: { imageTag: '3.5.9' } },
    });
  });

  it('ignores controlPlaneEndpoint and dns in the Machine ClusterConfiguration, and empty lists vs unset', () => {
    const k = kcp();
    const kc = kubeadmConfig('m1', k);
    kc.spec.clusterConfiguration = {
      etcd: { local: { imageTag: '3.5.0' } },
      controlPlaneEndpoint: '10.0.0.1:6443',
      dns: { imageTag: 'x' },
    };
    expect(upToDate(input({ kcp: k, kubeadmConfig: kc })).upToDate).toBe(true);
  });

  it('detects a joinConfiguration change, and ignores join discovery', () => {
    const base = kcp();
    const kc = kubeadmConfig('m1', base);
    (kc.spec.joinConfiguration as Record<string, unknown>).discovery = { bootstrapToken: { token: 'abc' } };
    expect(upToDate(input({ kcp: base, kubeadmConfig: kc })).upToDate).toBe(true);

    const changed = kcp({
      kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, joinConfiguration: { nodeRegistration: { name: 'other' } } },
    });
    const r = upToDate(input({ kcp: changed, kubeadmConfig: kc }));
    expect(r.upToDate).toBe(false);
    expect(r.result.logMessages[0]).toContain('Machine KubeadmConfig is outdated: diff: ');
    expect(r.result.logMessages[0]).toContain('joinConfiguration.nodeRegistration.name');
  });

  it('init Machine: compared as join first, then with the init configuration KCP would create (upstream matchesKubeadmConfig)', () => {
    const base = kcp();
    const initMachine = kubeadmConfig('m1', base, { init: true });
    // initConfiguration alone changed: the init Machine still matches the (unchanged) join configuration.
    const initOnly = kcp({
      kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, initConfiguration: { nodeRegistration: { name: 'other' } } },
    });
    expect(upToDate(input({ kcp: initOnly, kubeadmConfig: initMachine })).upToDate).toBe(true);
    expect(upToDate(input({ kcp: initOnly, kubeadmConfig: kubeadmConfig('m1', base) })).upToDate).toBe(true);
    // joinConfiguration alone changed: the init Machine still matches the init configuration.
    const joinOnly = kcp({
      kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, joinConfiguration: { nodeRegistration: { name: 'other' } } },
    });
    expect(upToDate(input({ kcp: joinOnly, kubeadmConfig: initMachine })).upToDate).toBe(true);
    // Both changed: outdated, with the diff against the init configuration.
    const both = kcp({
      kubeadmConfigSpec: {
        ...base.spec.kubeadmConfigSpec,
        initConfiguration: { nodeRegistration: { name: 'other' } },
        joinConfiguration: { nodeRegistration: { name: 'other' } },
      },
    });
    const r = upToDate(input({ kcp: both, kubeadmConfig: initMachine }));
    expect(r.upToDate).toBe(false);
    expect(r.result.logMessages[0]).toBe(
      'Machine KubeadmConfig is outdated: diff: initConfiguration.nodeRegistration.name: "{{ ds.meta_data.local_hostname }}" → "other"',
    );
    // The desired config is always the join one (what an in-place update writes).
    expect(r.result.desiredKubeadmConfig?.spec.initConfiguration).toBeUndefined();
    expect(r.result.desiredKubeadmConfig?.spec.joinConfiguration).toMatchObject({
      nodeRegistration: { name: 'other' },
      controlPlane: {},
    });
  });

  it('delete-machine and remediate-machine annotations make an outdated Machine ineligible for in-place', () => {
    const k = kcp({ version: 'v1.31.0' });
    expect(upToDate(input({ kcp: k })).result.eligibleForInPlaceUpdate).toBe(true);
    for (const a of ['cluster.x-k8s.io/delete-machine', 'cluster.x-k8s.io/remediate-machine']) {
      const r = upToDate(input({ kcp: k, machine: machine('m1', { annotations: { [a]: '' } }) }));
      expect(r.upToDate).toBe(false);
      expect(r.result.eligibleForInPlaceUpdate).toBe(false);
    }
  });

  it('detects a files change', () => {
    const base = kcp();
    const changed = kcp({
      kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, files: [{ path: '/etc/a', content: 'b' }] },
    });
    const r = upToDate(input({ kcp: changed, kubeadmConfig: kubeadmConfig('m1', base) }));
    expect(r.upToDate).toBe(false);
    expect(r.result.eligibleForInPlaceUpdate).toBe(true);
    expect(r.result.desiredKubeadmConfig?.spec.files).toEqual([{ path: '/etc/a', content: 'b' }]);
    expect(r.result.desiredKubeadmConfig?.spec.initConfiguration).toBeUndefined();
    expect(r.result.desiredKubeadmConfig?.spec.joinConfiguration).toMatchObject({ controlPlane: {} });
  });

  it('treats an empty files list like unset', () => {
    const base = kcp();
    const k = kcp({ kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, files: [] } });
    const kc = kubeadmConfig('m1', k);
    delete kc.spec.files;
    expect(upToDate(input({ kcp: k, kubeadmConfig: kc })).upToDate).toBe(true);
  });

  it('does not compare labels or annotations (propagated in place)', () => {
    const k = kcp({
      machineTemplate: {
        metadata: { labels: { tier: 'gold' }, annotations: { note: 'x' } },
        spec: kcp().spec.machineTemplate.spec,
      },
    });
    const r = upToDate(input({ kcp: k, machine: machine('m1', { labels: { other: 'y' } }) }));
    expect(r.upToDate).toBe(true);
    expect(r.result.desiredMachine.metadata.labels).toMatchObject({
      tier: 'gold',
      'cluster.x-k8s.io/control-plane': '',
      'cluster.x-k8s.io/control-plane-name': 'cp',
    });
    // Desired annotations: the template's, plus KCP's pre-terminate hook (upstream ComputeDesiredMachine).
    expect(r.result.desiredMachine.metadata.annotations).toEqual({
      note: 'x',
      'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup': '',
    });
  });

  it('detects an infrastructure template rotation and computes the desired InfraMachine from the new template', () => {
    const k = kcp({
      machineTemplate: {
        spec: {
          infrastructureRef: {
            apiGroup: 'infrastructure.cluster.x-k8s.io',
            kind: 'InMemoryMachineTemplate',
            name: 'tmpl-b',
          },
        },
      },
    });
    const r = upToDate(
      input({ kcp: k, infraTemplate: infraTemplate('tmpl-b', { image: 'ubuntu-22.04', resources: { cpu: 4 } }) }),
    );
    expect(r.upToDate).toBe(false);
    expect(r.result.conditionMessages).toEqual(['InMemoryMachine is not up-to-date']);
    expect(r.result.logMessages[0]).toBe(
      'Infrastructure template on KCP rotated from InMemoryMachineTemplate.infrastructure.cluster.x-k8s.io tmpl-a to InMemoryMachineTemplate.infrastructure.cluster.x-k8s.io tmpl-b',
    );
    expect(r.result.desiredInfraMachine?.kind).toBe('InMemoryMachine');
    expect(r.result.desiredInfraMachine?.metadata.name).toBe('m1');
    expect(r.result.desiredInfraMachine?.spec).toEqual({ image: 'ubuntu-22.04', resources: { cpu: 4 } });
    expect(r.result.desiredInfraMachine?.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name']).toBe('tmpl-b');
  });

  it('does not treat a missing cloned-from annotation, InfraMachine or KubeadmConfig as a mismatch', () => {
    const im = infraMachine('m1');
    delete im.metadata.annotations;
    expect(upToDate(input({ infraMachine: im })).upToDate).toBe(true);
    const r = upToDate(input({ infraMachine: undefined, kubeadmConfig: undefined }));
    expect(r.upToDate).toBe(true);
    expect(r.result.desiredInfraMachine).toBeUndefined();
    expect(r.result.desiredKubeadmConfig).toBeUndefined();
  });

  it('reports several reasons at once (version + KubeadmConfig + infra)', () => {
    const base = kcp();
    const k = kcp({
      version: 'v1.31.0',
      kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, files: [] },
      machineTemplate: {
        spec: {
          infrastructureRef: {
            apiGroup: 'infrastructure.cluster.x-k8s.io',
            kind: 'InMemoryMachineTemplate',
            name: 'tmpl-b',
          },
        },
      },
    });
    const r = upToDate(input({ kcp: k, kubeadmConfig: kubeadmConfig('m1', base) }));
    expect(r.result.conditionMessages).toEqual([
      'Version v1.30.0, v1.31.0 required',
      'KubeadmConfig is not up-to-date',
      'InMemoryMachine is not up-to-date',
    ]);
  });

  it('rollout.after passed for an older Machine: not up-to-date and not eligible for in-place', () => {
    const k = kcp({ rollout: { after: '2026-03-01T00:00:00Z' } });
    const r = upToDate(input({ kcp: k }));
    expect(r.upToDate).toBe(false);
    expect(r.result.conditionMessages).toEqual(['KubeadmControlPlane spec.rolloutAfter expired']);
    expect(r.result.eligibleForInPlaceUpdate).toBe(false);
    // A Machine created after the deadline is fine; a deadline in the future too.
    expect(upToDate(input({ kcp: k, machine: machine('m1', { created: '2026-04-01T00:00:00Z' }) })).upToDate).toBe(
      true,
    );
    expect(upToDate(input({ kcp: kcp({ rollout: { after: '2027-01-01T00:00:00Z' } }) })).upToDate).toBe(true);
  });

  it('certificates expiring within rollout.before: not eligible for in-place even with a version change too', () => {
    const k = kcp({ version: 'v1.30.1', rollout: { before: { certificatesExpiryDays: 30 } } });
    const m = machine('m1');
    m.status = { ...m.status, certificatesExpiryDate: '2026-06-10T00:00:00Z' };
    const r = upToDate(input({ kcp: k, machine: m }));
    expect(r.result.conditionMessages).toEqual(['Certificates will expire soon', 'Version v1.30.0, v1.30.1 required']);
    expect(r.result.eligibleForInPlaceUpdate).toBe(false);
    m.status.certificatesExpiryDate = '2026-12-01T00:00:00Z';
    expect(
      upToDate(input({ kcp: kcp({ rollout: { before: { certificatesExpiryDays: 30 } } }), machine: m })).upToDate,
    ).toBe(true);
  });

  it('desired objects keep identity: names, uid, references, failure domain', () => {
    const m = machine('m1');
    m.spec.failureDomain = 'fd-1';
    const r = upToDate(input({ machine: m }));
    expect(r.result.desiredMachine.metadata.uid).toBe('m1-uid');
    expect(r.result.desiredMachine.spec.failureDomain).toBe('fd-1');
    expect(r.result.desiredMachine.spec.bootstrap.configRef?.name).toBe('m1');
    expect(r.result.desiredKubeadmConfig?.metadata.uid).toBe('m1-kc-uid');
  });
});

// Upstream controlplane/kubeadm/pkg/filters_test.go TestMatchesKubeadmConfig (every case but the labels/annotations
// one, ported below): the KubeadmConfig part of upToDate().
describe('TestMatchesKubeadmConfig', () => {
  type Spec = Record<string, unknown>;
  const kcpWith = (spec: Spec, version = 'v1.30.0') => kcp({ version, kubeadmConfigSpec: spec as never });
  const run = (kcpSpec: Spec, machineSpec: Spec | undefined, version = 'v1.30.0') => {
    const k = kcpWith(kcpSpec, version);
    const m = machine('machine', { version });
    const config = machineSpec && { ...kubeadmConfig('machine', k), spec: machineSpec as never };
    return upToDate({ kcp: k, clusterName: CLUSTER, machine: m, kubeadmConfig: config, now: NOW });
  };
  const kcOutdated = (r: ReturnType<typeof run>) =>
    r.result.conditionMessages.includes('KubeadmConfig is not up-to-date');
  const reason = (r: ReturnType<typeof run>) => r.result.logMessages.join('\n');
  const nr = (name: string, extra: Spec = {}) => ({ nodeRegistration: { name, ...extra } });

  it('returns true if Machine configRef is not defined', () => {
    const k = kcp();
    const m = machine('machine');
    m.spec.bootstrap = {};
    const r = upToDate({
      kcp: k,
      clusterName: CLUSTER,
      machine: m,
      kubeadmConfig: kubeadmConfig('x', kcpWith({ files: [{ path: '/x' }] })),
      now: NOW,
    });
    expect(kcOutdated(r)).toBe(false);
  });
  it('returns true if Machine KubeadmConfig is not found', () => {
    const r = run({ clusterConfiguration: { certificatesDir: 'foo' } }, undefined);
    expect(r.upToDate).toBe(true);
    expect(r.result.desiredKubeadmConfig).toBeUndefined();
  });
  const equalCases: [string, Spec, Spec, string?][] = [
    [
      'returns true if ClusterConfiguration is equal',
      { clusterConfiguration: { certificatesDir: 'foo' } },
      { clusterConfiguration: { certificatesDir: 'foo' } },
    ],
    [
      'returns true if ClusterConfiguration is equal (empty)',
      { clusterConfiguration: {} },
      { clusterConfiguration: {} },
    ],
    [
      'returns true if ClusterConfiguration is equal apart from defaulted FeatureGates field',
      { clusterConfiguration: {} },
      { clusterConfiguration: { featureGates: { ControlPlaneKubeletLocalMode: true } } },
      'v1.31.0',
    ],
    [
      'returns true if ClusterConfiguration is equal apart from ControlPlaneEndpoint and DNS fields',
      { clusterConfiguration: { dns: { imageTag: 'v1.10.1', imageRepository: 'gcr.io/capi-test' } } },
      {
        clusterConfiguration: {
          controlPlaneEndpoint: '1.2.3.4:6443',
          dns: { imageTag: 'v1.9.3', imageRepository: 'gcr.io/capi-test' },
        },
      },
    ],
    [
      'returns true if InitConfiguration is equal after conversion to JoinConfiguration',
      {
        clusterConfiguration: {},
        joinConfiguration: {
          timeouts: { controlPlaneComponentHealthCheckSeconds: 5, kubernetesAPICallSeconds: 7 },
          patches: { directory: '/test/patches' },
          skipPhases: ['skip-phase'],
          ...nr('name', { kubeletExtraArgs: [{ name: 'v', value: '8' }] }),
          controlPlane: { localAPIEndpoint: { advertiseAddress: '1.2.3.4', bindPort: 6443 } },
          caCertPath: '/tmp/cacert',
        },
      },
      {
        initConfiguration: {
          timeouts: { controlPlaneComponentHealthCheckSeconds: 1, kubernetesAPICallSeconds: 7 },
          patches: { directory: '/test/patches' },
          skipPhases: ['skip-phase'],
          ...nr('name', { kubeletExtraArgs: [{ name: 'v', value: '8' }] }),
          localAPIEndpoint: { advertiseAddress: '1.2.3.4', bindPort: 6443 },
        },
      },
    ],
    [
      'returns true if JoinConfiguration is not equal, but InitConfiguration is',
      { clusterConfiguration: {}, initConfiguration: nr('name'), joinConfiguration: nr('Different name') },
      { initConfiguration: nr('name') },
    ],
    [
      'returns true if JoinConfiguration is equal',
      { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: nr('A new name') },
      { joinConfiguration: { controlPlane: {}, ...nr('A new name') } },
    ],
    [
      'returns true if JoinConfiguration is equal apart from Discovery and Timeouts',
      {
        clusterConfiguration: {},
        initConfiguration: {},
        joinConfiguration: {
          ...nr('A new name'),
          discovery: { tlsBootstrapToken: 'aaa' },
          timeouts: { controlPlaneComponentHealthCheckSeconds: 1 },
        },
      },
      {
        joinConfiguration: {
          controlPlane: {},
          ...nr('A new name'),
          discovery: { tlsBootstrapToken: 'bbb' },
          timeouts: { controlPlaneComponentHealthCheckSeconds: 11 },
        },
      },
    ],
    [
      'returns true if JoinConfiguration is equal apart from JoinControlPlane',
      { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: nr('A new name') },
      { joinConfiguration: { ...nr('A new name'), controlPlane: {} } },
    ],
    [
      'returns true if only omittable configurations are not equal',
      {
        clusterConfiguration: { featureGates: {} },
        initConfiguration: nr('name', { kubeletExtraArgs: [] }),
        joinConfiguration: nr('name', { kubeletExtraArgs: [] }),
        files: [],
      },
      { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: { controlPlane: {}, ...nr('name') } },
    ],
    [
      'returns true if KubeadmConfig is equal apart from defaulted format field',
      { format: 'cloud-config', joinConfiguration: nr('name') },
      { format: '', joinConfiguration: { controlPlane: {}, ...nr('name') } },
    ],
  ];
  for (const [name, kcpSpec, machineSpec, version] of equalCases)
    it(name, () => {
      const r = run(kcpSpec, machineSpec, version);
      expect(reason(r)).toBe('');
      expect(kcOutdated(r)).toBe(false);
      // The desired KubeadmConfig is always the join one (what an in-place update writes).
      expect(r.result.desiredKubeadmConfig?.spec.joinConfiguration).toHaveProperty('controlPlane');
    });

  it.each<[string, Spec, Spec, string[]]>([
    [
      'returns false if ClusterConfiguration is NOT equal',
      { clusterConfiguration: { certificatesDir: 'foo' } },
      { clusterConfiguration: { certificatesDir: 'bar' } },
      ['certificatesDir', 'bar', 'foo'],
    ],
    [
      'returns false if InitConfiguration is NOT equal',
      { clusterConfiguration: {}, initConfiguration: nr('A new name'), joinConfiguration: nr('A new name') },
      { initConfiguration: nr('An old name') },
      ['An old name', 'A new name'],
    ],
    [
      'returns false if JoinConfiguration is not equal, and InitConfiguration is also not equal',
      { clusterConfiguration: {}, initConfiguration: nr('Different name'), joinConfiguration: nr('Different name') },
      { initConfiguration: nr('name') },
      ['"name"', 'Different name'],
    ],
    [
      'returns false if JoinConfiguration has other differences in ControlPlane',
      { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: nr('name') },
      {
        joinConfiguration: {
          ...nr('name'),
          controlPlane: { localAPIEndpoint: { advertiseAddress: '1.2.3.4', bindPort: 6443 } },
        },
      },
      ['localAPIEndpoint', '1.2.3.4'],
    ],
    [
      'returns false if JoinConfiguration is NOT equal',
      { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: nr('A new name') },
      { joinConfiguration: { controlPlane: {}, ...nr('An old name') } },
      ['An old name', 'A new name'],
    ],
    [
      'returns false if JoinConfiguration is NOT equal (JoinConfiguration not set anymore)',
      { clusterConfiguration: {}, initConfiguration: {} },
      { joinConfiguration: { controlPlane: {}, ...nr('An old name') } },
      ['An old name'],
    ],
    [
      'returns false if KubeadmConfig is not equal (other configurations)',
      { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: nr('name'), files: [{ path: '/tmp/foo' }] },
      { joinConfiguration: { controlPlane: {}, ...nr('name') } },
      ['files', '/tmp/foo'],
    ],
  ])('%s', (_, kcpSpec, machineSpec, inReason) => {
    const r = run(kcpSpec, machineSpec);
    expect(kcOutdated(r)).toBe(true);
    expect(reason(r)).toMatch(/^Machine KubeadmConfig is outdated: diff: /);
    for (const s of inReason) expect(reason(r)).toContain(s);
  });

  it('should match on labels and annotations: they never make a KubeadmConfig outdated', () => {
    const k = kcpWith({ joinConfiguration: nr('name') });
    k.spec.machineTemplate.metadata = { labels: { test: 'label' }, annotations: { test: 'annotation' } };
    for (const meta of [{}, { labels: { test: 'label' } }, { annotations: { test: 'annotation' } }]) {
      const config = { ...kubeadmConfig('machine', k), metadata: { name: 'machine', namespace: 'default', ...meta } };
      const r = upToDate({
        kcp: k,
        clusterName: CLUSTER,
        machine: machine('machine'),
        kubeadmConfig: config,
        now: NOW,
      });
      expect(kcOutdated(r)).toBe(false);
    }
  });
});

// Upstream filters_test.go TestMatchesInfraMachine (every case) and TestUpToDate (every case).
describe('TestMatchesInfraMachine', () => {
  const k = () => {
    const x = kcp();
    x.spec.machineTemplate.spec.infrastructureRef = {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'TestInfrastructureMachineTemplate',
      name: 'infra-machine-template1',
    };
    return x;
  };
  const infra = (annotations?: Record<string, string>) => ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'TestInfrastructureMachine',
    metadata: { name: 'infra-config1', namespace: 'default', annotations },
    spec: {},
  });
  const run = (infraMachine?: ReturnType<typeof infra>, kcpObj = k()) =>
    upToDate({ kcp: kcpObj, clusterName: CLUSTER, machine: machine('m1'), infraMachine, now: NOW });
  const GK = 'TestInfrastructureMachineTemplate.infrastructure.cluster.x-k8s.io';

  it('returns true if machine not found', () => expect(run(undefined).upToDate).toBe(true));
  it('by returning true if annotations do not exist', () => expect(run(infra()).upToDate).toBe(true));
  it.each([
    [
      'by returning false if neither Name nor GroupKind matches',
      'different-infra-machine-template1',
      `Different${GK}`,
      `Infrastructure template on KCP rotated from Different${GK} different-infra-machine-template1 to ${GK} infra-machine-template1`,
    ],
    [
      'by returning false if only GroupKind matches',
      'different-infra-machine-template1',
      GK,
      `Infrastructure template on KCP rotated from ${GK} different-infra-machine-template1 to ${GK} infra-machine-template1`,
    ],
    [
      'by returning false if only Name matches',
      'infra-machine-template1',
      `Different${GK}`,
      `Infrastructure template on KCP rotated from Different${GK} infra-machine-template1 to ${GK} infra-machine-template1`,
    ],
    ['by returning true if both Name and GroupKind match', 'infra-machine-template1', GK, ''],
  ])('%s', (_, name, groupKind, want) => {
    const r = run(
      infra({ 'cluster.x-k8s.io/cloned-from-name': name, 'cluster.x-k8s.io/cloned-from-groupkind': groupKind }),
    );
    expect(r.result.logMessages.join('')).toBe(want);
    expect(r.upToDate).toBe(want === '');
    // Named after the Machine's infrastructureRef kind (the fixture's InMemoryMachine).
    if (want) expect(r.result.conditionMessages).toEqual(['InMemoryMachine is not up-to-date']);
  });
  it('does not fail when KCP is deleting and infra template is not found', () => {
    const deleting = k();
    deleting.metadata.deletionTimestamp = '2026-05-01T00:00:00Z';
    const r = run(
      infra({
        'cluster.x-k8s.io/cloned-from-name': 'infra-machine-template1',
        'cluster.x-k8s.io/cloned-from-groupkind': GK,
      }),
      deleting,
    );
    expect(r.upToDate).toBe(true);
  });
});

describe('TestUpToDate', () => {
  const DAY = 24 * 3_600_000;
  const at = (days: number) => new Date(NOW.getTime() + days * DAY).toISOString();
  const defaultKcp = () => {
    const x = kcp({
      version: 'v1.30.0',
      kubeadmConfigSpec: { clusterConfiguration: { certificatesDir: 'foo' } } as never,
      rollout: { before: { certificatesExpiryDays: 60 }, after: at(10) },
    });
    x.spec.machineTemplate.spec.infrastructureRef = {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'TestInfrastructureMachineTemplate',
      name: 'infra-machine-template1',
    };
    return x;
  };
  const defaultMachine = () => {
    const m = machine('m1', { version: 'v1.30.0', created: at(-2) });
    m.spec.infrastructureRef = {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'TestInfrastructureMachine',
      name: 'infra-machine1',
    };
    m.status = { ...m.status, certificatesExpiryDate: at(100) };
    return m;
  };
  const infraConfig = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'TestInfrastructureMachine',
    metadata: {
      name: 'infra-machine1',
      namespace: 'default',
      annotations: {
        'cluster.x-k8s.io/cloned-from-name': 'infra-machine-template1',
        'cluster.x-k8s.io/cloned-from-groupkind': 'TestInfrastructureMachineTemplate.infrastructure.cluster.x-k8s.io',
      },
    },
    spec: {},
  };
  const template = (name: string) => ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'TestInfrastructureMachineTemplate',
    metadata: { name, namespace: 'default' },
  });
  const machineConfig = {
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfig',
    metadata: { name: 'm1', namespace: 'default' },
    spec: { clusterConfiguration: { certificatesDir: 'foo' } }, // first control plane (init)
  };
  const version = (v: string) => (x: ReturnType<typeof defaultKcp>) => void (x.spec.version = v);
  type Case = {
    name: string;
    kcp?: (x: ReturnType<typeof defaultKcp>) => void;
    machine?: (m: ReturnType<typeof defaultMachine>) => void;
    upToDate: boolean;
    eligible: boolean;
    log: string[];
    condition: string[];
  };
  const VERSION_LOG = 'Machine version "v1.30.0" is not equal to KCP version "v1.30.2"';
  const cases: Case[] = [
    { name: 'machine up-to-date', upToDate: true, eligible: false, log: [], condition: [] },
    {
      name: 'certificate are expiring soon',
      kcp: (x) => void (x.spec.rollout!.before = { certificatesExpiryDays: 150 }),
      upToDate: false,
      eligible: false,
      log: ['certificates will expire soon, rolloutBefore expired'],
      condition: ['Certificates will expire soon'],
    },
    {
      name: 'rollout after expired',
      kcp: (x) => void (x.spec.rollout!.after = at(-1)),
      upToDate: false,
      eligible: false,
      log: ['rolloutAfter expired'],
      condition: ['KubeadmControlPlane spec.rolloutAfter expired'],
    },
    {
      name: 'kubernetes version does not match',
      kcp: version('v1.30.2'),
      upToDate: false,
      eligible: true,
      log: [VERSION_LOG],
      condition: ['Version v1.30.0, v1.30.2 required'],
    },
    {
      name: 'kubernetes version does not match + delete annotation',
      kcp: version('v1.30.2'),
      machine: (m) => void (m.metadata.annotations = { 'cluster.x-k8s.io/delete-machine': '' }),
      upToDate: false,
      eligible: false,
      log: [VERSION_LOG],
      condition: ['Version v1.30.0, v1.30.2 required'],
    },
    {
      name: 'kubernetes version does not match + remediate annotation',
      kcp: version('v1.30.2'),
      machine: (m) => void (m.metadata.annotations = { 'cluster.x-k8s.io/remediate-machine': '' }),
      upToDate: false,
      eligible: false,
      log: [VERSION_LOG],
      condition: ['Version v1.30.0, v1.30.2 required'],
    },
    {
      name: 'KubeadmConfig is not up-to-date',
      kcp: (x) =>
        void ((x.spec.kubeadmConfigSpec!.clusterConfiguration as Record<string, unknown>).certificatesDir = 'bar'),
      upToDate: false,
      eligible: true,
      log: ['Machine KubeadmConfig is outdated: diff: '],
      condition: ['KubeadmConfig is not up-to-date'],
    },
    {
      name: 'InfraMachine is not up-to-date',
      kcp: (x) => void (x.spec.machineTemplate.spec.infrastructureRef.name = 'infra-machine-template2'),
      upToDate: false,
      eligible: true,
      log: [
        'Infrastructure template on KCP rotated from TestInfrastructureMachineTemplate.infrastructure.cluster.x-k8s.io infra-machine-template1 to TestInfrastructureMachineTemplate.infrastructure.cluster.x-k8s.io infra-machine-template2',
      ],
      condition: ['TestInfrastructureMachine is not up-to-date'],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const k = defaultKcp();
      c.kcp?.(k);
      const m = defaultMachine();
      c.machine?.(m);
      const r = upToDate({
        kcp: k,
        clusterName: CLUSTER,
        machine: m,
        kubeadmConfig: structuredClone(machineConfig) as never,
        infraMachine: structuredClone(infraConfig),
        infraTemplate: template(k.spec.machineTemplate.spec.infrastructureRef.name),
        now: NOW,
      });
      expect(r.upToDate).toBe(c.upToDate);
      expect(r.result.eligibleForInPlaceUpdate).toBe(c.eligible);
      expect(r.result.desiredMachine.spec.version).toBe(k.spec.version);
      expect(r.result.currentInfraMachine).toBeDefined();
      expect(r.result.desiredInfraMachine).toBeDefined();
      expect(r.result.currentKubeadmConfig).toBeDefined();
      expect(r.result.desiredKubeadmConfig).toBeDefined();
      expect(r.result.conditionMessages).toEqual(c.condition);
      expect(r.result.logMessages).toHaveLength(c.log.length);
      c.log.forEach((l, i) => expect(r.result.logMessages[i].startsWith(l)).toBe(true));
      if (c.name === 'KubeadmConfig is not up-to-date') expect(r.result.logMessages[0]).toContain('certificatesDir');
    });
});
