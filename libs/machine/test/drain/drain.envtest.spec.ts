// The drain helper against a real API server as the workload cluster (upstream core/reconcilers/machine/drain/
// drain_test.go TestRunCordonOrUncordon, TestGetPodsForEviction, TestEvictPods; there with fake clients, here with
// Pods, DaemonSets, PodDisruptionBudgets and MachineDrainRules created on the server). Cases a server cannot hold
// (a Pod in a Namespace that does not exist, a MachineDrainRule with an unknown behavior) are in
// src/drain/filters.spec.ts.
import type { KubeObject } from '@capi/apimachinery';
import { FakeClock } from '@capi/apimachinery/testing';
import { KubeClient } from '@capi/controller-runtime';
import { kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import { envtestTarget } from '@capi/kube-control-plane';
import { DrainHelper } from '../../src/drain/drain';
import { PodDeleteList, type PodDelete, type PodDeleteStatus, type PodObject } from '../../src/drain/filters';
import { createPdb, createPod, createWorkload } from '../support/workload-pods';

jest.setTimeout(90_000);

describe('DrainHelper (envtest)', () => {
  let env: Envtest;
  let c: KubeClient;
  let clock = new FakeClock();
  let dsUid = '';
  // Owners that exist (by uid), so that the embedded server's garbage collector leaves their Pods alone.
  const deployment: { kind: string; name: string; uid?: string } = { kind: 'Deployment', name: 'd' };
  const cluster: KubeObject = {
    apiVersion: 'v1',
    kind: 'Cluster',
    metadata: { name: 'test-cluster', namespace: 'test-namespace' },
  };
  const machine: KubeObject = {
    apiVersion: 'v1',
    kind: 'Machine',
    metadata: { name: 'test-machine', namespace: 'test-namespace' },
  };
  const helper = (skipWaitForDeleteTimeoutSeconds = 10) =>
    new DrainHelper({ client: c, remoteClient: c, clock, skipWaitForDeleteTimeoutSeconds });

  beforeAll(async () => {
    env = await startEnvtest();
    c = new KubeClient(kubeConfigFor(env));
    for (const name of ['test-namespace', 'other-namespace'])
      await c.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
      });
    dsUid = await createWorkload(c, 'DaemonSet', 'default', 'daemonset-does-exist');
    deployment.uid = await createWorkload(c, 'Deployment', 'default', 'd');
    const rule = (name: string, drain: object, app: string) =>
      c.create({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachineDrainRule',
        metadata: { name, namespace: 'test-namespace' },
        spec: {
          drain,
          pods: [
            {
              selector: { matchLabels: { app } },
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'test-namespace' } },
            },
          ],
        },
      });
    await rule('mdr-behavior-drain', { behavior: 'Drain', order: 11 }, 'behavior-drain');
    await rule('mdr-behavior-skip', { behavior: 'Skip' }, 'behavior-skip');
    await rule('mdr-behavior-wait-completed', { behavior: 'WaitCompleted' }, 'behavior-wait-completed');
  });
  afterAll(async () => {
    c?.close();
    await env?.stop();
  });

  const statuses = (list: PodDeleteList) =>
    Object.fromEntries(list.items.map((i) => [i.pod.metadata.name, i.status])) as Record<string, PodDeleteStatus>;
  const okay: PodDeleteStatus = { drainBehavior: 'Drain', drainOrder: 0, reason: 'Okay' };
  const warning = (message: string): PodDeleteStatus => ({
    drainBehavior: 'Drain',
    drainOrder: 0,
    reason: 'Warning',
    message,
  });
  const skip: PodDeleteStatus = { drainBehavior: 'Skip', reason: 'Skip' };

  describe('cordonNode (upstream TestRunCordonOrUncordon)', () => {
    it.each([false, true])('a Node with unschedulable=%s ends up cordoned', async (unschedulable) => {
      const name = `cordon-${unschedulable}`;
      const node = await c.create<KubeObject>({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name },
        spec: { unschedulable },
      });
      await helper().cordonNode(node);
      const got = await c.get<KubeObject>({ apiVersion: 'v1', kind: 'Node', name });
      expect((got.spec as { unschedulable?: boolean }).unschedulable).toBe(true);
    });
  });

  describe('getPodsForEviction (upstream TestGetPodsForEviction)', () => {
    const get = (node: string) => helper().getPodsForEviction(cluster, machine, node);

    it('no Pods: an empty list', async () => {
      expect((await get('node-empty')).items).toEqual([]);
    });

    it('skipDeletedFilter', async () => {
      const node = 'node-skip-deleted';
      for (const name of ['pod-1-skip-pod-old-deletiontimestamp', 'pod-2-delete-pod-new-deletiontimestamp'])
        await createPod(c, name, { nodeName: node, finalizers: ['test.cluster.x-k8s.io/block-deletion'] });
      // pod-1 deleted at once (its finalizer keeps it), pod-2 gracefully: its deletionTimestamp is 30 s later.
      const ref = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name });
      await c.delete(ref('pod-1-skip-pod-old-deletiontimestamp'), { gracePeriodSeconds: 0 });
      await c.delete(ref('pod-2-delete-pod-new-deletiontimestamp'), { gracePeriodSeconds: 30 });
      const pod2 = await c.get<KubeObject>(ref('pod-2-delete-pod-new-deletiontimestamp'));
      clock = new FakeClock(Date.parse(pod2.metadata.deletionTimestamp!));
      expect(statuses(await get(node))).toEqual({
        'pod-1-skip-pod-old-deletiontimestamp': skip,
        'pod-2-delete-pod-new-deletiontimestamp': warning('evicting Pod that has no controller'),
      });
      for (const name of ['pod-1-skip-pod-old-deletiontimestamp', 'pod-2-delete-pod-new-deletiontimestamp'])
        await c.patch(ref(name), 'merge', { metadata: { finalizers: null } });
    });

    it('daemonSetFilter', async () => {
      const node = 'node-daemonset';
      await createPod(c, 'pod-1-delete-pod-with-different-controller', { nodeName: node, controller: deployment });
      await createPod(c, 'pod-2-delete-succeeded-daemonset-pod', {
        nodeName: node,
        controller: { kind: 'DaemonSet', name: 'daemonset-does-exist', uid: dsUid },
        phase: 'Succeeded',
      });
      await createPod(c, 'pod-3-delete-orphaned-daemonset-pod', {
        nodeName: node,
        controller: { kind: 'DaemonSet', name: 'daemonset-does-not-exist' },
      });
      await createPod(c, 'pod-4-skip-daemonset-pod', {
        nodeName: node,
        controller: { kind: 'DaemonSet', name: 'daemonset-does-exist', uid: dsUid },
      });
      expect(statuses(await get(node))).toEqual({
        'pod-1-delete-pod-with-different-controller': okay,
        'pod-2-delete-succeeded-daemonset-pod': okay,
        'pod-3-delete-orphaned-daemonset-pod': warning('evicting orphaned DaemonSet-managed Pod'),
        'pod-4-skip-daemonset-pod': {
          drainBehavior: 'Skip',
          reason: 'Warning',
          message: 'ignoring DaemonSet-managed Pod',
        },
      });
    });

    it('mirrorPodFilter', async () => {
      const node = 'node-mirror';
      await createPod(c, 'pod-1-skip-mirror-pod', {
        nodeName: node,
        annotations: { 'kubernetes.io/config.mirror': 'some-value' },
      });
      expect(statuses(await get(node))).toEqual({ 'pod-1-skip-mirror-pod': skip });
    });

    it('localStorageFilter', async () => {
      const node = 'node-local-storage';
      await createPod(c, 'pod-1-delete-pod-without-local-storage', { nodeName: node, controller: deployment });
      await createPod(c, 'pod-2-delete-succeeded-pod-with-local-storage', {
        nodeName: node,
        controller: deployment,
        emptyDir: true,
        phase: 'Succeeded',
      });
      await createPod(c, 'pod-3-delete-running-pod-with-local-storage', {
        nodeName: node,
        controller: deployment,
        emptyDir: true,
      });
      expect(statuses(await get(node))).toEqual({
        'pod-1-delete-pod-without-local-storage': okay,
        'pod-2-delete-succeeded-pod-with-local-storage': okay,
        'pod-3-delete-running-pod-with-local-storage': warning('evicting Pod with local storage'),
      });
    });

    it('unreplicatedFilter', async () => {
      const node = 'node-unreplicated';
      await createPod(c, 'pod-1-delete-succeeded-pod', { nodeName: node, phase: 'Succeeded' });
      await createPod(c, 'pod-2-delete-running-deployment-pod', { nodeName: node, controller: deployment });
      await createPod(c, 'pod-3-delete-running-standalone-pod', { nodeName: node });
      expect(statuses(await get(node))).toEqual({
        'pod-1-delete-succeeded-pod': okay,
        'pod-2-delete-running-deployment-pod': okay,
        'pod-3-delete-running-standalone-pod': warning('evicting Pod that has no controller'),
      });
    });

    it('warnings from multiple filters', async () => {
      const node = 'node-warnings';
      await createPod(c, 'pod-1-delete-multiple-warnings', {
        nodeName: node,
        controller: { kind: 'DaemonSet', name: 'daemonset-does-not-exist' },
        emptyDir: true,
      });
      expect(statuses(await get(node))).toEqual({
        'pod-1-delete-multiple-warnings': warning(
          'evicting orphaned DaemonSet-managed Pod, evicting Pod with local storage',
        ),
      });
    });

    it('drainLabelFilter', async () => {
      const node = 'node-drain-label';
      const label = (v: string) => ({ 'cluster.x-k8s.io/drain': v });
      await createPod(c, 'pod-1-skip-pod-with-drain-label', { nodeName: node, labels: label('skip') });
      await createPod(c, 'pod-2-skip-pod-with-drain-label', { nodeName: node, labels: label('Skip') });
      await createPod(c, 'pod-3-skip-pod-with-drain-label-wait-completed', {
        nodeName: node,
        labels: label('wait-completed'),
      });
      const list = await get(node);
      expect(statuses(list)).toEqual({
        'pod-1-skip-pod-with-drain-label': skip,
        'pod-2-skip-pod-with-drain-label': skip,
        'pod-3-skip-pod-with-drain-label-wait-completed': {
          drainBehavior: 'WaitCompleted',
          drainOrder: 0,
          reason: 'WaitCompleted',
        },
      });
      expect(
        list
          .skippedPods()
          .map((p) => p.metadata.name)
          .sort(),
      ).toEqual(['pod-1-skip-pod-with-drain-label', 'pod-2-skip-pod-with-drain-label']);
      expect(list.pods().map((p) => p.metadata.name)).toEqual(['pod-3-skip-pod-with-drain-label-wait-completed']);
    });

    it('machineDrainRulesFilter (rules of the management cluster)', async () => {
      const node = 'node-rules';
      const o = (app: string) => ({ nodeName: node, namespace: 'test-namespace', labels: { app } });
      await createPod(c, 'pod-1-behavior-drain', o('behavior-drain'));
      await createPod(c, 'pod-2-behavior-skip', o('behavior-skip'));
      await createPod(c, 'pod-3-behavior-wait-completed', o('behavior-wait-completed'));
      expect(statuses(await get(node))).toEqual({
        // The warning of an earlier filter is kept.
        'pod-1-behavior-drain': {
          drainBehavior: 'Drain',
          drainOrder: 11,
          reason: 'Warning',
          message: 'evicting Pod that has no controller',
        },
        'pod-2-behavior-skip': skip,
        'pod-3-behavior-wait-completed': { drainBehavior: 'WaitCompleted', drainOrder: 0, reason: 'WaitCompleted' },
      });
    });

    it('pages through the Pods of the Node (100 a page)', async () => {
      const node = 'node-many';
      for (let i = 0; i < 105; i++)
        await createPod(c, `many-${String(i).padStart(3, '0')}`, { nodeName: node, controller: deployment });
      await createPod(c, 'elsewhere', { nodeName: 'node-other', controller: deployment });
      const list = await get(node);
      expect(list.items).toHaveLength(105);
      expect(new Set(list.items.map((i) => i.pod.metadata.name)).size).toBe(105);
    });
  });

  describe('evictPods (upstream TestEvictPods)', () => {
    const node = 'node-evict';
    const drain = (order: number): PodDeleteStatus => ({ drainBehavior: 'Drain', drainOrder: order, reason: 'Okay' });
    const podRef = (name: string, namespace = 'default') => ({ apiVersion: 'v1', kind: 'Pod', namespace, name });
    const names = (pods: PodObject[]) => pods.map((p) => p.metadata.name);

    async function setup(prefix: string): Promise<(name: string) => Promise<PodObject>> {
      const n = (s: string) => `${prefix}-${s}`;
      await createPod(c, n('pod-1-ignored'), { nodeName: node });
      await createPod(c, n('pod-2-deletiontimestamp-set'), {
        nodeName: node,
        finalizers: ['test.cluster.x-k8s.io/block-deletion'],
      });
      await c.delete(podRef(n('pod-2-deletiontimestamp-set')), { gracePeriodSeconds: 0 });
      await createPod(c, n('pod-3-to-trigger-eviction-successfully'), { nodeName: node, controller: deployment });
      for (const i of [1, 2])
        await createPod(c, n(`pod-5-to-trigger-eviction-pdb-violated-${i}`), {
          nodeName: node,
          labels: { pdb: n('5') },
        });
      await createPdb(env, c, 'default', n('pod-5-pdb'), { pdb: n('5') }, 3, 2);
      // Two budgets over one Pod: the eviction subresource refuses it (a 500).
      await createPod(c, n('pod-7-to-trigger-eviction-some-other-error'), { nodeName: node, labels: { pdb: n('7') } });
      await createPdb(env, c, 'default', n('pod-7-pdb-a'), { pdb: n('7') }, 0, 1);
      await createPdb(env, c, 'default', n('pod-7-pdb-b'), { pdb: n('7') }, 0, 1);
      await createPod(c, n('pod-8-to-trigger-eviction-later'), { nodeName: node, controller: deployment });
      await createPod(c, n('pod-9-wait-completed'), { nodeName: node, controller: deployment });
      return async (name) =>
        (await c.tryGet<PodObject>(podRef(n(name)))) ?? {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: n(name), namespace: 'default' },
        };
    }

    async function run(prefix: string, minOrder: number, withWaitCompleted: boolean) {
      const pod = await setup(prefix);
      const items: PodDelete[] = [
        {
          pod: await pod('pod-1-ignored'),
          status: { drainBehavior: 'Skip', reason: 'Warning', message: 'ignoring DaemonSet-managed Pod' },
        },
        { pod: await pod('pod-2-deletiontimestamp-set'), status: drain(minOrder) },
        { pod: await pod('pod-3-to-trigger-eviction-successfully'), status: drain(minOrder) },
        // Never created: the eviction finds no Pod.
        { pod: await pod('pod-4-to-trigger-eviction-pod-not-found'), status: drain(minOrder) },
        { pod: await pod('pod-5-to-trigger-eviction-pdb-violated-2'), status: drain(minOrder) },
        { pod: await pod('pod-5-to-trigger-eviction-pdb-violated-1'), status: drain(minOrder) },
        { pod: await pod('pod-7-to-trigger-eviction-some-other-error'), status: drain(minOrder) },
        { pod: await pod('pod-8-to-trigger-eviction-later'), status: drain(6) },
      ];
      if (withWaitCompleted)
        items.push({
          pod: await pod('pod-9-wait-completed'),
          status: { drainBehavior: 'WaitCompleted', drainOrder: 0, reason: 'WaitCompleted' },
        });
      const result = await helper().evictPods(new PodDeleteList(items));
      const p = (s: string) => `${prefix}-${s}`;
      expect(names(result.podsIgnored)).toEqual([p('pod-1-ignored')]);
      expect(names(result.podsDeletionTimestampSet)).toEqual([
        p('pod-2-deletiontimestamp-set'),
        p('pod-3-to-trigger-eviction-successfully'),
      ]);
      expect(names(result.podsNotFound)).toEqual([p('pod-4-to-trigger-eviction-pod-not-found')]);
      const failed = [...result.podsFailedEviction].map(([m, pods]) => [m, names(pods)]).sort();
      expect(failed).toEqual([
        [
          `Cannot evict pod as it would violate the pod's disruption budget. The disruption budget ${p('pod-5-pdb')} needs 3 healthy pods and has 2 currently`,
          [p('pod-5-to-trigger-eviction-pdb-violated-1'), p('pod-5-to-trigger-eviction-pdb-violated-2')],
        ],
        [
          expect.stringContaining(
            'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
          ),
          [p('pod-7-to-trigger-eviction-some-other-error')],
        ],
      ]);
      expect(names(result.podsToTriggerEvictionLater)).toEqual([p('pod-8-to-trigger-eviction-later')]);
      expect(names(result.podsToWaitCompletedNow)).toEqual([]);
      expect(names(result.podsToWaitCompletedLater)).toEqual(withWaitCompleted ? [p('pod-9-wait-completed')] : []);
      // The evicted Pod is terminating on its Node (graceful deletion); the refused and later ones are untouched.
      const evicted = await c.get<KubeObject>(podRef(p('pod-3-to-trigger-eviction-successfully')));
      expect(evicted.metadata.deletionTimestamp).toBeDefined();
      for (const name of [
        'pod-5-to-trigger-eviction-pdb-violated-1',
        'pod-7-to-trigger-eviction-some-other-error',
        'pod-8-to-trigger-eviction-later',
      ])
        expect((await c.get<KubeObject>(podRef(p(name)))).metadata.deletionTimestamp).toBeUndefined();
    }

    it('EvictPods correctly', () => run('a', 5, false));
    it('EvictPods correctly with WaitCompleted pods', () => run('b', -5, true));

    // kube-apiserver only: without kube-controller-manager the Namespace stays terminating with its Pod, and
    // NamespaceLifecycle refuses the Eviction (403, NamespaceTerminating cause). The embedded server runs a namespace
    // controller that deletes the Namespace's Pods at once, as kube-controller-manager would.
    (envtestTarget() === 'kube' ? it : it.skip)(
      "a Pod in a terminating Namespace: upstream's message (kube-controller-manager should set deletionTimestamp)",
      async () => {
        await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'terminating' } });
        await createPod(c, 'pod-6-to-trigger-eviction-namespace-terminating', {
          nodeName: node,
          namespace: 'terminating',
          controller: deployment,
          finalizers: ['test.cluster.x-k8s.io/block-deletion'],
        });
        await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'terminating' });
        const pod = await c.get<PodObject>(podRef('pod-6-to-trigger-eviction-namespace-terminating', 'terminating'));
        const result = await helper().evictPods(new PodDeleteList([{ pod, status: drain(0) }]));
        expect([...result.podsFailedEviction]).toEqual([
          [
            'Cannot evict pod from terminating namespace: unable to create eviction (kube-controller-manager should set deletionTimestamp)',
            [pod],
          ],
        ]);
      },
    );

    it('gives up evicting after the eviction timeout; the rest is retried on the next call', async () => {
      await createPod(c, 'timeout-1', { nodeName: 'node-timeout', controller: deployment });
      await createPod(c, 'timeout-2', { nodeName: 'node-timeout', controller: deployment });
      const list = await helper().getPodsForEviction(cluster, machine, 'node-timeout');
      const h = new DrainHelper({ client: c, remoteClient: c, clock, evictionTimeoutMs: 0 });
      const result = await h.evictPods(list);
      expect(Object.fromEntries([...result.podsFailedEviction].map(([m, pods]) => [m, names(pods)]))).toEqual({
        'eviction timeout of 0s reached, eviction will be retried': ['timeout-1', 'timeout-2'],
      });
    });
  });
});
