import { REVISION_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION, type Cluster, type MachineDeployment } from '@capi/api';
import { ROLLOUT_POLICY_ANNOTATION } from '@capi/inplace';
import { machine, machineDeployment, machineSet } from '../testing/fixtures';
import {
  MACHINE_DELETING_MESSAGE,
  PENDING_ROLLOUT_MESSAGE,
  RemediationConfigError,
  planRemediation,
  remediatingCondition,
  remediationMaxInFlight,
  sortMachinesToRemediate,
} from './remediation';

const names = (ms: { metadata: { name?: string } }[]) => ms.map((m) => m.metadata.name);
const unhealthy = { type: 'HealthCheckSucceeded', status: 'False' as const, reason: 'UnhealthyNode' };
const waiting = { type: 'OwnerRemediated', status: 'False' as const, reason: 'WaitingForRemediation' };
const marked = (name: string, opts: Parameters<typeof machine>[1] = {}) =>
  machine(name, { ...opts, conditions: [unhealthy, waiting, ...(opts.conditions ?? [])] });

const rev = { [REVISION_ANNOTATION]: '2' };
function md(maxInFlight?: number | string, replicas = 3): MachineDeployment {
  const d = machineDeployment({ replicas });
  d.metadata.annotations = { ...rev };
  if (maxInFlight !== undefined) d.spec.remediation = { maxInFlight };
  return d;
}
const ms = (annotations: Record<string, string> = rev) => machineSet('ms', { annotations });

