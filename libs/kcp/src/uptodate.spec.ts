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
    const r = upToDate(input({ kcp: kcp({ version: 'v1.31.0' }) }));
    expect(r.upToDate).toBe(false);
    expect(r.result.conditionMessages).toEqual(['Version v1.30.0, v1.31.0 required']);
    expect(r.result.logMessages[0]).toBe('Machine version "v1.30.0" is not equal to KCP version "v1.31.0"');
    expect(r.result.eligibleForInPlaceUpdate).toBe(true);
    expect(r.result.desiredMachine.spec.version).toBe('v1.31.0');
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
    const k = kcp({ version: 'v1.31.0', rollout: { before: { certificatesExpiryDays: 30 } } });
    const m = machine('m1');
    m.status = { ...m.status, certificatesExpiryDate: '2026-06-10T00:00:00Z' };
    const r = upToDate(input({ kcp: k, machine: m }));
    expect(r.result.conditionMessages).toEqual(['Certificates will expire soon', 'Version v1.30.0, v1.31.0 required']);
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
