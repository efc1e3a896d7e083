// Before deleting a control-plane Machine, KCP moves the etcd leadership away from it (upstream scale.go
// scaleDownControlPlane and remediation.go call forwardEtcdLeadership before Delete); here the gates around it.
import type { Condition, Machine } from '@capi/api';
import type { ReconcileLogger } from '@capi/controller-runtime';
import type { ControlPlaneObservation } from './control-plane-view';
import type { ControlPlaneMachine } from './decide';
import { forwardEtcdLeadershipBeforeDelete } from './pre-terminate-io';
import { reconcileUnhealthyMachines } from './remediation-step';
import { kcp as kcpFixture, machine as machineFixture } from './testing/fixtures';
import type { WorkloadCluster } from './workload-cluster';

const log: ReconcileLogger = { log: () => undefined, error: () => undefined, debug: () => undefined } as never;
const healthy: Condition = { type: 'EtcdMemberHealthy', status: 'True', reason: 'R', lastTransitionTime: '' };

function m(name: string, created: string, conditions: Condition[] = []): Machine {
  const x = machineFixture(name);
  x.metadata.creationTimestamp = created;
  x.status = { nodeRef: { name: `${name}-node` }, conditions };
  return x;
}

function fixture(o: Partial<ControlPlaneObservation> & { leader?: string | null; moveFails?: string[] } = {}) {
  const machines = [
    m('old', '2026-01-01T00:00:00Z', [healthy]),
    m('newer', '2026-01-02T00:00:00Z'),
    m('newest-healthy', '2026-01-03T00:00:00Z', [healthy]),
  ];
  const forwarded: string[] = [];
  const wc = {
    forwardEtcdLeadership: async (_from: Machine, to: Machine | undefined) => {
      if (o.moveFails?.includes(to!.metadata.name!)) throw new Error(`cannot move to ${to!.metadata.name}`);
      forwarded.push(to!.metadata.name!);
    },
  } as unknown as WorkloadCluster;
  const leader =
    o.leader === undefined ? { id: '1', name: 'old-node' } : o.leader ? { id: '1', name: o.leader } : undefined;
  const observed = {
    view: machines.map((machine) => ({ machine, upToDate: true }) as unknown as ControlPlaneMachine),
    machineHealth: new Map(),
    kcpHealth: [],
    controlPlaneNodeReady: true,
    etcdManaged: true,
    workload: wc,
    etcdLeader: leader,
    ...o,
  } as ControlPlaneObservation;
  return { run: () => forwardEtcdLeadershipBeforeDelete(kcpFixture(), observed, machines[0], log), forwarded };
}

describe('forwardEtcdLeadershipBeforeDelete', () => {
  it('moves the leadership from the leading Machine to the best candidate (healthy member, then newest)', async () => {
    const f = fixture();
    await f.run();
    expect(f.forwarded).toEqual(['newest-healthy']);
  });

  it('tries the next candidate when a move fails', async () => {
    const f = fixture({ moveFails: ['newest-healthy'] });
    await f.run();
    expect(f.forwarded).toEqual(['newer']);
  });

  it('fails when no candidate takes the leadership', async () => {
    const f = fixture({ moveFails: ['newest-healthy', 'newer'] });
    await expect(f.run()).rejects.toThrow('failed to move etcd leadership');
  });

  it('does nothing when the Machine does not lead', async () => {
    const f = fixture({ leader: 'newer-node' });
    await f.run();
    expect(f.forwarded).toEqual([]);
  });

  it('does nothing when etcd is not managed by KCP (external etcd)', async () => {
    const f = fixture({ etcdManaged: false, leader: null, workload: undefined });
    await f.run();
    expect(f.forwarded).toEqual([]);
  });

  it('fails without the Nodes (upstream NodeListError)', async () => {
    const f = fixture({ nodesError: 'connection refused' });
    await expect(f.run()).rejects.toThrow('unable to forward etcd leadership: connection refused');
    expect(f.forwarded).toEqual([]);
  });

  it('fails when the etcd leader was not detected', async () => {
    const f = fixture({ leader: null });
    await expect(f.run()).rejects.toThrow('unable to move etcd leadership, failed to detect etcd leader');
  });

  it('fails when the workload cluster could not be reached', async () => {
    const f = fixture({ workload: undefined });
    await expect(f.run()).rejects.toThrow('failed to create client to workload cluster');
  });
});

describe('remediation moves the etcd leadership before deleting (upstream remediation.go)', () => {
  const marked: Condition[] = [
    { type: 'HealthCheckSucceeded', status: 'False', reason: 'UnhealthyNode', lastTransitionTime: '' },
    { type: 'OwnerRemediated', status: 'False', reason: 'WaitingForRemediation', lastTransitionTime: '' },
  ];
  const setup = (forward: (m: Machine) => Promise<void>) => {
    const machines = ['a', 'b', 'c'].map((n, i) => m(n, `2026-01-0${i + 1}T00:00:00Z`, n === 'a' ? marked : []));
    const view = machines.map(
      (machine) =>
        ({ machine, upToDate: true, eligibleForInPlaceUpdate: false, nodeHealthy: true }) as ControlPlaneMachine,
    );
    const calls: string[] = [];
    const client = {
      apply: async (obj: { status: { conditions: Condition[] } }) => {
        const c = obj.status.conditions.find((x) => x.type === 'OwnerRemediated')!;
        calls.push(`apply OwnerRemediated ${c.reason}${c.message ? `: ${c.message}` : ''}`);
        return obj;
      },
      delete: async (ref: { name: string }) => void calls.push(`delete ${ref.name}`),
      patch: async () => {
        calls.push('patch kcp');
        return { metadata: {} };
      },
    };
    const k = kcpFixture();
    k.status = { initialization: { controlPlaneInitialized: true } };
    const step = {
      io: { client, applier: undefined, resolver: undefined } as never,
      log,
      clock: { now: () => Date.parse('2026-03-01T12:00:00Z') } as never,
      forwardEtcdLeadership: async (x: Machine) => {
        calls.push(`forward ${x.metadata.name}`);
        await forward(x);
      },
    };
    return { run: () => reconcileUnhealthyMachines(step, k, view), calls };
  };

  it('forwards, then deletes', async () => {
    const s = setup(async () => undefined);
    await expect(s.run()).resolves.toEqual({ deleted: true });
    expect(s.calls.slice(0, 3)).toEqual(['forward a', 'apply OwnerRemediated MachineDeleting', 'delete a']);
  });

  it('a failed move is CannotBeRemediated with the error and nothing is deleted', async () => {
    const s = setup(async () => {
      throw new Error('failed to move etcd leadership');
    });
    await expect(s.run()).rejects.toThrow('failed to move etcd leadership');
    expect(s.calls).toEqual(['forward a', 'apply OwnerRemediated CannotBeRemediated: failed to move etcd leadership']);
  });
});
