// Upstream cluster_controller_status_test.go TestSetPhases.
import type { Cluster } from '@capi/api';
import { computePhase } from './phase';
import { fakeCluster } from '../testing/status-fakes';

const withEndpoint = (c: Cluster): Cluster => ({
  ...c,
  spec: { ...c.spec, controlPlaneEndpoint: { host: '1.2.3.4', port: 8443 } },
});

describe('computePhase (upstream TestSetPhases)', () => {
  it.each<[string, Cluster, string]>([
    ['cluster not provisioned', fakeCluster('test-cluster'), 'Pending'],
    [
      'cluster has infrastructureRef',
      fakeCluster('test-cluster', { infrastructureRef: { name: 'infra1' } }),
      'Provisioning',
    ],
    [
      'cluster infrastructure is ready',
      fakeCluster('test-cluster', { infrastructureRef: { name: 'infra1' }, infrastructureProvisioned: true }),
      'Provisioning',
    ],
    [
      'cluster infrastructure is ready and ControlPlaneEndpoint is set',
      withEndpoint(
        fakeCluster('test-cluster', { infrastructureRef: { name: 'infra1' }, infrastructureProvisioned: true }),
      ),
      'Provisioned',
    ],
    [
      'no cluster infrastructure, control plane ready and ControlPlaneEndpoint is set',
      withEndpoint(fakeCluster('test-cluster', { controlPlaneRef: { name: 'cp1' }, infrastructureProvisioned: true })),
      'Provisioned',
    ],
    [
      'cluster has deletion timestamp',
      fakeCluster('test-cluster', {
        infrastructureRef: { name: 'infra1' },
        infrastructureProvisioned: true,
        deleted: true,
      }),
      'Deleting',
    ],
  ])('%s', (_name, cluster, want) => {
    expect(computePhase(cluster).phase).toBe(want);
  });

  it('reports a change only when the phase differs from status.phase', () => {
    const c = fakeCluster('c', { infrastructureRef: { name: 'infra1' } });
    expect(computePhase(c)).toEqual({ phase: 'Provisioning', changed: true });
    expect(computePhase({ ...c, status: { ...c.status, phase: 'Provisioning' } })).toEqual({
      phase: 'Provisioning',
      changed: false,
    });
  });
  it('an endpoint without a port is not valid', () => {
    const c = fakeCluster('c', { infrastructureRef: { name: 'i' }, infrastructureProvisioned: true });
    expect(computePhase({ ...c, spec: { ...c.spec, controlPlaneEndpoint: { host: '1.2.3.4' } } }).phase).toBe(
      'Provisioning',
    );
  });
});
