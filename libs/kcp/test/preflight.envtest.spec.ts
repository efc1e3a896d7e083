// KCP control-plane health on envtest with the Machine controller, the in-memory provider (its workload clusters
// run mirror Pods and answer etcd's API) and the reference updater: Machine/KCP health conditions, and preflight
// checks that make a rollout wait (another Machine unhealthy) or replace the candidate (only it unhealthy).
import { getCondition, isUpdateInProgress, UP_TO_DATE_CONDITION, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient, WatchHandle } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import {
  createControlPlane,
  getKcp,
  KCP_POLL,
  listMachines,
  startKcpHarness,
  CLUSTER,
  NS,
  type KcpHarness,
} from './support/harness';
import { etcdMemberNames, setEtcdAlarm } from './support/etcd-alarms';
import { selectMachineForScaleDown } from '../src/decide';

jest.setTimeout(150_000);

const KCP_REF = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  namespace: NS,
  name: 'cp',
};
const HEALTH = [
  'APIServerPodHealthy',
  'ControllerManagerPodHealthy',
  'SchedulerPodHealthy',
  'EtcdPodHealthy',
  'EtcdMemberHealthy',
];
const POLL = { ...KCP_POLL, timeoutMs: 80_000 };

async function stable(h: KcpHarness, version: string): Promise<Machine[]> {
  return eventually(
    async () => {
      const ms = await listMachines(h.client);
      const ok =
        ms.length === 3 &&
        ms.every(
          (m) =>
            m.spec.version === version &&
            !m.metadata.deletionTimestamp &&
            !isUpdateInProgress(m) &&
            getCondition(m, UP_TO_DATE_CONDITION)?.status === 'True' &&
            HEALTH.every((c) => getCondition(m, c)?.status === 'True'),
        );
      return ok ? ms : undefined;
    },
    { ...POLL, message: `3 healthy up-to-date Machines at ${version}` },
  );
}

/** Names of the Machines that were ever marked for an in-place update. */
async function inPlaceMarked(h: KcpHarness): Promise<{ seen: Set<string>; stop: () => void }> {
  const seen = new Set<string>();
  const handle: WatchHandle = await h.client.watch<Machine>(
    'cluster.x-k8s.io/v1beta2',
    'Machine',
    { namespace: NS },
    (ev) => {
      if (ev.type !== 'BOOKMARK' && ev.type !== 'ERROR' && isUpdateInProgress(ev.object))
        seen.add(ev.object.metadata.name!);
    },
  );
  return { seen, stop: () => handle.stop() };
}

type PodJson = KubeObject & { status: { conditions: { type: string; status: string }[] } };
/** Sets a mirror Pod's readiness the way its kubelet would (the Pod's status). */
async function setPodReady(client: KubeClient, name: string, ready: boolean): Promise<void> {
  const pod = await client.get<PodJson>({ apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name });
  for (const c of pod.status.conditions)
    if (c.type === 'Ready' || c.type === 'ContainersReady') c.status = ready ? 'True' : 'False';
  await client.updateStatus(pod);
}

/** Sets a mirror Pod's phase the way its kubelet (or a lost one: Unknown) would. */
async function setPodPhase(client: KubeClient, name: string, phase: string): Promise<void> {
  const pod = await client.get<PodJson & { status: { phase?: string } }>({
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: 'kube-system',
    name,
  });
  pod.status.phase = phase;
  await client.updateStatus(pod);
}

