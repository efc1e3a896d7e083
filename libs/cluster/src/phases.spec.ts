// Cases of upstream core/reconcilers/cluster/cluster_controller_phases_test.go TestClusterReconcileInfrastructure,
// TestClusterReconcileControlPlane and TestClusterReconcilePhases_reconcileFailureDomains (the read is done by the
// reconciler; here its result is given).
import type { Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { EXTERNAL_READY_WAIT_MS, reconcileControlPlanePhase, reconcileInfrastructurePhase } from './phases';
import type { ContractVersion } from './contract';

const INFRA_REF = { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'GenericInfrastructureMachine', name: 'test' };
const CP_REF = { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'GenericControlPlane', name: 'test' };
const DELETED = { deletionTimestamp: '2020-01-01T00:00:00Z', finalizers: ['test'] };

function cluster(o: { ref: 'infra' | 'cp'; endpoint?: boolean; deleting?: boolean; cpInitialized?: boolean }): Cluster {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'test-cluster', namespace: 'test-namespace', ...(o.deleting ? DELETED : {}) },
    spec: {
      ...(o.endpoint !== false ? { controlPlaneEndpoint: { host: '1.2.3.4', port: 8443 } } : {}),
      ...(o.ref === 'infra' ? { infrastructureRef: INFRA_REF } : { controlPlaneRef: CP_REF }),
    },
    status: {
      initialization: {
        infrastructureProvisioned: true,
        ...(o.cpInitialized ? { controlPlaneInitialized: true } : {}),
      },
    },
  } as Cluster;
}
const obj = (kind: string, more: Partial<KubeObject> & { deleting?: boolean } = {}): KubeObject => {
  const { deleting, ...rest } = more;
  return {
    apiVersion: 'x.cluster.x-k8s.io/v1beta2',
    kind,
    ...rest,
    metadata: { name: 'test', namespace: 'test-namespace', ...(deleting ? DELETED : {}) },
  };
};
const found = (o: KubeObject, contractVersion: ContractVersion = 'v1beta2') => ({
  object: o,
  notFound: false,
  contractVersion,
});
const NOT_FOUND = { notFound: true };
const EXAMPLE_ENDPOINT = { controlPlaneEndpoint: { host: 'example.com', port: 6443 } };

