// The drain of a deleting Machine's Node (upstream core/reconcilers/machine/machine_controller.go reconcileDelete,
// drainNode): the workload cluster is the envtest server, the test plays its kubelet (terminating Pods are finished
// with grace 0) and, on kube-apiserver, its disruption controller (see support/workload-pods.ts).
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import {
  MACHINE_API,
  conditionOf,
  createControlPlaneMachine,
  createNamespace,
  createReadyCluster,
  createRunningMachine,
  ref,
  machineEvents,
} from './support/fixtures';
import { startHarness, type Harness } from './support/harness';
import { createPdb, createPod, createWorkload, finishTerminatingPods, podsOnNode } from './support/workload-pods';

jest.setTimeout(120_000);

describe('Machine deletion drains the Node (envtest)', () => {
  let h: Harness;
  const ns = 'drain';
  let deployment: { kind: string; name: string; uid: string };
  let daemonSet: { kind: string; name: string; uid: string };

  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    await createControlPlaneMachine(h.client, ns, 'cp');
    deployment = {
      kind: 'Deployment',
      name: 'app',
      uid: await createWorkload(h.client, 'Deployment', 'default', 'app'),
    };
    daemonSet = {
      kind: 'DaemonSet',
      name: 'proxy',
      uid: await createWorkload(h.client, 'DaemonSet', 'default', 'proxy'),
    };
    // A rule of the Machine's namespace (management cluster): Pods labelled app=keep are not drained.
    await h.client.create({
      apiVersion: MACHINE_API,
      kind: 'MachineDrainRule',
      metadata: { name: 'keep', namespace: ns },
      spec: { drain: { behavior: 'Skip' }, pods: [{ selector: { matchLabels: { app: 'keep' } } }] },
    });
  });
  afterAll(async () => h?.close());

  const machineRef = (name: string) => ref(MACHINE_API, 'Machine', ns, name);
  const podRef = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name });
  const deleting = async (name: string) => conditionOf(await h.client.tryGet(machineRef(name)), 'Deleting');
  const events = (name: string, reason: string) => machineEvents(h.client, ns, name, reason);
  const reconcile = (name: string) => h.reconcile({ namespace: ns, name });

  /** A DaemonSet Pod, a mirror Pod, a Pod a MachineDrainRule skips, a plain Pod, and `extra`. */
  async function podsOn(node: string, prefix: string): Promise<void> {
    await createPod(h.client, `${prefix}-proxy`, { nodeName: node, controller: daemonSet });
    await createPod(h.client, `${prefix}-kube-apiserver`, {
      nodeName: node,
      annotations: { 'kubernetes.io/config.mirror': 'hash' },
    });
    await createPod(h.client, `${prefix}-kept`, { nodeName: node, controller: deployment, labels: { app: 'keep' } });
    await createPod(h.client, `${prefix}-plain`, { nodeName: node, controller: deployment });
  }

  it('cordons the Node, evicts its Pods but DaemonSet, mirror and skipped ones, and waits for a budget until nodeDrainTimeoutSeconds', async () => {
    await createRunningMachine(h.client, ns, 'w1');
    await podsOn('node-w1', 'w1');
    await createPod(h.client, 'w1-guarded', { nodeName: 'node-w1', controller: deployment, labels: { guard: 'w1' } });
    await createPdb(h.env, h.client, 'default', 'w1-pdb', { guard: 'w1' }, 1, 1);

    await h.client.delete(machineRef('w1'));
    const first = await eventually(async () => {
      const c = await deleting('w1');
      return c?.reason === 'DrainingNode' && c.message?.includes('w1-guarded') && c;
    }, 'Deleting=DrainingNode naming the guarded Pod');
    const node = await h.client.get<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: 'node-w1' });
    expect((node.spec as { unschedulable?: boolean }).unschedulable).toBe(true);
    const machine = await h.client.get<KubeObject>(machineRef('w1'));
    const start = (machine.status as { deletion?: { nodeDrainStartTime?: string } }).deletion?.nodeDrainStartTime;
    expect(start).toBe(h.clock.at());
    const budget =
      "cannot evict pod as it would violate the pod's disruption budget. The disruption budget w1-pdb needs 1 healthy pods and has 1 currently";
    expect(first.message).toBe(
      `Drain not completed yet (started at ${start}):\n` +
        '* Pod default/w1-plain: deletionTimestamp set, but still not removed from the Node\n' +
        `* Pod default/w1-guarded: ${budget}`,
    );
    expect(first.status).toBe('True');

    // The kubelet finishes the evicted Pod; the next reconcile (upstream requeues after 20 s) sees only the budget.
    expect(await finishTerminatingPods(h.client, 'node-w1')).toEqual(['w1-plain']);
    expect(await reconcile('w1')).toEqual({ requeueAfterMs: 20_000 });
    await eventually(
      async () =>
        (await deleting('w1'))?.message ===
        `Drain not completed yet (started at ${start}):\n* Pod default/w1-guarded: ${budget}`,
      'only the guarded Pod left',
    );
    expect(await podsOnNode(h.client, 'node-w1')).toEqual(['w1-guarded', 'w1-kept', 'w1-kube-apiserver', 'w1-proxy']);
    expect((await h.client.get<KubeObject>(podRef('w1-guarded'))).metadata.deletionTimestamp).toBeUndefined();
    expect(await events('w1', 'SuccessfulDrainNode')).toEqual([]);

    // spec.deletion.nodeDrainTimeoutSeconds has passed since the drain started: the deletion goes on, Pods left.
    await h.client.patch(machineRef('w1'), 'merge', { spec: { deletion: { nodeDrainTimeoutSeconds: 60 } } });
    h.clock.advance(61_000);
    await reconcile('w1').catch(() => undefined);
    await eventually(async () => !(await h.client.tryGet(machineRef('w1'))), 'Machine w1 gone');
    expect(await h.client.tryGet({ apiVersion: 'v1', kind: 'Node', name: 'node-w1' })).toBeUndefined();
    expect(await h.client.tryGet(podRef('w1-guarded'))).toBeDefined();
  });

  it('a completed drain records SuccessfulDrainNode and the deletion goes on', async () => {
    await createRunningMachine(h.client, ns, 'w2');
    await podsOn('node-w2', 'w2');
    await h.client.delete(machineRef('w2'));
    await eventually(async () => {
      await finishTerminatingPods(h.client, 'node-w2');
      return !(await podsOnNode(h.client, 'node-w2')).includes('w2-plain');
    }, 'w2-plain evicted and finished');
    await reconcile('w2').catch(() => undefined);
    await eventually(async () => !(await h.client.tryGet(machineRef('w2'))), 'Machine w2 gone');
    const ok = await events('w2', 'SuccessfulDrainNode');
    expect(ok.map((e) => [e.type, e.message])).toEqual([['Normal', `success draining Machine's node "node-w2"`]]);
    // Skipped by the MachineDrainRule, DaemonSet-managed, mirror: not evicted.
    for (const name of ['w2-kept', 'w2-proxy', 'w2-kube-apiserver'])
      expect((await h.client.get<KubeObject>(podRef(name))).metadata.deletionTimestamp).toBeUndefined();
  });

  it('machine.cluster.x-k8s.io/exclude-node-draining: no drain at all', async () => {
    await createRunningMachine(h.client, ns, 'w3');
    await createPod(h.client, 'w3-plain', { nodeName: 'node-w3', controller: deployment });
    await h.client.patch(machineRef('w3'), 'merge', {
      metadata: { annotations: { 'machine.cluster.x-k8s.io/exclude-node-draining': '' } },
    });
    await h.client.delete(machineRef('w3'));
    await eventually(async () => !(await h.client.tryGet(machineRef('w3'))), 'Machine w3 gone');
    expect((await h.client.get<KubeObject>(podRef('w3-plain'))).metadata.deletionTimestamp).toBeUndefined();
    expect(await events('w3', 'SuccessfulDrainNode')).toEqual([]);
  });
});
