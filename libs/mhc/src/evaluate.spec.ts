import { PENDING_HOOKS_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION, type Condition } from '@capi/api';
import {
  evaluateTarget,
  formatSeconds,
  type ClusterLike,
  type MachineChecks,
  type NodeLike,
  type TargetInput,
} from './evaluate';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (offsetS: number) => new Date(T0 + offsetS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const cond = (
  type: string,
  status: 'True' | 'False' | 'Unknown',
  sinceS: number,
  reason = 'SomeReason',
): Condition => ({ type, status, reason, lastTransitionTime: at(sinceS) });

const readyCluster: ClusterLike = {
  metadata: { name: 'c1' },
  status: { conditions: [cond('ControlPlaneInitialized', 'True', -3600), cond('InfrastructureReady', 'True', -3600)] },
};
const node = (conditions: { type: string; status: string; sinceS: number; reason?: string }[]): NodeLike => ({
  metadata: { name: 'n1' },
  status: {
    conditions: conditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? 'KubeletNotReady',
      lastTransitionTime: at(c.sinceS),
    })),
  },
});
const checks: MachineChecks = {
  nodeStartupTimeoutSeconds: 600,
  unhealthyNodeConditions: [
    { type: 'Ready', status: 'False', timeoutSeconds: 300 },
    { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
  ],
  unhealthyMachineConditions: [{ type: 'Updating', status: 'True', timeoutSeconds: 1800 }],
};
const machine = (
  o: {
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    conditions?: Condition[];
    nodeRef?: string;
    createdS?: number;
  } = {},
): TargetInput['machine'] => ({
  metadata: {
    name: 'm1',
    namespace: 'ns',
    creationTimestamp: at(o.createdS ?? -7200),
    annotations: o.annotations,
    labels: o.labels,
  },
  status: { conditions: o.conditions ?? [], ...(o.nodeRef ? { nodeRef: { name: o.nodeRef } } : {}) },
});
const input = (over: Partial<TargetInput>): TargetInput => ({
  machine: machine({ nodeRef: 'n1' }),
  cluster: readyCluster,
  checks,
  now: new Date(T0),
  ...over,
});
const updating = { [UPDATE_IN_PROGRESS_ANNOTATION]: '' };

describe('formatSeconds (Go duration strings)', () => {
  it.each([
    [0, '0s'],
    [10, '10s'],
    [300, '5m0s'],
    [1800, '30m0s'],
    [3661, '1h1m1s'],
  ])('%d → %s', (s, out) => expect(formatSeconds(s)).toBe(out));
});

describe('evaluateTarget', () => {
  it('healthy Machine with a Ready Node', () => {
    expect(evaluateTarget(input({ node: node([{ type: 'Ready', status: 'True', sinceS: -100 }]) }))).toEqual({
      state: 'Healthy',
    });
  });

  it('Node NotReady past the timeout → UnhealthyNode with upstream message', () => {
    const h = evaluateTarget(input({ node: node([{ type: 'Ready', status: 'False', sinceS: -301 }]) }));
    expect(h).toEqual({
      state: 'Unhealthy',
      reason: 'UnhealthyNode',
      message:
        'Health check failed:\n  * Condition Ready on Node is reporting status False with reason KubeletNotReady for more than 5m0s',
    });
  });

  it('Node NotReady within the timeout → pending, next check just after the timeout', () => {
    const h = evaluateTarget(input({ node: node([{ type: 'Ready', status: 'False', sinceS: -100 }]) }));
    expect(h).toMatchObject({ state: 'Pending', nextCheckMs: 201_000 });
  });

  it('exactly at the timeout is not yet unhealthy (strictly after, as upstream)', () => {
    expect(evaluateTarget(input({ node: node([{ type: 'Ready', status: 'False', sinceS: -300 }]) })).state).toBe(
      'Pending',
    );
  });

  it('Node deleted → NodeDeleted', () => {
    expect(evaluateTarget(input({ nodeMissing: true }))).toEqual({
      state: 'Unhealthy',
      reason: 'NodeDeleted',
      message: 'Health check failed:\n  * Node n1 has been deleted',
    });
  });

  it('no Node past nodeStartupTimeout → NodeStartupTimeout; before it → pending until the deadline', () => {
    const late = evaluateTarget(input({ machine: machine({ createdS: -601 }) }));
    expect(late).toEqual({
      state: 'Unhealthy',
      reason: 'NodeStartupTimeout',
      message: 'Health check failed:\n  * Node failed to report startup in 10m0s',
    });
    const early = evaluateTarget(input({ machine: machine({ createdS: -60 }) }));
    expect(early).toMatchObject({ state: 'Pending', nextCheckMs: 541_000 });
  });

  it('node startup is counted from the latest of creation / cluster and machine readiness', () => {
    const m = machine({ createdS: -7200, conditions: [cond('InfrastructureReady', 'True', -30)] });
    expect(evaluateTarget(input({ machine: m }))).toMatchObject({ state: 'Pending', nextCheckMs: 571_000 });
  });

  it('nodeStartupTimeoutSeconds=0 disables the startup check', () => {
    expect(
      evaluateTarget(
        input({ machine: machine({ createdS: -7200 }), checks: { ...checks, nodeStartupTimeoutSeconds: 0 } }),
      ).state,
    ).toBe('Pending');
  });

  it('Machine condition past its timeout → UnhealthyMachine', () => {
    const m = machine({ nodeRef: 'n1', conditions: [cond('Updating', 'True', -1801, 'InPlaceUpdating')] });
    const h = evaluateTarget(input({ machine: m, node: node([{ type: 'Ready', status: 'True', sinceS: -100 }]) }));
    expect(h).toEqual({
      state: 'Unhealthy',
      reason: 'UnhealthyMachine',
      message:
        'Health check failed:\n  * Condition Updating on Machine is reporting status True with reason InPlaceUpdating for more than 30m0s',
    });
  });

  it('Machine and Node failures together: reason UnhealthyMachine, both messages', () => {
    const m = machine({ nodeRef: 'n1', conditions: [cond('Updating', 'True', -1801, 'InPlaceUpdating')] });
    const h = evaluateTarget(input({ machine: m, node: node([{ type: 'Ready', status: 'False', sinceS: -400 }]) }));
    expect(h).toMatchObject({ state: 'Unhealthy', reason: 'UnhealthyMachine' });
    expect((h as { message: string }).message.split('\n')).toHaveLength(3);
  });

  describe('Machines being updated in place: no special case (as upstream)', () => {
    it('updating Machine with a NotReady Node past the timeout → UnhealthyNode', () => {
      const m = machine({
        nodeRef: 'n1',
        annotations: updating,
        conditions: [cond('Updating', 'True', -60, 'InPlaceUpdating')],
      });
      const h = evaluateTarget(input({ machine: m, node: node([{ type: 'Ready', status: 'False', sinceS: -3600 }]) }));
      expect(h).toEqual({
        state: 'Unhealthy',
        reason: 'UnhealthyNode',
        message:
          'Health check failed:\n  * Condition Ready on Node is reporting status False with reason KubeletNotReady for more than 5m0s',
      });
    });

    it('updating Machine with a NotReady Node within the timeout → pending until the earliest timeout', () => {
      const m = machine({
        nodeRef: 'n1',
        annotations: updating,
        conditions: [cond('Updating', 'True', -60, 'InPlaceUpdating')],
      });
      expect(
        evaluateTarget(input({ machine: m, node: node([{ type: 'Ready', status: 'False', sinceS: -100 }]) })),
      ).toMatchObject({ state: 'Pending', nextCheckMs: 201_000 });
    });

    it('pending UpdateMachine hook with a deleted Node → NodeDeleted', () => {
      const m = machine({ nodeRef: 'n1', annotations: { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' } });
      expect(evaluateTarget(input({ machine: m, nodeMissing: true }))).toMatchObject({
        state: 'Unhealthy',
        reason: 'NodeDeleted',
      });
    });

    it('updating Machine without a Node: the node startup timeout still applies', () => {
      const m = machine({ createdS: -601, annotations: updating });
      expect(evaluateTarget(input({ machine: m }))).toMatchObject({ state: 'Unhealthy', reason: 'NodeStartupTimeout' });
    });

    it('Updating=True longer than configured and a bad Node → UnhealthyMachine with both findings', () => {
      const m = machine({
        nodeRef: 'n1',
        annotations: updating,
        conditions: [cond('Updating', 'True', -1801, 'InPlaceUpdating')],
      });
      const h = evaluateTarget(input({ machine: m, node: node([{ type: 'Ready', status: 'False', sinceS: -3600 }]) }));
      expect(h).toEqual({
        state: 'Unhealthy',
        reason: 'UnhealthyMachine',
        message:
          'Health check failed:\n  * Condition Updating on Machine is reporting status True with reason InPlaceUpdating for more than 30m0s\n' +
          '  * Condition Ready on Node is reporting status False with reason KubeletNotReady for more than 5m0s',
      });
    });

    it('updating Machine with a healthy Node is healthy', () => {
      const m = machine({
        nodeRef: 'n1',
        annotations: updating,
        conditions: [cond('Updating', 'True', -1900, 'InPlaceUpdating')],
      });
      const h = evaluateTarget(
        input({
          machine: m,
          node: node([{ type: 'Ready', status: 'True', sinceS: -10 }]),
          checks: { ...checks, unhealthyMachineConditions: [] },
        }),
      );
      expect(h).toEqual({ state: 'Healthy' });
    });
  });

  it('remediate-machine annotation → unhealthy right away', () => {
    const m = machine({ nodeRef: 'n1', annotations: { 'cluster.x-k8s.io/remediate-machine': '' } });
    expect(evaluateTarget(input({ machine: m, node: node([]) }))).toMatchObject({
      state: 'Unhealthy',
      reason: 'HasRemediateAnnotation',
    });
  });

  it('does not penalize workers before the control plane is initialized, but does control plane Machines', () => {
    const cluster: ClusterLike = {
      metadata: { name: 'c1' },
      status: { conditions: [cond('InfrastructureReady', 'True', -3600)] },
    };
    expect(evaluateTarget(input({ cluster, nodeMissing: true })).state).toBe('Pending');
    const cp = machine({ nodeRef: 'n1', labels: { 'cluster.x-k8s.io/control-plane': '' } });
    expect(evaluateTarget(input({ cluster, machine: cp, nodeMissing: true })).state).toBe('Unhealthy');
  });

  it('does not penalize anything before the cluster infrastructure is ready', () => {
    const cluster: ClusterLike = {
      metadata: { name: 'c1' },
      status: { conditions: [cond('ControlPlaneInitialized', 'True', -3600)] },
    };
    expect(evaluateTarget(input({ cluster, nodeMissing: true })).state).toBe('Pending');
  });

  it('accepts Cluster status.initialization flags instead of conditions', () => {
    const cluster: ClusterLike = {
      metadata: { name: 'c1' },
      status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } },
    };
    expect(evaluateTarget(input({ cluster, nodeMissing: true })).state).toBe('Unhealthy');
  });

  it('a deleting Machine is never reported healthy', () => {
    const m = { ...machine({ nodeRef: 'n1' }), metadata: { ...machine().metadata, deletionTimestamp: at(-1) } };
    expect(evaluateTarget(input({ machine: m, node: node([]) })).state).toBe('Pending');
  });
});
