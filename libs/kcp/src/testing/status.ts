// Builders for the status specs: Machines and KCPs as bare as upstream status_test.go's.
import type { Condition, KubeadmControlPlane, Machine } from '@capi/api';

export const T0 = Date.parse('2026-06-01T12:00:00Z');
export const iso = (ms: number): string => new Date(ms).toISOString();

export type Cond = Partial<Condition> & Pick<Condition, 'type' | 'status'>;

/** A condition as upstream's tests write them (empty reason/time when not given). */
export const cond = (c: Cond): Condition => ({ reason: '', lastTransitionTime: iso(T0), ...c });

export function bareMachine(
  name: string,
  opts: { conditions?: Cond[]; created?: string; deleting?: string; annotations?: Record<string, string> } = {},
): Machine {
  return {
    kind: 'Machine',
    metadata: {
      name,
      creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
      ...(opts.deleting ? { deletionTimestamp: opts.deleting } : {}),
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { apiGroup: '', kind: '', name: '' } },
    status: { conditions: (opts.conditions ?? []).map(cond) },
  } as unknown as Machine;
}

export function bareKcp(
  opts: { replicas?: number; infraKind?: string; deleting?: boolean; status?: KubeadmControlPlane['status'] } = {},
): KubeadmControlPlane {
  return {
    kind: 'KubeadmControlPlane',
    metadata: { name: 'kcp-test', namespace: 'default', ...(opts.deleting ? { deletionTimestamp: iso(T0) } : {}) },
    spec: {
      ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
      machineTemplate: { spec: { infrastructureRef: { apiGroup: '', kind: opts.infraKind ?? '', name: '' } } },
      kubeadmConfigSpec: {},
    },
    ...(opts.status ? { status: opts.status } : {}),
  } as unknown as KubeadmControlPlane;
}
