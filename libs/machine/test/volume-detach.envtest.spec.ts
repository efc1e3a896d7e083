// The wait for a deleting Machine's Node volumes to be detached (upstream core/reconcilers/machine/machine_controller.go
// reconcileDelete, shouldWaitForNodeVolumes): VolumeAttachments and PersistentVolumes live in the workload cluster
// (here the envtest server); the test plays the attacher (sets status.attached) and nothing else.
import type { KubeObject } from '@capi/apimachinery';
import { eventually, settle, TEST_INFRA_API_VERSION } from '@capi/envtest';
import {
  MACHINE_API,
  annotate,
  conditionOf,
  createControlPlaneMachine,
  createNamespace,
  createReadyCluster,
  createRunningMachine,
  ref,
  machineEvents,
} from './support/fixtures';
import { startHarness, type Harness } from './support/harness';

jest.setTimeout(90_000);

describe('Machine deletion waits for Node volumes to be detached (envtest)', () => {
  let h: Harness;
  const ns = 'volume-detach';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    // An active control-plane Machine: the Node of a deleted Machine may be deleted, so its volumes are waited for.
    await createControlPlaneMachine(h.client, ns, 'cp');
  });
  afterAll(async () => h?.close());

  const machineRef = (name: string) => ref(MACHINE_API, 'Machine', ns, name);
  const infraRef = (name: string) => ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, `${name}-infra`);
  const nodeRef = (name: string) => ({ apiVersion: 'v1', kind: 'Node', name });
  const vaRef = (name: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', name });
  const gone = (name: string) =>
    eventually(async () => !(await h.client.tryGet(machineRef(name))), `Machine ${name} gone`);
  const eventsAbout = (name: string, reason: string) => machineEvents(h.client, ns, name, reason);
  const waitStart = (m: KubeObject) =>
    (m.status as { deletion?: { waitForNodeVolumeDetachStartTime?: string } }).deletion
      ?.waitForNodeVolumeDetachStartTime;

  /** A CSI PersistentVolume (bound to `claim` when given) and its VolumeAttachment to `node`, attached. */
  async function attachVolume(pv: string, node: string, claim?: string): Promise<void> {
    await h.client.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        csi: { driver: 'csi.test.io', volumeHandle: `handle-${pv}` },
        ...(claim ? { claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: ns, name: claim } } : {}),
      },
    });
    const va = await h.client.create<KubeObject>({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: `va-${pv}` },
      spec: { attacher: 'csi.test.io', nodeName: node, source: { persistentVolumeName: pv } },
    });
    await h.client.updateStatus({ ...va, status: { attached: true } });
  }

  async function waitingForVolumes(name: string): Promise<KubeObject> {
    return eventually(async () => {
      const m = await h.client.get<KubeObject>(machineRef(name));
      return conditionOf(m, 'Deleting')?.reason === 'WaitingForVolumeDetach' && m;
    }, `${name}: Deleting=WaitingForVolumeDetach`);
  }

  it('waits while a VolumeAttachment is attached, naming its claim, and goes on once it is detached', async () => {
    await createRunningMachine(h.client, ns, 'w1');
    await attachVolume('pv-w1', 'node-w1', 'data-w1');
    await h.client.delete(machineRef('w1'));

    const waiting = await waitingForVolumes('w1');
    const startedAt = waitStart(waiting);
    expect(startedAt).toBe(h.clock.at());
    expect(conditionOf(waiting, 'Deleting')).toMatchObject({
      status: 'True',
      message: `Waiting for Node volumes to be detached (started at ${startedAt})\n* PersistentVolumeClaims: ${ns}/data-w1`,
    });
    // Held before the pre-terminate step: the infrastructure and the Node are still there; looked at every 20 s.
    await settle(h.manager, ['machine']);
    expect((await h.client.get<KubeObject>(infraRef('w1'))).metadata.deletionTimestamp).toBeUndefined();
    expect(await h.client.tryGet(nodeRef('node-w1'))).toBeDefined();
    expect(await h.reconcile({ namespace: ns, name: 'w1' })).toEqual({ requeueAfterMs: 20_000 });
    expect(await eventsAbout('w1', 'NodeVolumesDetached')).toEqual([]);

    // The attacher detaches the volume; the next look (forced here instead of 20 s later) lets the deletion go on.
    const va = await h.client.get<KubeObject>(vaRef('va-pv-w1'));
    await h.client.updateStatus({ ...va, status: { attached: false } });
    await annotate(h.client, machineRef('w1'), { poke: '1' });
    await gone('w1');
    expect(await h.client.tryGet(infraRef('w1'))).toBeUndefined();
    expect(await h.client.tryGet(nodeRef('node-w1'))).toBeUndefined();
    const [event] = await eventsAbout('w1', 'NodeVolumesDetached');
    expect(event).toMatchObject({
      type: 'Normal',
      message: `success waiting for node volumes detaching Machine's node "node-w1"`,
    });
  });

  it('with nodeVolumeDetachTimeoutSeconds, goes on once the timeout has passed, the volume still attached', async () => {
    await createRunningMachine(h.client, ns, 'w2');
    await h.client.patch(machineRef('w2'), 'merge', { spec: { deletion: { nodeVolumeDetachTimeoutSeconds: 60 } } });
    await attachVolume('pv-w2', 'node-w2');
    await h.client.delete(machineRef('w2'));

    const waiting = await waitingForVolumes('w2');
    // A PersistentVolume without a claim is named itself.
    expect(conditionOf(waiting, 'Deleting')?.message).toBe(
      `Waiting for Node volumes to be detached (started at ${waitStart(waiting)})\n` +
        '* PersistentVolumes without a .spec.claimRef to a PersistentVolumeClaim: pv-w2',
    );

    // Not yet: 59 s later the Machine still waits.
    h.clock.advance(59_000);
    expect(await h.reconcile({ namespace: ns, name: 'w2' })).toEqual({ requeueAfterMs: 20_000 });
    expect(await h.client.tryGet(infraRef('w2'))).toBeDefined();

    h.clock.advance(1_000);
    await annotate(h.client, machineRef('w2'), { poke: '1' });
    await gone('w2');
    expect(await h.client.tryGet(nodeRef('node-w2'))).toBeUndefined();
    expect((await h.client.get<KubeObject>(vaRef('va-pv-w2'))).status).toEqual({ attached: true });
    expect(await eventsAbout('w2', 'NodeVolumesDetached')).toEqual([]);
  });

  it('the exclude-wait-for-node-volume-detach annotation skips the wait', async () => {
    await createRunningMachine(h.client, ns, 'w3');
    await annotate(h.client, machineRef('w3'), { 'machine.cluster.x-k8s.io/exclude-wait-for-node-volume-detach': '' });
    await attachVolume('pv-w3', 'node-w3', 'data-w3');
    await h.client.delete(machineRef('w3'));
    await gone('w3');
    expect(await h.client.tryGet(nodeRef('node-w3'))).toBeUndefined();
  });

  it('a VolumeAttachment for a PersistentVolume that does not exist is waited for, named', async () => {
    await createRunningMachine(h.client, ns, 'w4');
    // Attached to the Node, for a PersistentVolume that does not exist.
    const va = await h.client.create<KubeObject>({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-missing' },
      spec: { attacher: 'csi.test.io', nodeName: 'node-w4', source: { persistentVolumeName: 'pv-missing' } },
    });
    await h.client.updateStatus({ ...va, status: { attached: true } });
    await h.client.delete(machineRef('w4'));
    const waiting = await waitingForVolumes('w4');
    expect(conditionOf(waiting, 'Deleting')?.message).toBe(
      `Waiting for Node volumes to be detached (started at ${waitStart(waiting)})\n` +
        '* VolumeAttachment with .spec.source.persistentVolumeName not matching a PersistentVolume: pv-missing',
    );
    // The attacher is done and the VolumeAttachment goes: the deletion goes on.
    await h.client.delete(vaRef('va-missing'));
    await annotate(h.client, machineRef('w4'), { poke: '1' });
    await gone('w4');
  });
  it('an attached inline volume (no PersistentVolume) fails the wait: a FailedWaitForVolumeDetach event names the error', async () => {
    await createRunningMachine(h.client, ns, 'w5');
    const va = await h.client.create<KubeObject>({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-inline' },
      spec: {
        attacher: 'csi.test.io',
        nodeName: 'node-w5',
        source: {
          inlineVolumeSpec: {
            accessModes: ['ReadWriteOnce'],
            csi: { driver: 'csi.test.io', volumeHandle: 'inline-handle' },
          },
        },
      },
    });
    await h.client.updateStatus({ ...va, status: { attached: true } });
    await h.client.delete(machineRef('w5'));

    const waiting = await waitingForVolumes('w5');
    expect(conditionOf(waiting, 'Deleting')?.message).toBe(
      'Error waiting for volumes to be detached from Node, please check controller logs for errors',
    );
    await expect(h.reconcile({ namespace: ns, name: 'w5' })).rejects.toThrow(
      'spec.source.persistentVolumeName for VolumeAttachment va-inline is not set',
    );
    const [event] = await eventually(async () => {
      const found = await eventsAbout('w5', 'FailedWaitForVolumeDetach');
      return found.length > 0 && found;
    }, 'FailedWaitForVolumeDetach event');
    expect(event).toMatchObject({
      type: 'Warning',
      message:
        'error waiting for node volumes detaching, Machine\'s node "node-w5": spec.source.persistentVolumeName for VolumeAttachment va-inline is not set',
    });
    expect(await h.client.tryGet(infraRef('w5'))).toBeDefined();

    // Excluding the Machine from the wait lets it go.
    await annotate(h.client, machineRef('w5'), { 'machine.cluster.x-k8s.io/exclude-wait-for-node-volume-detach': '' });
    await gone('w5');
  });
  it('the volumes of Pods the drain skips (a DaemonSet Pod) are not waited for', async () => {
    await createRunningMachine(h.client, ns, 'w6');
    const labels = { app: 'ds-w6' };
    const container = { name: 'c', image: 'busybox' };
    const ds = await h.client.create<KubeObject>({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'ds-w6', namespace: ns },
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [container] } },
      },
    });
    await h.client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'ds-w6-pod',
        namespace: ns,
        labels,
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds-w6', uid: ds.metadata.uid!, controller: true },
        ],
      },
      spec: {
        nodeName: 'node-w6',
        containers: [container],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-w6' } }],
      },
    });
    await attachVolume('pv-w6', 'node-w6', 'data-w6');
    await h.client.delete(machineRef('w6'));
    await gone('w6');
    expect((await h.client.get<KubeObject>(vaRef('va-pv-w6'))).status).toEqual({ attached: true });
    expect(await eventsAbout('w6', 'NodeVolumesDetached')).toHaveLength(1);
  });
});
