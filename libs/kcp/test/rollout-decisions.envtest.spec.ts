// KCP rollout decisions on envtest with the Machine controller, the in-memory provider and the reference updater:
// which outdated Machines are updated in place and which are replaced (upstream rollingUpdate / UpToDate).
import {
  DELETE_MACHINE_ANNOTATION,
  getCondition,
  isUpdateInProgress,
  UP_TO_DATE_CONDITION,
  type Machine,
} from '@capi/api';
import type { WatchHandle } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import {
  createControlPlane,
  getKcp,
  KCP_POLL,
  listMachines,
  startKcpHarness,
  NS,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(120_000);

const KCP_REF = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  namespace: NS,
  name: 'cp',
};

async function stable(h: KcpHarness, replicas: number, version: string): Promise<Machine[]> {
  return eventually(
    async () => {
      const kcp = await getKcp(h.client);
      const ms = await listMachines(h.client);
      const ok =
        kcp.status?.upToDateReplicas === replicas &&
        ms.length === replicas &&
        ms.every(
          (m) =>
            m.spec.version === version &&
            m.status?.nodeRef &&
            !m.metadata.deletionTimestamp &&
            !isUpdateInProgress(m) &&
            getCondition(m, UP_TO_DATE_CONDITION)?.status === 'True',
        );
      return ok ? ms : undefined;
    },
    { ...KCP_POLL, timeoutMs: 80_000, message: `${replicas} up-to-date Machines at ${version}` },
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

const uids = (ms: Machine[]) => new Map(ms.map((m) => [m.metadata.name!, m.metadata.uid!]));

describe('KCP rollout: in place vs replacement', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: true });
    await createControlPlane(h.client, { replicas: 2, maxSurge: 0 });
    await h.registerUpdater();
  });
  afterAll(async () => h?.close());

  it('a Machine with the delete-machine annotation is replaced, the other one updated in place', async () => {
    const before = await stable(h, 2, 'v1.30.0');
    const [marked, other] = before;
    await h.client.patch(
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', namespace: NS, name: marked.metadata.name! },
      'merge',
      { metadata: { annotations: { [DELETE_MACHINE_ANNOTATION]: '' } } },
    );
    const tracker = await inPlaceMarked(h);
    await h.client.patch(KCP_REF, 'merge', { spec: { version: 'v1.30.1' } });
    const after = await eventually(
      async () => {
        const ms = await stable(h, 2, 'v1.30.1');
        return ms.some((m) => m.metadata.name === marked.metadata.name) ? undefined : ms;
      },
      { ...KCP_POLL, timeoutMs: 80_000, message: 'the marked Machine replaced' },
    );
    tracker.stop();
    expect(tracker.seen).toEqual(new Set([other.metadata.name]));
    expect(uids(after).get(other.metadata.name!)).toBe(other.metadata.uid);
  });

  it('with enough up-to-date Machines (surged), the outdated one is deleted instead of updated in place', async () => {
    await h.client.patch(KCP_REF, 'merge', {
      spec: { replicas: 1, rollout: { strategy: { rollingUpdate: { maxSurge: 1 } } } },
    });
    const [before] = await stable(h, 1, 'v1.30.1');
    const tracker = await inPlaceMarked(h);
    await h.client.patch(KCP_REF, 'merge', { spec: { version: 'v1.30.2' } });
    const [after] = await eventually(
      async () => {
        const ms = await stable(h, 1, 'v1.30.2');
        return ms[0].metadata.name === before.metadata.name ? undefined : ms;
      },
      { ...KCP_POLL, timeoutMs: 80_000, message: 'the Machine replaced' },
    );
    tracker.stop();
    // The surged Machine already makes replicas up-to-date: no in-place update of the old one.
    expect(tracker.seen.size).toBe(0);
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
  });
});
