import type { Condition } from '@capi/api';
import { changedConditionTypes, rebaseConditions } from './conditions-rebase';

const c = (type: string, status: Condition['status'], reason = type): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

describe('conditions rebase', () => {
  it('finds added, changed and removed types only', () => {
    const changed = changedConditionTypes(
      [c('Ready', 'False'), c('Deleting', 'False'), c('Gone', 'True')],
      [c('Ready', 'True'), c('Deleting', 'False'), c('New', 'True')],
    );
    expect([...changed].sort()).toEqual(['Gone', 'New', 'Ready']);
  });

  it('keeps conditions another controller wrote after our read, and applies ours', () => {
    // We read [Ready=False]; meanwhile the owner added UpToDate=True; we change Ready and add Available.
    const before = [c('Ready', 'False')];
    const after = [c('Ready', 'True'), c('Available', 'True')];
    const latest = [c('Ready', 'False'), c('UpToDate', 'True')];
    const out = rebaseConditions(latest, after, changedConditionTypes(before, after));
    expect(out).toEqual([c('Ready', 'True'), c('UpToDate', 'True'), c('Available', 'True')]);
  });

  it('drops a type we removed, but not one we never touched', () => {
    const before = [c('Paused', 'True'), c('Ready', 'True')];
    const after = [c('Ready', 'True')];
    const out = rebaseConditions(
      [c('Paused', 'True'), c('Ready', 'True'), c('HealthCheckSucceeded', 'False')],
      after,
      changedConditionTypes(before, after),
    );
    expect(out).toEqual([c('Ready', 'True'), c('HealthCheckSucceeded', 'False')]);
  });

  it('overrides a newer value of a type we changed (we own it)', () => {
    const out = rebaseConditions(
      [c('Updating', 'True', 'InPlaceUpdating')],
      [c('Updating', 'False', 'NotUpdating')],
      new Set(['Updating']),
    );
    expect(out).toEqual([c('Updating', 'False', 'NotUpdating')]);
  });
});