describe('KCP control-plane health and preflight checks', () => {
  let h: KcpHarness;
  let workload: KubeClient;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: true });
    await createControlPlane(h.client, { replicas: 3, maxSurge: 0 });
    await h.registerUpdater();
  });
  afterAll(async () => h?.close());

  it('reports the static Pod and etcd member conditions on every Machine and aggregates them on the KCP', async () => {
    const machines = await stable(h, 'v1.30.0');
    for (const m of machines) {
      expect(getCondition(m, 'APIServerPodHealthy')).toMatchObject({ status: 'True', reason: 'Running' });
      expect(getCondition(m, 'EtcdMemberHealthy')).toMatchObject({ status: 'True', reason: 'Healthy' });
    }
    const kcp = await eventually(
      async () => {
        const k = await getKcp(h.client);
        return getCondition(k, 'ControlPlaneComponentsHealthy')?.status === 'True' &&
          getCondition(k, 'EtcdClusterHealthy')?.status === 'True'
          ? k
          : undefined;
      },
      { ...POLL, message: 'KCP health conditions True' },
    );
    expect(getCondition(kcp, 'ControlPlaneComponentsHealthy')?.reason).toBe('Healthy');
    workload = h.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get({ namespace: NS, name: CLUSTER })!.client;
  });

  it('health that recovers without any other change is reported healthy again (KCP looks again while unhealthy)', async () => {
    const [m] = await stable(h, 'v1.30.0');
    const pod = `kube-controller-manager-${m.status!.nodeRef!.name}`;
    await setPodReady(workload, pod, false);
    // Nothing watches the workload cluster's objects: poke the KCP once so it reads the unhealthy state.
    await h.client.patch(KCP_REF, 'merge', { metadata: { annotations: { poke: '1' } } });
    await eventually(
      async () => getCondition(await getKcp(h.client), 'ControlPlaneComponentsHealthy')?.status === 'False',
      { ...POLL, message: 'ControlPlaneComponentsHealthy False' },
    );
    await setPodReady(workload, pod, true);
    await eventually(
      async () => getCondition(await getKcp(h.client), 'ControlPlaneComponentsHealthy')?.status === 'True',
      { ...POLL, timeoutMs: 20_000, message: 'ControlPlaneComponentsHealthy True again' },
    );
    expect(
      getCondition(
        (await listMachines(h.client)).find((x) => x.metadata.name === m.metadata.name)!,
        'ControllerManagerPodHealthy',
      )?.status,
    ).toBe('True');
  });

  it('a Pod in Unknown state on another Machine makes the rollout wait, nothing written; once known, in place proceeds', async () => {
    const before = await stable(h, 'v1.30.0');
    const candidate = selectMachineForScaleDown(before, before)!;
    const sick = before.find((m) => m.metadata.name !== candidate.metadata.name)!;
    const sickNode = sick.status!.nodeRef!.name;
    // Unknown is transient, not unhealthy (upstream HasUnhealthyControlPlaneComponents): the oldest Machine stays the
    // candidate and preflight waits for the other one.
    await setPodPhase(workload, `kube-scheduler-${sickNode}`, 'Unknown');
    const tracker = await inPlaceMarked(h);
    await h.client.patch(KCP_REF, 'merge', { spec: { version: 'v1.30.1' } });

    // A reconcile saw the new version with the unhealthy component (its status is written after its rollout step,
    // which waited on preflight). As upstream, RollingOut lists the rollout reasons, not what blocks it.
    const kcp = await eventually(
      async () => {
        const k = await getKcp(h.client);
        const rollingOut = getCondition(k, 'RollingOut')?.message ?? '';
        return rollingOut.includes('* Version v1.30.0, v1.30.1 required') &&
          getCondition(k, 'ControlPlaneComponentsHealthy')?.status === 'Unknown'
          ? k
          : undefined;
      },
      { ...POLL, message: 'RollingOut True while ControlPlaneComponentsHealthy is Unknown' },
    );
    expect(getCondition(kcp, 'RollingOut')?.message).toBe(
      'Rolling out 3 not up-to-date replicas\n* Version v1.30.0, v1.30.1 required',
    );
    expect(getCondition(kcp, 'ControlPlaneComponentsHealthy')).toMatchObject({
      status: 'Unknown',
      reason: 'HealthUnknown',
    });
    expect(getCondition(kcp, 'ControlPlaneComponentsHealthy')?.message).toContain(
      `* Machine ${sick.metadata.name}:\n  * SchedulerPodHealthy: `,
    );
    const waiting = await listMachines(h.client);
    expect(
      getCondition(
        waiting.find((m) => m.metadata.name === sick.metadata.name)!,
        'SchedulerPodHealthy',
      ),
    ).toMatchObject({ status: 'Unknown', reason: 'InspectionFailed' });
    expect(tracker.seen.size).toBe(0);
    expect(waiting.map((m) => `${m.metadata.name}/${m.metadata.uid}/${m.spec.version}`).sort()).toEqual(
      before.map((m) => `${m.metadata.name}/${m.metadata.uid}/v1.30.0`).sort(),
    );

    await setPodPhase(workload, `kube-scheduler-${sickNode}`, 'Running');
    const after = await stable(h, 'v1.30.1');
    tracker.stop();
    expect(after.map((m) => m.metadata.uid).sort()).toEqual(before.map((m) => m.metadata.uid).sort());
    expect(tracker.seen.size).toBe(3);
  });

  it('a Pod not ready on an outdated Machine that is not the oldest: that Machine is replaced first, the rollout does not stall', async () => {
    const before = await stable(h, 'v1.30.1');
    const oldest = selectMachineForScaleDown(before, before)!;
    const sick = before.find((m) => m.metadata.name !== oldest.metadata.name)!;
    const sickNode = sick.status!.nodeRef!.name;
    await setPodReady(workload, `kube-scheduler-${sickNode}`, false);
    const tracker = await inPlaceMarked(h);
    // maxSurge 0: with a surge, the scale up first waits for the unhealthy Machine (upstream rollingUpdate too).
    await h.client.patch(KCP_REF, 'merge', {
      spec: { version: 'v1.30.2', rollout: { strategy: { rollingUpdate: { maxSurge: 0 } } } },
    });
    // Upstream selectMachineForInPlaceUpdateOrScaleDown prefers outdated Machines with unhealthy components; preflight
    // passes without it, so it is scaled down instead of updated in place; the others are updated in place.
    const after = await eventually(
      async () => {
        const ms = await stable(h, 'v1.30.2');
        return ms.some((m) => m.metadata.name === sick.metadata.name) ? undefined : ms;
      },
      { ...POLL, message: 'the unhealthy Machine replaced, the others updated in place' },
    );
    tracker.stop();
    expect(tracker.seen.has(sick.metadata.name!)).toBe(false);
    const kept = before.filter((m) => m.metadata.name !== sick.metadata.name);
    expect(kept.every((m) => after.some((a) => a.metadata.uid === m.metadata.uid))).toBe(true);
  });

  it('an etcd alarm only on the candidate Machine: it is replaced instead of updated in place', async () => {
    const before = await stable(h, 'v1.30.2');
    const candidate = selectMachineForScaleDown(before, before)!;
    await setEtcdAlarm(h, { namespace: NS, name: CLUSTER }, candidate.status!.nodeRef!.name, 'Nospace');
    const tracker = await inPlaceMarked(h);
    await h.client.patch(KCP_REF, 'merge', { spec: { version: 'v1.30.3' } });
    const after = await eventually(
      async () => {
        const ms = await stable(h, 'v1.30.3');
        return ms.some((m) => m.metadata.name === candidate.metadata.name) ? undefined : ms;
      },
      { ...POLL, message: 'the candidate replaced, the others updated in place' },
    );
    tracker.stop();
    expect(tracker.seen.has(candidate.metadata.name!)).toBe(false);
    const kept = before.filter((m) => m.metadata.name !== candidate.metadata.name);
    expect(kept.every((m) => after.some((a) => a.metadata.uid === m.metadata.uid))).toBe(true);
    expect([...tracker.seen].sort()).toEqual(kept.map((m) => m.metadata.name).sort());
    await eventually(async () => getCondition(await getKcp(h.client), 'EtcdClusterHealthy')?.status === 'True', {
      ...POLL,
      message: 'EtcdClusterHealthy True again',
    });
    // KCP removed the replaced Machine's member (its pre-terminate hook): the members are the remaining Nodes.
    const members = await etcdMemberNames(h, { namespace: NS, name: CLUSTER }, after[0].status!.nodeRef!.name);
    expect(members.sort()).toEqual(after.map((m) => m.status!.nodeRef!.name).sort());
  });

  it('a Pod not ready blocks a scale up until it is ready again', async () => {
    const before = await stable(h, 'v1.30.3');
    const sickNode = before[0].status!.nodeRef!.name;
    await setPodReady(workload, `kube-apiserver-${sickNode}`, false);
    await h.client.patch(KCP_REF, 'merge', { spec: { replicas: 5 } });
    await eventually(
      async () => {
        const k = await getKcp(h.client);
        return (
          getCondition(k, 'ScalingUp')?.message ===
          'Scaling up from 3 to 5 replicas is blocked because:\n* waiting for control plane components to become healthy'
        );
      },
      { ...POLL, message: 'ScalingUp reports the preflight failure' },
    );
    expect(await listMachines(h.client)).toHaveLength(3);
    await setPodReady(workload, `kube-apiserver-${sickNode}`, true);
    await eventually(async () => (await listMachines(h.client)).length === 5, { ...POLL, message: 'scaled up to 5' });
  });
});
