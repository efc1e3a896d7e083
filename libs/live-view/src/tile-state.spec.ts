import {
  PENDING_HOOKS_ANNOTATION,
  READY_CONDITION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UP_TO_DATE_CONDITION,
  type Machine,
} from '@capi/api';
import { tileState } from './tile-state';

function machine(o: {
  ready?: string;
  upToDate?: string;
  annotations?: Record<string, string>;
  deleting?: boolean;
}): Machine {
  const conditions = [
    ...(o.ready ? [{ type: READY_CONDITION, status: o.ready }] : []),
    ...(o.upToDate ? [{ type: UP_TO_DATE_CONDITION, status: o.upToDate }] : []),
  ];
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: 'm',
      annotations: o.annotations,
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { clusterName: 'c' },
    status: { conditions },
  } as unknown as Machine;
}

describe('tileState', () => {
  it.each([
    [{ ready: 'True', upToDate: 'True' }, 'up-to-date'],
    [{ ready: 'True' }, 'ready'],
    [{ ready: 'False', upToDate: 'True' }, 'provisioning'],
    [{}, 'provisioning'],
    [{ ready: 'True', upToDate: 'False' }, 'outdated'],
    [{ ready: 'True', upToDate: 'False', annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' } }, 'updating'],
    [{ ready: 'True', upToDate: 'False', annotations: { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' } }, 'updating'],
    [{ ready: 'True', upToDate: 'False', deleting: true }, 'deleting'],
    [{ annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' }, deleting: true }, 'deleting'],
  ] as const)('%j → %s', (o, want) => expect(tileState(machine(o))).toBe(want));
});
