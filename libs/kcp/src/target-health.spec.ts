import { AlarmType } from '@capi/etcd';
// Every case of upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/remediation_test.go
// TestTargetEtcdClusterHealthy and TestTargetK8sControlPlaneHealthy.
import type { Condition, Machine } from '@capi/api';
import { targetEtcdClusterHealthy, targetKubernetesControlPlaneComponentsHealthy } from './target-health';
import type { EtcdMember } from './workload-cluster';
import { machine } from './testing/fixtures';

const cond = (type: string, status: 'True' | 'False'): Condition => ({
  type,
  status,
  reason: status === 'True' ? 'Ok' : 'Failed',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

/**
 * upstream getMachine(ns, name, options...): Node `node-<name>`; the name tells its state, as upstream's fixtures:
 * `*-etcd-healthy` / `m<n>-healthy` (EtcdMemberHealthy True), `*-etcd-unhealthy` / `m<n>-unhealthy` (False),
 * `*-mhc-unhealthy` (MHC failed, no etcd condition).
 */
function getMachine(name: string, extra: Condition[] = []): Machine {
  const m = machine(name);
  m.status = { nodeRef: { name: `node-${name}` }, conditions: [...extra] };
  if (/-(etcd-)?healthy$/.test(name) && !name.endsWith('-unhealthy'))
    m.status.conditions!.push(cond('EtcdMemberHealthy', 'True'));
  else if (/-(etcd-)?unhealthy$/.test(name) && !name.endsWith('-mhc-unhealthy'))
    m.status.conditions!.push(cond('EtcdMemberHealthy', 'False'));
  else if (name.endsWith('-mhc-unhealthy')) m.status.conditions!.push(cond('HealthCheckSucceeded', 'False'));
  return m;
}

/** upstream etcdMembers(machines): a member named after each Machine's Node. */
const members = (machines: Machine[]): EtcdMember[] =>
  machines.map((m, i) => ({ id: String(i + 1), name: m.status!.nodeRef!.name }));

describe('targetEtcdClusterHealthy (upstream TestTargetEtcdClusterHealthy)', () => {
  const H = 'etcd-healthy';
  const U = 'etcd-unhealthy';
  // [name, machines (m1 first), members from these Machines (undefined: all), add, remove m1?, expected]
  it.each([
    ["Can't safely remove a member from a CP with one Machine", ['m1-mhc-unhealthy'], undefined, false, true, false],
    [
      'Can safely remove a member from a CP with two Machines without additional etcd member failures',
      ['m1-mhc-unhealthy', `m2-${H}`],
      undefined,
      false,
      true,
      true,
    ],
    [
      'Can safely remove a member from a CP with two Machines when the etcd member being remediated is missing',
      ['m1-mhc-unhealthy', `m2-${H}`],
      [1],
      false,
      true,
      true,
    ],
    [
      "Can't safely remove a member from a CP with two Machines with one additional etcd member failure",
      ['m1-mhc-unhealthy', `m2-${U}`],
      undefined,
      false,
      true,
      false,
    ],
    [
      'Can safely remove a member from a CP with three Machines without additional etcd member failures',
      ['m1-mhc-unhealthy', `m2-${H}`, `m3-${H}`],
      undefined,
      false,
      true,
      true,
    ],
    [
      'Can safely remove a member from a CP with three Machines when the etcd member being remediated is missing',
      ['m1-mhc-unhealthy', `m2-${H}`, `m3-${H}`],
      [1, 2],
      false,
      true,
      true,
    ],
    [
      "Can't safely remove a member from a CP with three Machines with one additional etcd member failure",
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${H}`],
      undefined,
      false,
      true,
      false,
    ],
    [
      'Can safely remove a member from a CP with three Machines when another etcd member is missing',
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${H}`],
      [0, 2],
      false,
      true,
      true,
    ],
    [
      'Can safely remove a member from a CP with three Machines when the etcd member being remediated is missing and another etcd member is missing',
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${H}`],
      [2],
      false,
      true,
      true,
    ],
    [
      'Can safely remove a member from a CP with five Machines with less than 2 additional etcd member failures',
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${H}`, `m4-${H}`, `m5-${H}`],
      undefined,
      false,
      true,
      true,
    ],
    [
      'Can safely remove a member from a CP with five Machines with missing members but quorum',
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${U}`, `m4-${H}`, `m5-${H}`],
      [0, 2, 3, 4],
      false,
      true,
      true,
    ],
    [
      "Can't safely remove a member from a CP with five Machines with 2 additional etcd member failures",
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${U}`, `m4-${H}`, `m5-${H}`],
      undefined,
      false,
      true,
      false,
    ],
    [
      'Can safely remove a member from a CP with seven Machines with less than 3 additional etcd member failures',
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${U}`, `m4-${H}`, `m5-${H}`, `m6-${H}`, `m7-${H}`],
      undefined,
      false,
      true,
      true,
    ],
    [
      'Can safely remove a member from a CP with seven Machines with missing members but quorum',
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${U}`, `m4-${U}`, `m5-${H}`, `m6-${H}`, `m7-${H}`],
      [0, 2, 3, 4, 5, 6],
      false,
      true,
      true,
    ],
    [
      "Can't safely remove a member from a CP with seven Machines with 3 additional etcd member failures",
      ['m1-mhc-unhealthy', `m2-${U}`, `m3-${U}`, `m4-${U}`, `m5-${H}`, `m6-${H}`, `m7-${H}`],
      undefined,
      false,
      true,
      false,
    ],
    ['Can safely add a member to a CP without Machines', [], undefined, true, false, true],
    ['Can safely add a member to a CP with one Machine', ['m1-healthy'], undefined, true, false, true],
    [
      "Can't safely add a member to a CP with one Machine with unhealthy etcd member",
      ['m1-unhealthy'],
      undefined,
      true,
      false,
      false,
    ],
    ['Can safely add a member to a CP with two Machine', ['m1-healthy', 'm2-healthy'], undefined, true, false, true],
    [
      'Can safely add a member to a CP with two Machine when one member is missing',
      ['m1-healthy', 'm2-unhealthy'],
      [0],
      true,
      false,
      true,
    ],
    [
      "Can't safely add a member to a CP with two Machine with one additional etcd member failure",
      ['m1-healthy', 'm2-unhealthy'],
      undefined,
      true,
      false,
      false,
    ],
    [
      'Can safely add a member to a CP with three Machine',
      ['m1-healthy', 'm2-healthy', 'm3-healthy'],
      undefined,
      true,
      false,
      true,
    ],
    [
      'Can safely add a member to a CP with three Machine with one member is missing',
      ['m1-healthy', 'm2-unhealthy', 'm3-healthy'],
      [0, 2],
      true,
      false,
      true,
    ],
    [
      "Can't safely add a member to a CP with three Machine with one additional etcd member failure",
      ['m1-healthy', 'm2-unhealthy', 'm3-healthy'],
      undefined,
      true,
      false,
      false,
    ],
    [
      'Can safely add a member to a CP with four Machine',
      ['m1-healthy', 'm2-healthy', 'm3-healthy', 'm4-healthy'],
      undefined,
      true,
      false,
      true,
    ],
    [
      'Can safely add a member to a CP with four Machine with one member is missing',
      ['m1-healthy', 'm2-unhealthy', 'm3-healthy', 'm4-healthy'],
      [0, 2, 3],
      true,
      false,
      true,
    ],
    [
      'Can safely add a member to a CP with four Machine with one additional etcd member failure',
      ['m1-healthy', 'm2-unhealthy', 'm3-healthy', 'm4-healthy'],
      undefined,
      true,
      false,
      true,
    ],
    [
      "Can't safely add a member to a CP with four Machine with two additional etcd member failure",
      ['m1-healthy', 'm2-unhealthy', 'm3-unhealthy', 'm4-healthy'],
      undefined,
      true,
      false,
      false,
    ],
    [
      'Can safely add a member to a CP with five Machine',
      ['m1-healthy', 'm2-healthy', 'm3-healthy', 'm4-healthy', 'm5-healthy'],
      undefined,
      true,
      false,
      true,
    ],
    [
      "Can't safely add a member to a CP with five Machine with two additional etcd member failure",
      ['m1-healthy', 'm2-unhealthy', 'm3-unhealthy', 'm4-healthy', 'm5-healthy'],
      undefined,
      true,
      false,
      false,
    ],
  ] as const)('%s', (_name, names, memberIdx, addMember, removeM1, expected) => {
    const machines = names.map((n) => getMachine(n));
    const from = memberIdx ? memberIdx.map((i) => machines[i]) : machines;
    const toBeDeleted = removeM1 ? machines[0].status!.nodeRef!.name : '';
    expect(targetEtcdClusterHealthy({ members: members(from), machines, addMember, toBeDeleted }).ok).toBe(expected);
  });

  const m1 = getMachine('m1-mhc-unhealthy');
  const m2 = getMachine('m2-etcd-healthy');

  it("Can't safely add a member to a CP with a learner etcd member", () => {
    const m = getMachine('m1-healthy');
    const learner = { ...members([m])[0], isLearner: true };
    expect(targetEtcdClusterHealthy({ members: [learner], machines: [m], addMember: true, toBeDeleted: '' }).ok).toBe(
      false,
    );
  });

  it("Can't safely remove a member from a CP with a learner etcd member", () => {
    const ms = members([m1, m2]).map((x) => (x.name === 'node-m2-etcd-healthy' ? { ...x, isLearner: true } : x));
    const r = targetEtcdClusterHealthy({
      members: ms,
      machines: [m1, m2],
      addMember: false,
      toBeDeleted: 'node-m1-mhc-unhealthy',
    });
    expect(r.ok).toBe(false);
  });

  it("Can't safely remove a member from a CP with an etcd member starting up", () => {
    const ms = members([m1, m2]).map((x) => (x.name === 'node-m2-etcd-healthy' ? { ...x, name: '' } : x));
    const r = targetEtcdClusterHealthy({
      members: ms,
      machines: [m1, m2],
      addMember: false,
      toBeDeleted: 'node-m1-mhc-unhealthy',
    });
    expect(r).toEqual({ ok: false, healthy: [], unhealthy: ['1 member starting (worst case)'] });
  });

  it('Consider alarms from members not being removed when computing target etcd cluster status', () => {
    const ms: EtcdMember[] = [
      { id: '1', name: 'node-m1-mhc-unhealthy' },
      { id: '2', name: 'foo' },
    ];
    const r = targetEtcdClusterHealthy({
      members: ms,
      alarms: [{ memberId: '2', type: AlarmType.NoSpace }],
      machines: [m1, m2],
      addMember: false,
      toBeDeleted: 'node-m1-mhc-unhealthy',
    });
    expect(r).toEqual({ ok: false, healthy: [], unhealthy: ['foo (no machine)'] });
  });

  it("Can safely remove a member when it doesn't have a corresponding machine and it has no alarm", () => {
    const ms: EtcdMember[] = [
      { id: '1', name: 'node-m1-mhc-unhealthy' },
      { id: '2', name: 'foo' },
    ];
    const r = targetEtcdClusterHealthy({
      members: ms,
      machines: [m1, m2],
      addMember: false,
      toBeDeleted: 'node-m1-mhc-unhealthy',
    });
    expect(r).toEqual({ ok: true, healthy: ['foo (no machine)'], unhealthy: [] });
  });

  it('Ignore alarms from external members being removed when computing target etcd cluster status', () => {
    const healthyM1 = getMachine('m1-mhc-unhealthy', [cond('EtcdMemberHealthy', 'True')]);
    const ms: EtcdMember[] = [
      { id: '1', name: 'node-m1-mhc-unhealthy' },
      { id: '2', name: 'bar' },
    ];
    const r = targetEtcdClusterHealthy({
      members: ms,
      alarms: [{ memberId: '2', type: AlarmType.Corrupt }],
      machines: [healthyM1, m2],
      addMember: false,
      toBeDeleted: 'bar',
    });
    expect(r.ok).toBe(true);
  });
});

