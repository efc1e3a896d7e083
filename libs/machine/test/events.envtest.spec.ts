// Events the Machine controller records (upstream core/reconcilers/machine/machine_controller_noderef.go), as core/v1
// Events listed from the API server.
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import {
  MACHINE_API,
  annotate,
  createMachineObjects,
  createNamespace,
  createNode,
  createReadyCluster,
  provisionBootstrap,
  provisionInfra,
  ref,
  machineEvents,
} from './support/fixtures';
import { startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

describe('Machine controller events (envtest)', () => {
  let h: Harness;
  const ns = 'machine-events';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
  });
  afterAll(async () => h?.close());

  const eventsAbout = (name: string, reason: string) => machineEvents(h.client, ns, name, reason);

  it('records SuccessfulSetNodeRef with the Node name once, when the nodeRef is first set', async () => {
    const objs = await createMachineObjects(h.client, ns, { name: 'm1' });
    await provisionBootstrap(h.client, ns, objs.bootstrap!);
    await provisionInfra(h.client, ns, objs.infra, 'test://events-m1');
    await eventually(async () => {
      const m = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'm1'));
      return (m.spec as { providerID?: string }).providerID === 'test://events-m1';
    }, 'providerID mirrored');
    expect(await eventsAbout('m1', 'SuccessfulSetNodeRef')).toEqual([]);

    await createNode(h.client, 'events-node-m1', 'test://events-m1');
    await annotate(h.client, ref(MACHINE_API, 'Machine', ns, 'm1'), { poke: '1' });
    const [event] = await eventually(async () => {
      const found = await eventsAbout('m1', 'SuccessfulSetNodeRef');
      return found.length > 0 && found;
    }, 'SuccessfulSetNodeRef event');
    // Recorded before the status write, as upstream: the nodeRef follows.
    const machine = await eventually(async () => {
      const m = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'm1'));
      return (m.status as { nodeRef?: { name: string } }).nodeRef?.name === 'events-node-m1' && m;
    }, 'nodeRef set');
    expect(event).toMatchObject({
      type: 'Normal',
      message: 'events-node-m1',
      involvedObject: { kind: 'Machine', name: 'm1', uid: machine.metadata.uid },
      source: { component: 'machine-controller' },
    });

    // Later reconciles keep the nodeRef and record nothing more (h.reconcile first lets the manager's cache show the
    // status write: a reconcile from a cache still without the nodeRef would record the event again, as upstream's).
    await h.reconcile({ namespace: ns, name: 'm1' });
    await annotate(h.client, ref(MACHINE_API, 'Machine', ns, 'm1'), { poke: '2' });
    await h.reconcile({ namespace: ns, name: 'm1' });
    const after = await eventsAbout('m1', 'SuccessfulSetNodeRef');
    expect(after).toHaveLength(1);
    expect(after[0].count ?? 1).toBe(1);
  });
});