describe('reconcileInfrastructurePhase (TestClusterReconcileInfrastructure)', () => {
  it('returns no error if infrastructure ref is nil: provisioned', () => {
    const c = { metadata: { name: 'test-cluster', namespace: 'test-namespace' }, spec: {} } as Cluster;
    const r = reconcileInfrastructurePhase(c, undefined);
    expect(r.error).toBeUndefined();
    expect(c.status?.initialization?.infrastructureProvisioned).toBe(true);
  });

  it('requeue if unable to get infrastructure ref and cluster did not yet reported infrastructure ready', () => {
    const c = cluster({ ref: 'infra' });
    c.status!.initialization!.infrastructureProvisioned = false;
    const r = reconcileInfrastructurePhase(c, NOT_FOUND);
    expect(r.error).toBeUndefined();
    expect(r.requeueAfterMs).toBe(EXTERNAL_READY_WAIT_MS);
  });

  it('returns error if unable to get infrastructure ref and cluster already reported infrastructure ready', () => {
    const r = reconcileInfrastructurePhase(cluster({ ref: 'infra' }), NOT_FOUND);
    expect(r.error?.message).toBe('GenericInfrastructureMachine has been deleted after being provisioned');
  });

  it('tolerate if unable to get infrastructure ref and cluster is deleting', () => {
    const r = reconcileInfrastructurePhase(cluster({ ref: 'infra', deleting: true }), NOT_FOUND);
    expect(r).toEqual({ events: [], logs: [] });
  });

  it('returns no error if infrastructure is marked ready on cluster', () => {
    const r = reconcileInfrastructurePhase(cluster({ ref: 'infra' }), found(obj('GenericInfrastructureMachine')));
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual([]); // already provisioned: no event
  });

  it('returns no error if the control plane endpoint is not yet set', () => {
    const c = cluster({ ref: 'infra', endpoint: false });
    const r = reconcileInfrastructurePhase(c, found(obj('G', { status: { ready: true } }), 'v1beta1'));
    expect(r.error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toBeUndefined();
  });

  it('should propagate the control plane endpoint once set', () => {
    const c = cluster({ ref: 'infra', endpoint: false });
    const infra = obj('G', { spec: EXAMPLE_ENDPOINT, status: { ready: true } });
    expect(reconcileInfrastructurePhase(c, found(infra, 'v1beta1')).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toEqual({ host: 'example.com', port: 6443 });
  });

  it('do not allows to change infrastructure ready and control plane endpoint once set', () => {
    const c = cluster({ ref: 'infra' });
    const infra = obj('G', { spec: EXAMPLE_ENDPOINT, status: { ready: false } });
    expect(reconcileInfrastructurePhase(c, found(infra, 'v1beta1')).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toEqual({ host: '1.2.3.4', port: 8443 });
    expect(c.status?.initialization?.infrastructureProvisioned).toBe(true);
  });

  it('do not reconcile if infra config is marked for deletion', () => {
    const c = cluster({ ref: 'infra', endpoint: false });
    c.status!.initialization!.infrastructureProvisioned = false;
    const infra = obj('G', { deleting: true, spec: EXAMPLE_ENDPOINT, status: { ready: true } });
    expect(reconcileInfrastructurePhase(c, found(infra, 'v1beta1')).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toBeUndefined();
    expect(c.status?.initialization?.infrastructureProvisioned).toBe(false);
  });

  it('v1beta2 contract: status.initialization.provisioned, with the InfrastructureReady event the first time', () => {
    const c = cluster({ ref: 'infra', endpoint: false });
    c.status!.initialization!.infrastructureProvisioned = false;
    const infra = obj('G', { spec: EXAMPLE_ENDPOINT, status: { initialization: { provisioned: true } } });
    const r = reconcileInfrastructurePhase(c, found(infra));
    expect(c.status?.initialization?.infrastructureProvisioned).toBe(true);
    expect(c.spec?.controlPlaneEndpoint).toEqual({ host: 'example.com', port: 6443 });
    expect(r.events).toEqual([
      {
        type: 'Normal',
        reason: 'InfrastructureReady',
        message: 'Cluster test-cluster InfrastructureProvisioned is now True',
      },
    ]);
  });
});

describe('reconcileControlPlanePhase (TestClusterReconcileControlPlane)', () => {
  it('returns no error if control plane ref is nil', () => {
    const c = { metadata: { name: 'test-cluster', namespace: 'test-namespace' }, spec: {} } as Cluster;
    expect(reconcileControlPlanePhase(c, undefined)).toEqual({ events: [], logs: [] });
  });

  it('requeue if unable to get control plane ref and cluster did not yet reported control plane ready', () => {
    const r = reconcileControlPlanePhase(cluster({ ref: 'cp' }), NOT_FOUND);
    expect(r.error).toBeUndefined();
    expect(r.requeueAfterMs).toBe(EXTERNAL_READY_WAIT_MS);
  });

  it('returns error if unable to get control plane ref and cluster already reported control plane ready', () => {
    const r = reconcileControlPlanePhase(cluster({ ref: 'cp', cpInitialized: true }), NOT_FOUND);
    expect(r.error?.message).toBe('GenericControlPlane has been deleted after being initialized');
  });

  it('tolerate if unable to get control plane ref and cluster is deleting', () => {
    const r = reconcileControlPlanePhase(cluster({ ref: 'cp', deleting: true }), NOT_FOUND);
    expect(r).toEqual({ events: [], logs: [] });
  });

  it('returns no error if control plane ref is marked for deletion', () => {
    const r = reconcileControlPlanePhase(cluster({ ref: 'cp' }), found(obj('GenericControlPlane', { deleting: true })));
    expect(r.error).toBeUndefined();
  });

  it('returns no error if control plane has the paused annotation', () => {
    const cp = obj('GenericControlPlane');
    cp.metadata.annotations = { 'cluster.x-k8s.io/paused': 'true' };
    expect(reconcileControlPlanePhase(cluster({ ref: 'cp' }), found(cp)).error).toBeUndefined();
  });

  it('returns no error if the control plane endpoint is not yet set', () => {
    const c = cluster({ ref: 'cp', endpoint: false });
    expect(reconcileControlPlanePhase(c, found(obj('G', { status: { ready: true } }))).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toBeUndefined();
  });

  it('should propagate the control plane endpoint if set', () => {
    const c = cluster({ ref: 'cp', endpoint: false });
    const cp = obj('G', { spec: EXAMPLE_ENDPOINT, status: { initialization: { controlPlaneInitialized: true } } });
    expect(reconcileControlPlanePhase(c, found(cp)).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toEqual({ host: 'example.com', port: 6443 });
  });

  it('should propagate the initialized and ready conditions', () => {
    const c = cluster({ ref: 'cp', endpoint: false });
    const cp = obj('G', { spec: {}, status: { initialization: { controlPlaneInitialized: true } } });
    const r = reconcileControlPlanePhase(c, found(cp));
    expect(c.status?.initialization?.controlPlaneInitialized).toBe(true);
    expect(r.events.map((e) => e.reason)).toEqual(['ControlPlaneInitialized']);
  });

  it('do not allows to change control plane ready and control plane endpoint once set', () => {
    const c = cluster({ ref: 'cp', cpInitialized: true });
    const cp = obj('G', { spec: EXAMPLE_ENDPOINT, status: { ready: false, initialized: false } });
    expect(reconcileControlPlanePhase(c, found(cp, 'v1beta1')).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toEqual({ host: '1.2.3.4', port: 8443 });
    expect(c.status?.initialization?.controlPlaneInitialized).toBe(true);
  });

  it('do not reconcile if control plane is marked for deletion', () => {
    const c = cluster({ ref: 'cp', endpoint: false });
    const cp = obj('G', { deleting: true, spec: EXAMPLE_ENDPOINT, status: { ready: true, initialized: true } });
    expect(reconcileControlPlanePhase(c, found(cp, 'v1beta1')).error).toBeUndefined();
    expect(c.spec?.controlPlaneEndpoint).toBeUndefined();
    expect(c.status?.initialization?.controlPlaneInitialized).toBeUndefined();
  });
});

describe('failure domains (TestClusterReconcilePhases_reconcileFailureDomains)', () => {
  const newDomain = [{ name: 'newdomain', controlPlane: false, attributes: { attribute1: 'value1' } }];
  const newDomainUpdated = [{ name: 'newdomain', controlPlane: false, attributes: { attribute2: 'value2' } }];
  const oldDomain = [{ name: 'olddomain', controlPlane: false, attributes: { attribute1: 'value1' } }];
  const infraV1Beta2 = (withFD: boolean) =>
    obj('GenericInfrastructureCluster', {
      status: { ready: true, ...(withFD ? { failureDomains: newDomain } : {}) },
    });
  const infraV1Beta1 = (withFD: boolean) =>
    obj('GenericInfrastructureCluster', {
      status: {
        ready: true,
        ...(withFD
          ? { failureDomains: { newdomain: { controlPlane: false, attributes: { attribute1: 'value1' } } } }
          : {}),
      },
    });
  const withDomains = (fd?: { name: string; controlPlane: boolean; attributes: Record<string, string> }[]) => {
    const c = cluster({ ref: 'infra' });
    if (fd) c.status!.failureDomains = fd;
    return c;
  };
  const cases: [string, Cluster, KubeObject | undefined, ContractVersion, unknown[] | 'error'][] = [
    [
      'expect no failure domain if infrastructure ref is nil',
      { metadata: { name: 'c' } } as Cluster,
      undefined,
      'v1beta2',
      [],
    ],
    [
      'expect no failure domain if infra config does not have failure domain',
      withDomains(),
      infraV1Beta2(false),
      'v1beta2',
      [],
    ],
    [
      'expect cluster failure domain to be reset to empty if infra config does not have failure domain',
      withDomains(oldDomain),
      infraV1Beta2(false),
      'v1beta2',
      [],
    ],
    [
      'expect failure domain to remain same if infra config have same failure domain',
      withDomains(),
      infraV1Beta2(true),
      'v1beta2',
      newDomain,
    ],
    [
      'expect failure domain to be updated if infra config has updates to failure domain',
      withDomains(newDomainUpdated),
      infraV1Beta2(true),
      'v1beta2',
      newDomain,
    ],
    [
      'expect failure domain to be reset if infra config have different failure domain',
      withDomains(oldDomain),
      infraV1Beta2(true),
      'v1beta2',
      newDomain,
    ],
    [
      'expect failure domain to remain same if infra config have same failure domain (v1beta1)',
      withDomains(),
      infraV1Beta1(true),
      'v1beta1',
      newDomain,
    ],
    [
      'expect failure domain to be updated if infra config has updates to failure domain (v1beta1)',
      withDomains(newDomainUpdated),
      infraV1Beta1(true),
      'v1beta1',
      newDomain,
    ],
    [
      'expect failure domain to be reset if infra config have different failure domain (v1beta1)',
      withDomains(oldDomain),
      infraV1Beta1(true),
      'v1beta1',
      newDomain,
    ],
    [
      'expect error because InfraCluster uses v1beta2 but contract is v1beta1',
      withDomains(oldDomain),
      infraV1Beta2(true),
      'v1beta1',
      'error',
    ],
    [
      'expect error because InfraCluster uses v1beta1 but contract is v1beta2',
      withDomains(oldDomain),
      infraV1Beta1(true),
      'v1beta2',
      'error',
    ],
  ];
  it.each(cases)('%s', (_name, c, infra, cv, expected) => {
    const r = reconcileInfrastructurePhase(c, infra && found(infra, cv));
    if (expected === 'error') {
      expect(r.error).toBeDefined();
      return;
    }
    expect(r.error).toBeUndefined();
    expect(c.status?.failureDomains ?? []).toEqual(expected);
  });
});
