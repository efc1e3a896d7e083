// MachineHealthCheck controller against the embedded API server (management) and a second one (workload cluster).
import { UPDATE_IN_PROGRESS_ANNOTATION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually, settle } from '@capi/envtest';
import {
  CAPI,
  conditionOf,
  createClusterWithWorkload,
  createMachine,
  createNode,
  machineRef,
  mhcRef,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(60_000);

describe('MachineHealthCheck controller (envtest)', () => {
  let h: Harness;
  const ns = 'mhc';
  const getMachine = (name: string) => h.client.get<KubeObject>(machineRef(ns, name));
  const getMhc = (name: string) => h.client.get<KubeObject>(mhcRef(ns, name));
  const ready = (sinceS: number) => [
    { type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: h.clock.at(sinceS) },
  ];
  const notReady = (sinceS: number) => [
    { type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastTransitionTime: h.clock.at(sinceS) },
  ];
  const createMhc = (name: string, pool: string, extra: Record<string, unknown> = {}) =>
    h.client.create({
      apiVersion: CAPI,
      kind: 'MachineHealthCheck',
      metadata: { name, namespace: ns },
      spec: {
        clusterName: 'c1',
        selector: { matchLabels: { pool } },
        checks: {
          nodeStartupTimeoutSeconds: 600,
          unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }],
          unhealthyMachineConditions: [
            { type: 'Updating', status: 'True', timeoutSeconds: 1800 },
            { type: 'InfrastructureReady', status: 'False', timeoutSeconds: 300 },
          ],
        },
        ...extra,
      },
    });

  beforeAll(async () => {
    h = await startHarness();
    await createClusterWithWorkload(h, ns, 'c1');
  });
  afterAll(async () => h?.close());

  it('marks a Machine whose Machine condition is bad past its timeout for remediation; healthy ones succeed', async () => {
    await createNode(h, 'n-a1', ready(-1000));
    await createNode(h, 'n-a2', ready(-1000));
    await createMachine(h, ns, 'c1', 'a1', { labels: { pool: 'a' }, nodeName: 'n-a1' });
    await createMachine(h, ns, 'c1', 'a2', {
      labels: { pool: 'a' },
      nodeName: 'n-a2',
      conditions: [
        { type: 'InfrastructureReady', status: 'False', reason: 'InfraGone', lastTransitionTime: h.clock.at(-301) },
      ],
    });
    await createMhc('pool-a', 'a');

    const a2 = await eventually(async () => {
      const m = await getMachine('a2');
      return conditionOf(m, 'OwnerRemediated') && m;
    }, 'a2 marked');
    expect(conditionOf(a2, 'HealthCheckSucceeded')).toMatchObject({
      status: 'False',
      reason: 'UnhealthyMachine',
      message:
        'Health check failed:\n  * Condition InfrastructureReady on Machine is reporting status False with reason InfraGone for more than 5m0s',
    });
    expect(conditionOf(a2, 'OwnerRemediated')).toMatchObject({
      status: 'False',
      reason: 'WaitingForRemediation',
      message: 'Waiting for remediation',
    });
    expect(
      a2.metadata.managedFields?.some(
        (f) => f.manager === 'capi-machinehealthcheck' && f.operation === 'Apply' && f.subresource === 'status',
      ),
    ).toBe(true);

    const a1 = await eventually(async () => {
      const m = await getMachine('a1');
      return conditionOf(m, 'HealthCheckSucceeded') && m;
    }, 'a1 checked');
    expect(conditionOf(a1, 'HealthCheckSucceeded')).toMatchObject({ status: 'True', reason: 'HealthCheckSucceeded' });
    expect(conditionOf(a1, 'OwnerRemediated')).toBeUndefined();

    const mhc = await eventually(async () => {
      const o = await getMhc('pool-a');
      return (o.status as { currentHealthy?: number } | undefined)?.currentHealthy === 1 && o;
    }, 'MHC status');
    expect(mhc.status).toMatchObject({
      expectedMachines: 2,
      currentHealthy: 1,
      remediationsAllowed: 1,
      targets: ['a1', 'a2'],
      observedGeneration: 1,
    });
    expect(conditionOf(mhc, 'RemediationAllowed')).toMatchObject({ status: 'True', reason: 'RemediationAllowed' });
    expect(conditionOf(mhc, 'Paused')).toMatchObject({ status: 'False', reason: 'NotPaused' });
    expect(mhc.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe('c1');
    expect(mhc.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Cluster', name: 'c1' });
  });

  it('restores its conditions when another writer replaces the Machine condition list (Machine watch)', async () => {
    // A JSON merge patch replaces the whole list, as the Machine controller's status patch does from a stale read.
    await h.client.patch(
      machineRef(ns, 'a2'),
      'merge',
      {
        status: {
          conditions: [
            { type: 'InfrastructureReady', status: 'False', reason: 'InfraGone', lastTransitionTime: h.clock.at(-400) },
          ],
        },
      },
      { subresource: 'status' },
    );
    const a2 = await eventually(async () => {
      const m = await getMachine('a2');
      return conditionOf(m, 'OwnerRemediated') && conditionOf(m, 'HealthCheckSucceeded') && m;
    }, 'a2 re-marked');
    expect(conditionOf(a2, 'HealthCheckSucceeded')).toMatchObject({ status: 'False', reason: 'UnhealthyMachine' });
    expect(conditionOf(a2, 'InfrastructureReady')).toMatchObject({ reason: 'InfraGone' });
  });

  it('a reconcile with nothing new writes nothing', async () => {
    await settle(h.manager, ['machinehealthcheck']);
    const before = h.counts.count('patch') + h.counts.count('apply') + h.counts.count('update');
    await h.reconcile({ namespace: ns, name: 'pool-a' });
    expect(h.counts.count('patch') + h.counts.count('apply') + h.counts.count('update')).toBe(before);
  });

  it('an updating Machine is checked like any other (no in-place special case): NotReady Node past its timeout is remediated', async () => {
    await createNode(h, 'n-u1', notReady(-3600));
    await createMachine(h, ns, 'c1', 'u1', {
      labels: { pool: 'u' },
      nodeName: 'n-u1',
      annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' },
      conditions: [
        {
          type: 'Updating',
          status: 'True',
          reason: 'InPlaceUpdating',
          message: 'In-place update in progress',
          lastTransitionTime: h.clock.at(-60),
        },
      ],
    });
    await createMhc('pool-u', 'u');
    const u1 = await eventually(async () => {
      const m = await getMachine('u1');
      return conditionOf(m, 'OwnerRemediated') && m;
    }, 'u1 marked');
    expect(conditionOf(u1, 'HealthCheckSucceeded')).toMatchObject({
      status: 'False',
      reason: 'UnhealthyNode',
      message:
        'Health check failed:\n  * Condition Ready on Node is reporting status False with reason KubeletNotReady for more than 5m0s',
    });
    expect(conditionOf(u1, 'OwnerRemediated')).toMatchObject({ status: 'False', reason: 'WaitingForRemediation' });
    // The MHC's status is written after its Machines' conditions (upstream's reconcile order): wait for it.
    const status = await eventually(async () => (await getMhc('pool-u')).status, 'pool-u status');
    expect(status).toMatchObject({ expectedMachines: 1, currentHealthy: 0, targets: ['u1'] });
  });

  it('an updating Machine with a Ready Node: Updating=True beyond its timeout is remediated', async () => {
    await createNode(h, 'n-u2', ready(-3600));
    await createMachine(h, ns, 'c1', 'u2', {
      labels: { pool: 'u2' },
      nodeName: 'n-u2',
      annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' },
      conditions: [
        {
          type: 'Updating',
          status: 'True',
          reason: 'InPlaceUpdating',
          message: 'In-place update in progress',
          lastTransitionTime: h.clock.at(-60),
        },
      ],
    });
    await createMhc('pool-u2', 'u2');
    await eventually(
      async () =>
        ((await getMhc('pool-u2')).status as { expectedMachines?: number } | undefined)?.expectedMachines === 1,
      'pool-u2 status',
    );
    await settle(h.manager, ['machinehealthcheck']);
    expect(conditionOf(await getMachine('u2'), 'OwnerRemediated')).toBeUndefined();
    // The next check is due when Updating=True reaches its 30 min timeout (+1 s).
    expect(await h.reconcile({ namespace: ns, name: 'pool-u2' })).toEqual({ requeueAfterMs: 1741_000 });

    h.clock.advance(1741_000);
    await h.reconcile({ namespace: ns, name: 'pool-u2' });
    const u2 = await getMachine('u2');
    expect(conditionOf(u2, 'HealthCheckSucceeded')).toMatchObject({
      status: 'False',
      reason: 'UnhealthyMachine',
      message:
        'Health check failed:\n  * Condition Updating on Machine is reporting status True with reason InPlaceUpdating for more than 30m0s',
    });
    expect(conditionOf(u2, 'OwnerRemediated')).toMatchObject({ status: 'False', reason: 'WaitingForRemediation' });
  });

  it('too many unhealthy Machines: marked, but no remediation (RemediationAllowed=False, TooManyUnhealthy)', async () => {
    for (const n of ['b1', 'b2']) {
      await createNode(h, `n-${n}`, notReady(-400));
      await createMachine(h, ns, 'c1', n, { labels: { pool: 'b' }, nodeName: `n-${n}` });
    }
    await createMachine(h, ns, 'c1', 'b3', { labels: { pool: 'b' }, nodeName: 'n-b3-gone' });
    await createMhc('pool-b', 'b', { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '34%' } } });
    const mhc = await eventually(async () => {
      const o = await getMhc('pool-b');
      return conditionOf(o, 'RemediationAllowed') && o;
    }, 'pool-b RemediationAllowed');
    expect(conditionOf(mhc, 'RemediationAllowed')).toMatchObject({
      status: 'False',
      reason: 'TooManyUnhealthy',
      message:
        'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 3, maxUnhealthy: 34%)',
    });
    expect(mhc.status).toMatchObject({ expectedMachines: 3, currentHealthy: 0, remediationsAllowed: 0 });
    await settle(h.manager, ['machinehealthcheck']);
    for (const n of ['b1', 'b2']) {
      const m = await getMachine(n);
      expect(conditionOf(m, 'HealthCheckSucceeded')).toMatchObject({ status: 'False', reason: 'UnhealthyNode' });
      expect(conditionOf(m, 'OwnerRemediated')).toBeUndefined();
    }
    expect(conditionOf(await getMachine('b3'), 'HealthCheckSucceeded')).toMatchObject({
      status: 'False',
      reason: 'NodeDeleted',
      message: 'Health check failed:\n  * Node n-b3-gone has been deleted',
    });
  });

  it('a Node going NotReady past the timeout is detected through the workload cluster and remediated', async () => {
    await createNode(h, 'n-c1', ready(-1000));
    await createMachine(h, ns, 'c1', 'c1m', { labels: { pool: 'c' }, nodeName: 'n-c1' });
    await createMhc('pool-c', 'c');
    await eventually(
      async () => conditionOf(await getMachine('c1m'), 'HealthCheckSucceeded')?.status === 'True',
      'c1m healthy',
    );
    await h.wl.patch(
      { apiVersion: 'v1', kind: 'Node', name: 'n-c1' },
      'merge',
      { status: { conditions: notReady(0) } },
      { subresource: 'status' },
    );
    expect(await h.reconcile({ namespace: ns, name: 'pool-c' })).toEqual({ requeueAfterMs: 301_000 });
    h.clock.advance(301_000);
    await h.reconcile({ namespace: ns, name: 'pool-c' });
    const m = await getMachine('c1m');
    expect(conditionOf(m, 'HealthCheckSucceeded')).toMatchObject({ status: 'False', reason: 'UnhealthyNode' });
    expect(conditionOf(m, 'OwnerRemediated')).toMatchObject({ status: 'False', reason: 'WaitingForRemediation' });
  });

  it('templateRef (external remediation, not implemented) marks Machines but never requests owner remediation', async () => {
    await createNode(h, 'n-e1', notReady(-400));
    await createMachine(h, ns, 'c1', 'e1', { labels: { pool: 'e' }, nodeName: 'n-e1' });
    await createMhc('pool-e', 'e', {
      remediation: {
        templateRef: {
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
          kind: 'TestRemediationTemplate',
          name: 'r',
        },
      },
    });
    const mhc = await eventually(async () => {
      const o = await getMhc('pool-e');
      return conditionOf(o, 'RemediationAllowed') && o;
    }, 'pool-e condition');
    expect(conditionOf(mhc, 'RemediationAllowed')).toMatchObject({
      status: 'False',
      reason: 'ExternalRemediationNotSupported',
    });
    await settle(h.manager, ['machinehealthcheck']);
    const e1 = await getMachine('e1');
    expect(conditionOf(e1, 'HealthCheckSucceeded')).toMatchObject({ status: 'False', reason: 'UnhealthyNode' });
    expect(conditionOf(e1, 'OwnerRemediated')).toBeUndefined();
  });

  it('a paused MachineHealthCheck reports Paused=True and keeps its last status', async () => {
    await h.client.patch(mhcRef(ns, 'pool-c'), 'merge', {
      metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } },
    });
    const mhc = await eventually(async () => {
      const o = await getMhc('pool-c');
      return conditionOf(o, 'Paused')?.status === 'True' && o;
    }, 'pool-c paused');
    expect(conditionOf(mhc, 'Paused')).toMatchObject({
      reason: 'Paused',
      message: 'MachineHealthCheck has the cluster.x-k8s.io/paused annotation',
    });
    expect(mhc.status).toMatchObject({ expectedMachines: 1, targets: ['c1m'] });
    expect(conditionOf(mhc, 'RemediationAllowed')).toMatchObject({ status: 'True' });
  });

  it('an invalid remediation trigger is reported as a condition, not a crash', async () => {
    await createMhc('bad-range', 'none', { remediation: { triggerIf: { unhealthyInRange: '[5-1]' } } });
    const mhc = await eventually(async () => {
      const o = await getMhc('bad-range');
      return conditionOf(o, 'RemediationAllowed') && o;
    }, 'bad-range condition');
    expect(conditionOf(mhc, 'RemediationAllowed')).toMatchObject({
      status: 'False',
      reason: 'InvalidRemediationTrigger',
      message: 'spec.remediation.triggerIf is invalid: max value 1 cannot be less than min value 5 for unhealthyRange',
    });
  });
});
