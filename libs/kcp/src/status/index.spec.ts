// computeKcpStatus: upstream updateStatus's setters together (status.go), on the fixtures the reconciler tests use.
import { CLUSTER, kcp, machine } from '../testing/fixtures';
import { computeKcpStatus } from './index';

const clock = { now: () => Date.parse('2026-06-01T00:00:00Z') };
const withConditions = (name: string, conds: Record<string, 'True' | 'False'>, version?: string) => {
  const m = machine(name, { version });
  m.status = {
    ...m.status,
    conditions: Object.entries(conds).map(([type, status]) => ({
      type,
      status,
      reason: type,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    })),
  };
  return m;
};
const condition = (s: { conditions?: { type: string }[] }, type: string) => s.conditions?.find((c) => c.type === type);

describe('computeKcpStatus', () => {
  it('counts replicas from the Machines conditions; status.version is the lowest version', () => {
    const a = withConditions('a', { Ready: 'True', Available: 'True', UpToDate: 'True' }, 'v1.31.0');
    const b = withConditions('b', { Ready: 'True', Available: 'True', UpToDate: 'False' }, 'v1.30.0');
    const c = withConditions('c', { Ready: 'False', Available: 'False', UpToDate: 'False' }, 'v1.30.0');
    const s = computeKcpStatus({ kcp: kcp({ version: 'v1.31.0' }), clusterName: CLUSTER, machines: [a, b, c], clock });
    expect(s).toMatchObject({
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      upToDateReplicas: 1,
      version: 'v1.30.0',
      selector: `cluster.x-k8s.io/cluster-name=${CLUSTER},cluster.x-k8s.io/control-plane`,
    });
    expect(s.initialization?.controlPlaneInitialized).toBe(true);
    expect(condition(s, 'Initialized')).toMatchObject({ status: 'True', reason: 'Initialized' });
    expect(condition(s, 'MachinesUpToDate')).toMatchObject({ status: 'False', reason: 'NotUpToDate' });
    expect(condition(s, 'RollingOut')).toMatchObject({
      status: 'True',
      message: 'Rolling out 2 not up-to-date replicas',
    });
  });
  it('reports scaling blocked by preflight, NoReplicas, not initialized', () => {
    const s = computeKcpStatus({
      kcp: kcp(),
      clusterName: CLUSTER,
      machines: [],
      preflight: { hasDeletingMachine: true },
      clock,
    });
    expect(s.replicas).toBe(0);
    expect(s.version).toBeUndefined();
    expect(s.initialization?.controlPlaneInitialized).toBe(false);
    expect(condition(s, 'Initialized')).toMatchObject({ status: 'False', reason: 'NotInitialized' });
    expect(condition(s, 'MachinesUpToDate')).toMatchObject({ status: 'True', reason: 'NoReplicas' });
    expect(condition(s, 'ScalingUp')).toMatchObject({
      status: 'True',
      message:
        'Scaling up from 0 to 3 replicas is blocked because:\n* waiting for a control plane Machine to complete deletion',
    });
    expect(condition(s, 'Available')).toMatchObject({ status: 'False', message: 'Control plane not yet initialized' });
  });
  it('infra template not found shows on ScalingUp', () => {
    const s = computeKcpStatus({
      kcp: kcp({ replicas: 1 }),
      clusterName: CLUSTER,
      machines: [machine('a')],
      infraMachineTemplateNotFound: true,
      clock,
    });
    expect(condition(s, 'ScalingUp')).toMatchObject({
      status: 'False',
      reason: 'NotScalingUp',
      message: 'Scaling up would be blocked because InMemoryMachineTemplate does not exist',
    });
  });
  it('Available waits for the etcd members right after Initialized turns True (its transition is this reconcile)', () => {
    const s = computeKcpStatus({
      kcp: kcp(),
      clusterName: CLUSTER,
      machines: [machine('a')],
      controlPlaneNodeReady: true,
      clock,
    });
    expect(condition(s, 'Available')).toMatchObject({
      status: 'False',
      reason: 'NotAvailable',
      message: 'Waiting for etcd to report the list of members',
    });
  });
  it('reports Remediating and lastRemediation', () => {
    const marked = withConditions('a', { HealthCheckSucceeded: 'False', OwnerRemediated: 'False' });
    const k = kcp();
    k.metadata.annotations = {
      'controlplane.cluster.x-k8s.io/remediation-in-progress':
        '{"machine":"z","timestamp":"2026-05-01T00:00:00Z","retryCount":2}',
    };
    const s = computeKcpStatus({ kcp: k, clusterName: CLUSTER, machines: [marked, machine('b')], clock });
    expect(condition(s, 'Remediating')).toMatchObject({
      status: 'True',
      reason: 'Remediating',
      // The OwnerRemediated condition has no message: upstream's aggregation leaves "<name>: " as is.
      message: '* Machine a: ',
    });
    expect(s.lastRemediation).toEqual({ machine: 'z', time: '2026-05-01T00:00:00Z', retryCount: 2 });
    const none = computeKcpStatus({ kcp: kcp(), clusterName: CLUSTER, machines: [machine('b')], clock });
    expect(condition(none, 'Remediating')).toMatchObject({ status: 'False', reason: 'NotRemediating' });
    expect(none.lastRemediation).toBeUndefined();
  });
});
