// A deleting Machine's Node deletion failing (upstream core/reconcilers/machine/machine_controller_test.go
// TestNodeDeletion, whose fakeClientWithNodeDeletionErr fails every Node delete): the Machine stays, DeletingNode and a
// FailedDeleteNode event, until spec.deletion.nodeDeletionTimeoutSeconds has passed since its deletionTimestamp; unset
// (or 0) it waits for ever.
import type { KubeObject } from '@capi/apimachinery';
import type { Client, ObjectRef } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
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

describe('Machine deletion when deleting its Node fails (envtest)', () => {
  let h: Harness;
  const ns = 'node-deletion';
  /** Node names whose deletion fails, as the workload cluster would answer a forbidden or failing delete. */
  const failing = new Set<string>();
  beforeAll(async () => {
    h = await startHarness({
      inPlaceUpdates: false,
      // One attempt per reconcile (upstream retries for 10 s).
      nodeDeletionRetryTimeoutMs: 0,
      wrapWorkloadClient: (client) =>
        new Proxy(client, {
          get(target, prop, receiver) {
            if (prop !== 'delete') return Reflect.get(target, prop, receiver);
            return async (r: ObjectRef, opts?: unknown) => {
              if (r.kind === 'Node' && failing.has(r.name)) throw new Error('fake error');
              return target.delete(r, opts as Parameters<Client['delete']>[1]);
            };
          },
        }),
    });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    await createControlPlaneMachine(h.client, ns, 'cp');
  });
  afterAll(async () => h?.close());

  const machineRef = (name: string) => ref(MACHINE_API, 'Machine', ns, name);
  const nodeRef = (name: string) => ({ apiVersion: 'v1', kind: 'Node', name });
  const gone = (name: string) =>
    eventually(async () => !(await h.client.tryGet(machineRef(name))), `Machine ${name} gone`);
  const eventsAbout = (name: string, reason: string) => machineEvents(h.client, ns, name, reason);

  async function deletingNode(name: string): Promise<KubeObject> {
    return eventually(async () => {
      const m = await h.client.get<KubeObject>(machineRef(name));
      return conditionOf(m, 'Deleting')?.reason === 'DeletingNode' && m;
    }, `${name}: Deleting=DeletingNode`);
  }

  /** Moves the controller's clock to `seconds` after the Machine's deletionTimestamp (the API server's time). */
  function clockAfterDeletion(m: KubeObject, seconds: number): void {
    const target = Date.parse(m.metadata.deletionTimestamp!) + seconds * 1000;
    if (target > h.clock.now()) h.clock.advance(target - h.clock.now());
  }

  it('waits while the timeout has not passed, then goes without deleting the Node', async () => {
    await createRunningMachine(h.client, ns, 'w1');
    await h.client.patch(machineRef('w1'), 'merge', { spec: { deletion: { nodeDeletionTimeoutSeconds: 3600 } } });
    failing.add('node-w1');
    await h.client.delete(machineRef('w1'));

    const waiting = await deletingNode('w1');
    expect(conditionOf(waiting, 'Deleting')?.message).toBe(
      'Error deleting Node, please check controller logs for errors',
    );
    const [event] = await eventually(async () => {
      const found = await eventsAbout('w1', 'FailedDeleteNode');
      return found.length > 0 && found;
    }, 'FailedDeleteNode event');
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.message).toContain(`error deleting Machine's Node: error deleting node node-w1: fake error`);

    // Not expired: still an error.
    clockAfterDeletion(waiting, 3599);
    await expect(h.reconcile({ namespace: ns, name: 'w1' })).rejects.toThrow('fake error');
    expect(await h.client.tryGet(machineRef('w1'))).toBeDefined();

    // Expired: the Machine goes, its Node stays.
    clockAfterDeletion(waiting, 3600);
    await annotate(h.client, machineRef('w1'), { poke: '1' });
    await gone('w1');
    expect(await h.client.tryGet(nodeRef('node-w1'))).toBeDefined();
  });

  it('without a timeout (0 is none) it waits for ever, and goes once the Node can be deleted', async () => {
    await createRunningMachine(h.client, ns, 'w2');
    await h.client.patch(machineRef('w2'), 'merge', { spec: { deletion: { nodeDeletionTimeoutSeconds: 0 } } });
    failing.add('node-w2');
    await h.client.delete(machineRef('w2'));

    const waiting = await deletingNode('w2');
    clockAfterDeletion(waiting, 365 * 24 * 3600);
    await expect(h.reconcile({ namespace: ns, name: 'w2' })).rejects.toThrow('fake error');
    expect(conditionOf(await h.client.get<KubeObject>(machineRef('w2')), 'Deleting')?.reason).toBe('DeletingNode');

    failing.delete('node-w2');
    await annotate(h.client, machineRef('w2'), { poke: '1' });
    await gone('w2');
    expect(await h.client.tryGet(nodeRef('node-w2'))).toBeUndefined();
  });
});