describe('targetKubernetesControlPlaneComponentsHealthy (upstream TestTargetK8sControlPlaneHealthy)', () => {
  const k8s = (name: string, healthy: boolean): Machine => {
    const m = machine(name);
    m.status = {
      conditions: [
        cond('APIServerPodHealthy', 'True'),
        cond('ControllerManagerPodHealthy', 'True'),
        cond('SchedulerPodHealthy', healthy ? 'True' : 'False'),
        cond('EtcdPodHealthy', healthy ? 'True' : 'False'),
      ],
    };
    return m;
  };
  it.each([
    [
      'Can safely remove a K8s control plane when there is at least one K8s control plane healthy',
      [true, true],
      false,
      'm1',
      true,
    ],
    [
      "Can't safely remove a K8s control plane when there is no K8s control plane healthy left",
      [true, false],
      false,
      'm1',
      false,
    ],
    ['Can safely add a K8s control plane to an empty cluster', [], true, '', true],
    ['Can safely add a K8s control plane when there is at least one K8s control plane healthy', [true], true, '', true],
    [
      "Can't safely add a K8s control plane when there is at least one K8s control plane healthy",
      [false],
      true,
      '',
      false,
    ],
  ] as const)('%s', (_name, health, addMachine, toBeDeleted, expected) => {
    const machines = health.map((h, i) => k8s(`m${i + 1}`, h));
    expect(
      targetKubernetesControlPlaneComponentsHealthy({ machines, etcdManaged: true, addMachine, toBeDeleted }).ok,
    ).toBe(expected);
  });

  it('the etcd Pod counts only when etcd is managed', () => {
    const m = k8s('m1', true);
    m.status!.conditions = m.status!.conditions!.filter((c) => c.type !== 'EtcdPodHealthy');
    const input = { machines: [m], addMachine: false, toBeDeleted: '' };
    expect(targetKubernetesControlPlaneComponentsHealthy({ ...input, etcdManaged: true }).ok).toBe(false);
    expect(targetKubernetesControlPlaneComponentsHealthy({ ...input, etcdManaged: false }).ok).toBe(true);
  });
});
