// The state a Machine's tile shows, one of a few colours, from the Machine's conditions and in-place state.
import { isUpdateInProgress, READY_CONDITION, UP_TO_DATE_CONDITION, type Condition, type Machine } from '@capi/api';

/**
 * In order of precedence:
 * - deleting: deletionTimestamp set (a replaced Machine goes away this way);
 * - updating: an in-place update in progress (update-in-progress annotation or pending UpdateMachine hook);
 * - outdated: UpToDate=False and nothing under way yet: waiting for an in-place update or a replacement;
 * - up-to-date: UpToDate=True and Ready=True;
 * - ready: Ready=True, UpToDate not reported yet;
 * - provisioning: anything else (a new Machine whose infrastructure or Node is not there yet).
 */
export type TileState = 'deleting' | 'updating' | 'outdated' | 'up-to-date' | 'ready' | 'provisioning';

export const TILE_LABELS: Readonly<Record<TileState, string>> = {
  deleting: 'Deleting',
  updating: 'Updating in place',
  outdated: 'Outdated (to be updated or replaced)',
  'up-to-date': 'Ready, up to date',
  ready: 'Ready',
  provisioning: 'Provisioning',
};

const statusOf = (m: Machine, type: string) =>
  ((m.status?.conditions ?? []) as Condition[]).find((c) => c.type === type)?.status;

export function tileState(m: Machine): TileState {
  if (m.metadata.deletionTimestamp) return 'deleting';
  if (isUpdateInProgress(m)) return 'updating';
  const upToDate = statusOf(m, UP_TO_DATE_CONDITION);
  if (upToDate === 'False') return 'outdated';
  const ready = statusOf(m, READY_CONDITION) === 'True';
  if (ready && upToDate === 'True') return 'up-to-date';
  return ready ? 'ready' : 'provisioning';
}
