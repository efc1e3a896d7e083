// The Machine controller reads workload Nodes through the workload cluster cache: one Node list per cluster (the
// informer's), not one per new Machine, and a Node appearing later reaches its Machine by a watch event, not a poll.
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import {
  createNamespace,
  createNode,
  createReadyCluster,
  createRunningMachine,
  MACHINE_API,
  ref,
} from './support/fixtures';
import { startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

const nodeRefOf = (m: KubeObject) => (m.status as { nodeRef?: { name: string } } | undefined)?.nodeRef;
/** Node list requests at the API server (the harness's workload cluster is the envtest server). */
const nodeLists = async (h: Harness) =>
  Object.entries((await h.env.countRequests()).byVerbResource)
    .filter(([k]) => /^list \S*\/nodes$/.test(k))
    .reduce((s, [, n]) => s + n, 0);

describe('Machine controller: workload Node cache (envtest)', () => {
  let h: Harness;
  const ns = 'nodecache';
  beforeAll(async () => {
    // An hour between Node polls: nothing below may rely on one.
    h = await startHarness({ inPlaceUpdates: false, nodePollIntervalMs: 3_600_000 });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
  });
  afterAll(async () => h?.close());

  it('finds the Nodes of N new Machines with a constant number of Node lists, not one per Machine', async () => {
    await h.env.resetRequests();
    const n = 8;
    for (let i = 0; i < n; i++) await createRunningMachine(h.client, ns, `m${i}`);
    for (let i = 0; i < n; i++) {
      expect(nodeRefOf(await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, `m${i}`)))).toEqual({
        name: `node-m${i}`,
      });
    }
    // The cluster's Node informer lists once (a relist after a dropped watch would add one).
    expect(await nodeLists(h)).toBeLessThanOrEqual(2);
  });

  it('a Node created after its Machine was provisioned gives the Machine its nodeRef by a Node event (no poll, no poke)', async () => {
    await createRunningMachine(h.client, ns, 'late', { node: false });
    const before = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'late'));
    expect(nodeRefOf(before)).toBeUndefined();
    await createNode(h.client, 'node-late', 'test://late');
    const m = await eventually(async () => {
      const x = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'late'));
      return nodeRefOf(x) && x;
    }, 'nodeRef from the Node event');
    expect(nodeRefOf(m)).toEqual({ name: 'node-late' });
  });
});