describe('planRemediation', () => {
  it('deletes every marked Machine when maxInFlight is unset, writing MachineDeleting first', () => {
    const plan = planRemediation({
      ms: ms(),
      md: md(),
      cluster: undefined,
      machines: [marked('a'), machine('b'), marked('c')],
    });
    expect(names(plan.toDelete)).toEqual(['a', 'c']);
    expect(plan.conditions.map((c) => [c.machine.metadata.name, c.reason, c.message])).toEqual([
      ['a', 'MachineDeleting', MACHINE_DELETING_MESSAGE],
      ['c', 'MachineDeleting', MACHINE_DELETING_MESSAGE],
    ]);
  });

  it('ignores Machines that are only unhealthy, or only OwnerRemediated, or already deleting', () => {
    const onlyUnhealthy = machine('a', { conditions: [unhealthy] });
    const onlyOr = machine('b', { conditions: [waiting] });
    const deleting = marked('c', { deleting: true });
    const plan = planRemediation({
      ms: ms(),
      md: md(),
      cluster: undefined,
      machines: [onlyUnhealthy, onlyOr, deleting],
    });
    expect(plan.toDelete).toEqual([]);
    expect(plan.conditions).toEqual([]);
  });

  it('remediates Machines updating in place like any other', () => {
    const updating = marked('u', { annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' } });
    expect(names(planRemediation({ ms: ms(), md: md(), cluster: undefined, machines: [updating] }).toDelete)).toEqual([
      'u',
    ]);
  });

  it('with maxInFlight 1 deletes one (newest first) and defers the rest', () => {
    const older = marked('older', { created: '2026-01-01T00:00:00Z' });
    const newer = marked('newer', { created: '2026-01-05T00:00:00Z' });
    const plan = planRemediation({ ms: ms(), md: md(1), cluster: undefined, machines: [older, newer] });
    expect(names(plan.toDelete)).toEqual(['newer']);
    expect(plan.conditions.map((c) => [c.machine.metadata.name, c.reason])).toEqual([
      ['older', 'RemediationDeferred'],
      ['newer', 'MachineDeleting'],
    ]);
    expect(plan.conditions[0].message).toBe(
      'Waiting because there are already too many remediations in progress (spec.strategy.remediation.maxInFlight is 1)',
    );
  });

  it('counts remediations still in flight (deleting with MachineDeleting) against maxInFlight', () => {
    const inFlight = machine('gone', {
      deleting: true,
      conditions: [unhealthy, { type: 'OwnerRemediated', status: 'False', reason: 'MachineDeleting' }],
    });
    const otherDeleting = machine('scaled-down', { deleting: true });
    const plan = planRemediation({
      ms: ms(),
      md: md(1),
      cluster: undefined,
      machines: [inFlight, otherDeleting, marked('next')],
    });
    expect(plan.toDelete).toEqual([]);
    expect(plan.conditions.map((c) => [c.machine.metadata.name, c.reason])).toEqual([['next', 'RemediationDeferred']]);
    // With 2 tokens the in-flight one uses one; only deleting Machines remediated by us count.
    expect(
      names(
        planRemediation({
          ms: ms(),
          md: md(2),
          cluster: undefined,
          machines: [inFlight, otherDeleting, marked('next')],
        }).toDelete,
      ),
    ).toEqual(['next']);
  });

  it('resolves a percent maxInFlight against the MD replicas, rounding up', () => {
    expect(remediationMaxInFlight(md('34%', 3))).toBe(2);
    expect(remediationMaxInFlight(md('10%', 5))).toBe(1);
    expect(remediationMaxInFlight(md(undefined))).toBe(Number.POSITIVE_INFINITY);
    expect(() => remediationMaxInFlight(md('many'))).toThrow(RemediationConfigError);
    const three = [
      marked('a', { created: '2026-01-01T00:00:00Z' }),
      marked('b', { created: '2026-01-02T00:00:00Z' }),
      marked('c', { created: '2026-01-03T00:00:00Z' }),
    ];
    expect(
      names(planRemediation({ ms: ms(), md: md('34%', 3), cluster: undefined, machines: three }).toDelete),
    ).toEqual(['c', 'b']);
  });

  it('does not remediate on an old revision of the MachineDeployment, saying why', () => {
    const plan = planRemediation({
      ms: ms({ [REVISION_ANNOTATION]: '1' }),
      md: md(),
      cluster: undefined,
      machines: [marked('a')],
    });
    expect(plan.toDelete).toEqual([]);
    expect(plan.conditions.map((c) => [c.reason, c.message])).toEqual([
      ['CannotBeRemediated', PENDING_ROLLOUT_MESSAGE],
    ]);
  });

  it('remediates on an old revision while the InPlaceOnly policy holds the rollout back (RolloutBlocked True)', () => {
    const held = (status: 'True' | 'False', policy = 'InPlaceOnly') => {
      const d = md();
      d.metadata.annotations = { ...rev, [ROLLOUT_POLICY_ANNOTATION]: policy };
      d.status = { conditions: [{ type: 'RolloutBlocked', status, reason: 'x', lastTransitionTime: '' }] };
      return planRemediation({
        ms: ms({ [REVISION_ANNOTATION]: '1' }),
        md: d,
        cluster: undefined,
        machines: [marked('a')],
      });
    };
    expect(names(held('True').toDelete)).toEqual(['a']);
    expect(names(held('True', 'Bogus').toDelete)).toEqual(['a']);
    // Not held back (the rollout proceeds): the rollout replaces or updates the old Machines, as upstream.
    expect(names(held('False').toDelete)).toEqual([]);
  });

  it('a MachineSet without a MachineDeployment has no limit and no revision check', () => {
    const standalone = machineSet('ms');
    delete standalone.metadata.labels;
    expect(
      names(
        planRemediation({ ms: standalone, md: undefined, cluster: undefined, machines: [marked('a'), marked('b')] })
          .toDelete,
      ).sort(),
    ).toEqual(['a', 'b']);
  });

  it('is skipped while the MachineSet or the Cluster is paused', () => {
    const paused = planRemediation({
      ms: ms({ ...rev, 'cluster.x-k8s.io/paused': '' }),
      md: md(),
      cluster: undefined,
      machines: [marked('a')],
    });
    expect(paused.skipped).toMatch(/paused annotation/);
    expect(paused.toDelete).toEqual([]);
    const cluster = { spec: { paused: true } } as unknown as Cluster;
    expect(planRemediation({ ms: ms(), md: md(), cluster, machines: [marked('a')] }).skipped).toMatch(
      /Cluster spec.paused/,
    );
  });

  it('gives up OwnerRemediated conditions it wrote on Machines that are healthy again', () => {
    const healthy = { type: 'HealthCheckSucceeded', status: 'True' as const, reason: 'HealthCheckSucceeded' };
    const recovered = machine('r', {
      conditions: [healthy, { type: 'OwnerRemediated', status: 'False', reason: 'RemediationDeferred' }],
    });
    const mhcMarker = machine('m', { conditions: [healthy, waiting] });
    expect(
      names(planRemediation({ ms: ms(), md: md(), cluster: undefined, machines: [recovered, mhcMarker] }).cleanup),
    ).toEqual(['r']);
  });
});

describe('sortMachinesToRemediate', () => {
  it('puts remediate-machine annotated Machines first, then newest, then by name', () => {
    const a = machine('a', { created: '2026-01-01T00:00:00Z' });
    const b = machine('b', { created: '2026-01-03T00:00:00Z' });
    const c = machine('c', { created: '2026-01-03T00:00:00Z' });
    const annotated = machine('z', {
      created: '2025-01-01T00:00:00Z',
      annotations: { 'cluster.x-k8s.io/remediate-machine': '' },
    });
    expect(names(sortMachinesToRemediate([a, c, b, annotated]))).toEqual(['z', 'b', 'c', 'a']);
  });
});

describe('remediatingCondition', () => {
  it('is True with the OwnerRemediated messages while Machines are to be remediated, else False naming unhealthy ones', () => {
    const deleting = machine('a', {
      deleting: true,
      conditions: [
        unhealthy,
        { type: 'OwnerRemediated', status: 'False', reason: 'MachineDeleting', message: 'Machine is deleting' },
      ],
    });
    const c = remediatingCondition([deleting, machine('b')]);
    expect(c).toMatchObject({ type: 'Remediating', status: 'True', reason: 'Remediating' });
    expect(c.message).toContain('Machine a: Machine is deleting');
    expect(remediatingCondition([machine('b')])).toEqual({
      type: 'Remediating',
      status: 'False',
      reason: 'NotRemediating',
      message: undefined,
    });
    expect(remediatingCondition([machine('u', { conditions: [unhealthy] })]).message).toBe(
      'Machine u is not healthy (not to be remediated by MachineSet)',
    );
  });
});
