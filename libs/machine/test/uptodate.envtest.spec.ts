// The worker Machine's UpToDate condition is written by the Machine controller (upstream setUpToDateCondition):
// MachineSet template vs MachineDeployment template, then Updating, then the kubelet version; re-evaluated when the
// owners change (MachineSet / MachineDeployment watches). Stand-alone Machines get no UpToDate.
import { MACHINE_DEPLOYMENT_NAME_LABEL } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually, settle } from '@capi/envtest';
import {
  MACHINE_API,
  MARKERS_ON,
  annotate,
  conditionOf,
  createNamespace,
  createReadyCluster,
  createRunningMachine,
  ref,
} from './support/fixtures';
import { startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

const template = (version: string) => ({
  metadata: { labels: { pool: 'a' } },
  spec: {
    clusterName: 'c1',
    version,
    bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'boot' } },
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachineTemplate', name: 'infra' },
  },
});
const ownerRef = (kind: string, o: KubeObject) => ({
  apiVersion: MACHINE_API,
  kind,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
  controller: true,
  blockOwnerDeletion: true,
});

describe('Machine controller UpToDate condition for MachineDeployment workers (envtest)', () => {
  let h: Harness;
  const ns = 'uptodate';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
  });
  afterAll(async () => h?.close());

  const machineRef = (name: string) => ref(MACHINE_API, 'Machine', ns, name);
  const getMachine = (name: string) => h.client.get<KubeObject>(machineRef(name));
  const upToDateOf = async (name: string) => conditionOf(await getMachine(name), 'UpToDate');
  const waitUpToDate = (name: string, want: { status: string; reason: string; message?: string }, what: string) =>
    eventually(async () => {
      const c = await upToDateOf(name);
      return (
        c?.status === want.status &&
        c.reason === want.reason &&
        (want.message === undefined || c.message === want.message) &&
        c
      );
    }, what);

  it('follows the MD and MS templates, Updating (with its message) and the kubelet version, in that order', async () => {
    const md = await h.client.create<KubeObject>({
      apiVersion: MACHINE_API,
      kind: 'MachineDeployment',
      metadata: { name: 'md', namespace: ns },
      spec: { clusterName: 'c1', replicas: 1, selector: { matchLabels: { pool: 'a' } }, template: template('v1.31.0') },
    });
    const ms = await h.client.create<KubeObject>({
      apiVersion: MACHINE_API,
      kind: 'MachineSet',
      metadata: {
        name: 'md-ms',
        namespace: ns,
        labels: { [MACHINE_DEPLOYMENT_NAME_LABEL]: 'md' },
        ownerReferences: [ownerRef('MachineDeployment', md)],
      },
      spec: { clusterName: 'c1', replicas: 1, selector: { matchLabels: { pool: 'a' } }, template: template('v1.31.0') },
    });
    await createRunningMachine(h.client, ns, 'w1');
    await h.client.patch(machineRef('w1'), 'merge', {
      metadata: {
        labels: { pool: 'a', [MACHINE_DEPLOYMENT_NAME_LABEL]: 'md' },
        ownerReferences: [ownerRef('MachineSet', ms)],
      },
    });
    const upToDate = await waitUpToDate('w1', { status: 'True', reason: 'UpToDate' }, 'UpToDate=True');
    expect(upToDate.message).toBeUndefined();

    // A new MD template: NotUpToDate with upstream's condition messages (the MD watch re-reconciles the Machine).
    await h.client.patch(ref(MACHINE_API, 'MachineDeployment', ns, 'md'), 'merge', {
      spec: { template: { spec: { version: 'v1.32.0' } } },
    });
    await waitUpToDate(
      'w1',
      { status: 'False', reason: 'NotUpToDate', message: '* Version v1.31.0, v1.32.0 required' },
      'NotUpToDate after the MD change',
    );

    // The MS catches up (the MS watch): up to date again.
    await h.client.patch(ref(MACHINE_API, 'MachineSet', ns, 'md-ms'), 'merge', {
      spec: { template: { spec: { version: 'v1.32.0' } } },
    });
    await waitUpToDate('w1', { status: 'True', reason: 'UpToDate' }, 'UpToDate after the MS change');

    // Being updated in place: False/Updating with the Updating condition's message as a bullet point.
    await annotate(h.client, machineRef('w1'), MARKERS_ON);
    const updating = await waitUpToDate('w1', { status: 'False', reason: 'Updating' }, 'UpToDate=False Updating');
    const updatingCondition = conditionOf(await getMachine('w1'), 'Updating');
    expect(updatingCondition).toMatchObject({ status: 'True' });
    expect(updatingCondition!.message).toBeTruthy();
    expect(updating.message).toBe(`* ${updatingCondition!.message}`);

    // Update done, but the Node's kubelet still runs another version than spec.version (v1.31.0): still Updating.
    await h.client.patch(
      ref('v1', 'Node', '', 'node-w1'),
      'merge',
      { status: { nodeInfo: { kubeletVersion: 'v1.30.0' } } },
      { subresource: 'status' },
    );
    await annotate(h.client, machineRef('w1'), { [Object.keys(MARKERS_ON)[0]]: null });
    await waitUpToDate(
      'w1',
      {
        status: 'False',
        reason: 'Updating',
        message: '* Node.status.nodeInfo.kubeletVersion v1.30.0, v1.31.0 required',
      },
      'kubelet version check',
    );
    await h.client.patch(
      ref('v1', 'Node', '', 'node-w1'),
      'merge',
      { status: { nodeInfo: { kubeletVersion: 'v1.31.0' } } },
      { subresource: 'status' },
    );
    await annotate(h.client, machineRef('w1'), { poke: '1' });
    await waitUpToDate('w1', { status: 'True', reason: 'UpToDate' }, 'UpToDate once the kubelet matches');
  });

  it('re-reconciles the Machines for an owner template change, not for a replica change (generation bump alone)', async () => {
    await settle(h.manager, ['machine']);
    const reconcile = jest.spyOn(h.reconciler, 'reconcile');
    const reconciledW1 = () => reconcile.mock.calls.filter(([req]) => req.name === 'w1').length;
    try {
      // What the MachineDeployment does several times per rollout batch; UpToDate does not read spec.replicas.
      await h.client.patch(ref(MACHINE_API, 'MachineSet', ns, 'md-ms'), 'merge', { spec: { replicas: 2 } });
      await h.client.patch(ref(MACHINE_API, 'MachineDeployment', ns, 'md'), 'merge', { spec: { replicas: 2 } });
      await settle(h.manager, ['machine']);
      expect(reconciledW1()).toBe(0);
      await h.client.patch(ref(MACHINE_API, 'MachineDeployment', ns, 'md'), 'merge', {
        spec: { template: { spec: { version: 'v1.33.0' } } },
      });
      await waitUpToDate(
        'w1',
        { status: 'False', reason: 'NotUpToDate', message: '* Version v1.32.0, v1.33.0 required' },
        'NotUpToDate after the MD template change',
      );
      expect(reconciledW1()).toBeGreaterThan(0);
    } finally {
      reconcile.mockRestore();
    }
  });

  it('spec.rollout.after: outdated for a MachineSet created before it, up to date for one created exactly at it', async () => {
    await h.client.patch(ref(MACHINE_API, 'MachineSet', ns, 'md-ms'), 'merge', {
      spec: { template: { spec: { version: 'v1.33.0' } } },
    });
    await waitUpToDate('w1', { status: 'True', reason: 'UpToDate' }, 'UpToDate after the MS caught up');
    // The server's creationTimestamp (whole seconds); rollout.after one second later must be in the past already (the
    // Machine controller does not requeue for a future rollout.after: the MachineDeployment acts on it).
    const created = (await h.client.get<KubeObject>(ref(MACHINE_API, 'MachineSet', ns, 'md-ms'))).metadata
      .creationTimestamp!;
    // The controller's clock is the harness's fake clock: move it past rollout.after.
    h.clock.advance(Math.max(0, Date.parse(created) + 60_000 - h.clock.now()));
    const rolloutAfter = (after: string) =>
      h.client.patch(ref(MACHINE_API, 'MachineDeployment', ns, 'md'), 'merge', { spec: { rollout: { after } } });
    const oneSecondLater = new Date(Date.parse(created) + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await rolloutAfter(oneSecondLater);
    await waitUpToDate(
      'w1',
      { status: 'False', reason: 'NotUpToDate', message: '* MachineDeployment spec.rolloutAfter expired' },
      'NotUpToDate once rollout.after passed the MS creation',
    );
    // metav1.Time.Before is strict: created == rollout.after is not before it.
    await rolloutAfter(created);
    await waitUpToDate('w1', { status: 'True', reason: 'UpToDate' }, 'UpToDate with rollout.after at the MS creation');
  });

  it('a stand-alone Machine and a Machine of a stand-alone MachineSet get no UpToDate', async () => {
    await createRunningMachine(h.client, ns, 'alone');
    const ms = await h.client.create<KubeObject>({
      apiVersion: MACHINE_API,
      kind: 'MachineSet',
      metadata: { name: 'lonely-ms', namespace: ns },
      spec: { clusterName: 'c1', replicas: 1, selector: { matchLabels: { pool: 'b' } }, template: template('v1.31.0') },
    });
    await createRunningMachine(h.client, ns, 'of-ms');
    await h.client.patch(machineRef('of-ms'), 'merge', {
      metadata: { labels: { pool: 'b' }, ownerReferences: [ownerRef('MachineSet', ms)] },
    });
    await eventually(async () => conditionOf(await getMachine('of-ms'), 'Ready')?.status === 'True', 'of-ms Ready');
    await settle(h.manager, ['machine']);
    expect(await upToDateOf('alone')).toBeUndefined();
    expect(await upToDateOf('of-ms')).toBeUndefined();
  });
});
