import type { Condition } from '@capi/api';
import { decideMachineMarking, type MarkingContext } from './marking';

const NOW = new Date('2026-01-01T01:00:00Z');
const ctx: MarkingContext = { remediationAllowed: true, clusterPaused: false, clock: { now: () => NOW.getTime() } };
const machine = (conditions: Condition[] = [], deleting = false) => ({
  metadata: { name: 'm1', generation: 3, ...(deleting ? { deletionTimestamp: '2026-01-01T00:59:00Z' } : {}) },
  status: { conditions },
});
const unhealthy = { state: 'Unhealthy' as const, reason: 'UnhealthyNode', message: 'Health check failed:\n  * x' };
const types = (cs: Condition[]) => cs.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe('decideMachineMarking', () => {
  it('healthy → HealthCheckSucceeded=True only', () => {
    const m = decideMachineMarking(
      machine([{ type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' }]),
      { state: 'Healthy' },
      ctx,
    );
    expect(types(m.conditions)).toEqual(['HealthCheckSucceeded=True/HealthCheckSucceeded']);
    expect(m.conditions[0]).toMatchObject({ observedGeneration: 3, lastTransitionTime: '2026-01-01T01:00:00Z' });
    expect(m).toMatchObject({ changed: true, remediationRequested: false });
  });

  it('unhealthy → HealthCheckSucceeded=False and OwnerRemediated=False/WaitingForRemediation', () => {
    const m = decideMachineMarking(machine(), unhealthy, ctx);
    expect(types(m.conditions)).toEqual([
      'HealthCheckSucceeded=False/UnhealthyNode',
      'OwnerRemediated=False/WaitingForRemediation',
    ]);
    expect(m.conditions[1].message).toBe('Waiting for remediation');
    expect(m.remediationRequested).toBe(true);
  });

  it('remediation not allowed / cluster paused / deleting → marked but no OwnerRemediated', () => {
    for (const [mc, c] of [
      [machine(), { ...ctx, remediationAllowed: false }],
      [machine(), { ...ctx, clusterPaused: true }],
      [machine([], true), ctx],
    ] as const) {
      const m = decideMachineMarking(mc, unhealthy, c);
      expect(types(m.conditions)).toEqual(['HealthCheckSucceeded=False/UnhealthyNode']);
    }
  });

  it('does not overwrite an owner remediation in progress, re-triggers after a completed one', () => {
    const inProgress: Condition = {
      type: 'OwnerRemediated',
      status: 'False',
      reason: 'RemediationInProgress',
      lastTransitionTime: '2026-01-01T00:30:00Z',
    };
    expect(types(decideMachineMarking(machine([inProgress]), unhealthy, ctx).conditions)).toEqual([
      'HealthCheckSucceeded=False/UnhealthyNode',
    ]);
    const done: Condition = {
      type: 'OwnerRemediated',
      status: 'True',
      reason: 'OwnerRemediated',
      lastTransitionTime: '2026-01-01T00:30:00Z',
    };
    const m = decideMachineMarking(machine([done]), unhealthy, ctx);
    expect(types(m.conditions)).toContain('OwnerRemediated=False/WaitingForRemediation');
  });

  it('an unchanged marking needs no write and keeps lastTransitionTime; pending keeps the last report', () => {
    const first = decideMachineMarking(machine(), unhealthy, ctx);
    const later = { ...ctx, clock: { now: () => Date.parse('2026-01-01T02:00:00Z') } };
    const again = decideMachineMarking(machine(first.conditions), unhealthy, later);
    expect(again.changed).toBe(false);
    expect(again.conditions).toEqual(first.conditions);
    const pending = decideMachineMarking(machine(first.conditions), { state: 'Pending', detail: 'x' }, later);
    expect(pending).toMatchObject({ changed: false, conditions: first.conditions });
  });

  it('healthy again: HealthCheckSucceeded flips to True, the waiting marker stays (as upstream)', () => {
    const first = decideMachineMarking(machine(), unhealthy, ctx);
    const m = decideMachineMarking(machine(first.conditions), { state: 'Healthy' }, ctx);
    expect(types(m.conditions)).toEqual([
      'HealthCheckSucceeded=True/HealthCheckSucceeded',
      'OwnerRemediated=False/WaitingForRemediation',
    ]);
  });
});
