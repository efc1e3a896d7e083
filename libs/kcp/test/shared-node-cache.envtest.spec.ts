// The Machine and KCP controllers of one manager read a workload cluster's Nodes through one Node informer (upstream:
// one ClusterCache per manager), not one each: a fleet's Nodes are held in the manager's memory once.
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import {
  createControlPlane,
  getKcp,
  KCP_POLL,
  listMachines,
  startKcpHarness,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(90_000);

describe('workload cluster Node cache shared by the Machine and KCP controllers', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 1 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('opens one Node watch on the workload cluster for both controllers', async () => {
    await eventually(
      async () =>
        (await listMachines(h.client)).filter((m) => m.status?.nodeRef).length === 1 &&
        (await getKcp(h.client)).status?.readyReplicas === 1,
      { ...KCP_POLL, message: '1 ready control plane Machine' },
    );
    const workloads = h.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS, { strict: false });
    const counts = await Promise.all(workloads.list().map((w) => w.server.countRequests()));
    const nodeWatches = counts.map((c) =>
      Object.entries(c.byVerbResource)
        .filter(([k]) => /^watch \S*\/nodes$/.test(k))
        .reduce((n, [, v]) => n + v, 0),
    );
    expect(nodeWatches).toEqual([1]);
  });
});
