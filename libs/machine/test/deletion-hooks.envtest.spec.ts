// Deletion lifecycle hooks of the Machine controller (upstream core/reconcilers/machine/machine_controller.go
// reconcileDelete): pre-drain and pre-terminate hook annotations, anyone's, hold the deletion at their step until
// removed; removing one brings the Machine back (it is a Machine update) and the deletion goes on.
import type { KubeObject } from '@capi/apimachinery';
import { eventually, settle, TEST_INFRA_API_VERSION } from '@capi/envtest';
import {
  BOOTSTRAP_API,
  MACHINE_API,
  annotate,
  conditionOf,
  createControlPlaneMachine,
  createMachineObjects,
  createNamespace,
  createNode,
  createReadyCluster,
  createRunningMachine,
  provisionBootstrap,
  provisionInfra,
  ref,
} from './support/fixtures';
import { startHarness, type Harness } from './support/harness';

jest.setTimeout(90_000);

const PRE_DRAIN = 'pre-drain.delete.hook.machine.cluster.x-k8s.io/test-owner';
const PRE_TERMINATE = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/test-owner';

describe('Machine deletion hooks (envtest)', () => {
  let h: Harness;
  const ns = 'deletion-hooks';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    // An active control-plane Machine: the Nodes of deleted Machines may be deleted (upstream isDeleteNodeAllowed).
    await createControlPlaneMachine(h.client, ns, 'cp');
  });
  afterAll(async () => h?.close());

  const machineRef = (name: string) => ref(MACHINE_API, 'Machine', ns, name);
  const infraRef = (name: string) => ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, `${name}-infra`);
  const bootRef = (name: string) => ref(BOOTSTRAP_API, 'KubeadmConfig', ns, `${name}-boot`);
  const nodeRef = (name: string) => ({ apiVersion: 'v1', kind: 'Node', name });
  const deletingCondition = async (name: string) => conditionOf(await h.client.tryGet(machineRef(name)), 'Deleting');
  const gone = (name: string) =>
    eventually(async () => !(await h.client.tryGet(machineRef(name))), `Machine ${name} gone`);

  it('a foreign pre-terminate hook keeps the infra machine, bootstrap config and Node until the hook is removed', async () => {
    await createRunningMachine(h.client, ns, 'w1');
    await annotate(h.client, machineRef('w1'), { [PRE_TERMINATE]: '' });
    await h.client.delete(machineRef('w1'));

    const waiting = await eventually(async () => {
      const m = await h.client.get<KubeObject>(machineRef('w1'));
      return conditionOf(m, 'Deleting')?.reason === 'WaitingForPreTerminateHook' && m;
    }, 'Deleting=WaitingForPreTerminateHook');
    expect(conditionOf(waiting, 'Deleting')).toMatchObject({
      status: 'True',
      message: `Waiting for pre-terminate hooks to succeed (hooks: ${PRE_TERMINATE})`,
    });
    const startedAt = (waiting.status as { deletion?: { waitForPreTerminateHookStartTime?: string } }).deletion
      ?.waitForPreTerminateHookStartTime;
    expect(startedAt).toBeDefined();

    // Held: nothing was deleted, and the wait does not move on by itself.
    await settle(h.manager, ['machine']);
    const infra = await h.client.get<KubeObject>(infraRef('w1'));
    expect(infra.metadata.deletionTimestamp).toBeUndefined();
    expect((await h.client.get<KubeObject>(bootRef('w1'))).metadata.deletionTimestamp).toBeUndefined();
    expect(await h.client.tryGet(nodeRef('node-w1'))).toBeDefined();
    expect(await deletingCondition('w1')).toMatchObject({ reason: 'WaitingForPreTerminateHook' });
    const again = await h.client.get<KubeObject>(machineRef('w1'));
    expect(
      (again.status as { deletion?: { waitForPreTerminateHookStartTime?: string } }).deletion
        ?.waitForPreTerminateHookStartTime,
    ).toBe(startedAt);

    // The hook's owner is done: the deletion goes on without any other event.
    await annotate(h.client, machineRef('w1'), { [PRE_TERMINATE]: null });
    await gone('w1');
    expect(await h.client.tryGet(infraRef('w1'))).toBeUndefined();
    expect(await h.client.tryGet(bootRef('w1'))).toBeUndefined();
    expect(await h.client.tryGet(nodeRef('node-w1'))).toBeUndefined();
  });

  it('waits for pre-drain hooks first, then pre-terminate hooks, then deletes', async () => {
    await createRunningMachine(h.client, ns, 'w2');
    await annotate(h.client, machineRef('w2'), { [PRE_DRAIN]: '', [PRE_TERMINATE]: '' });
    await h.client.delete(machineRef('w2'));

    const preDrain = await eventually(async () => {
      const c = await deletingCondition('w2');
      return c?.reason === 'WaitingForPreDrainHook' && c;
    }, 'Deleting=WaitingForPreDrainHook');
    expect(preDrain.message).toBe(`Waiting for pre-drain hooks to succeed (hooks: ${PRE_DRAIN})`);
    const m = await h.client.get<KubeObject>(machineRef('w2'));
    expect((m.status as { deletion?: Record<string, string> }).deletion?.waitForPreDrainHookStartTime).toBeDefined();
    expect(
      (m.status as { deletion?: Record<string, string> }).deletion?.waitForPreTerminateHookStartTime,
    ).toBeUndefined();

    await annotate(h.client, machineRef('w2'), { [PRE_DRAIN]: null });
    await eventually(
      async () => (await deletingCondition('w2'))?.reason === 'WaitingForPreTerminateHook',
      'Deleting=WaitingForPreTerminateHook',
    );
    expect((await h.client.get<KubeObject>(infraRef('w2'))).metadata.deletionTimestamp).toBeUndefined();

    await annotate(h.client, machineRef('w2'), { [PRE_TERMINATE]: null });
    await gone('w2');
    expect(await h.client.tryGet(nodeRef('node-w2'))).toBeUndefined();
  });

  it('without an active control-plane Machine the Node stays and pre-drain hooks are not waited for', async () => {
    // Cluster c2 has no control-plane Machine (upstream isDeleteNodeAllowed: errNoControlPlaneNodes).
    await createReadyCluster(h.client, ns, 'c2');
    const objs = await createMachineObjects(h.client, ns, { name: 'w3', cluster: 'c2' });
    await provisionBootstrap(h.client, ns, objs.bootstrap!);
    await createNode(h.client, 'node-w3', 'test://w3');
    await provisionInfra(h.client, ns, objs.infra, 'test://w3');
    await eventually(
      async () => ((await h.client.get<KubeObject>(machineRef('w3'))).status as { nodeRef?: unknown })?.nodeRef,
      'w3 has its nodeRef',
    );
    await annotate(h.client, machineRef('w3'), { [PRE_DRAIN]: '' });
    await h.client.delete(machineRef('w3'));
    await gone('w3');
    expect(await h.client.tryGet(infraRef('w3'))).toBeUndefined();
    expect(await h.client.tryGet(nodeRef('node-w3'))).toBeDefined();
  });
});
