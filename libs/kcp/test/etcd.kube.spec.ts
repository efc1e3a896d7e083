// KCP's etcd path end to end on a real 3-member etcd v3.6 over TLS (KUBEBUILDER_ASSETS): the management cluster holds
// the `<cluster>-etcd` CA and `<cluster>-kubeconfig` Secrets, the kubeconfig points at a WebSocket port-forward front
// (@capi/etcd/testing, kubelet's framing) in front of the members; etcd member names are the Node names, as kubeadm's.
import type { Machine } from '@capi/api';
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { generateCA } from '@capi/certs';
import { startPortForwardServer, startTlsEtcd, type PortForwardServer, type TlsEtcd } from '@capi/etcd/testing';
import { testReconcileContext } from '@capi/controller-runtime/testing';
import { observeControlPlane } from '../src/control-plane-view';
import { etcdClientGeneratorFactory } from '../src/etcd-access';
import { reconcileEtcdMembers } from '../src/etcd-members-io';
import { machine } from '../src/testing/fixtures';
import { ClientWorkloadCluster, CONTROL_PLANE_NODE_ROLE_LABEL, type WorkloadCluster } from '../src/workload-cluster';

jest.setTimeout(120_000);

const NS = 'etcd-e2e';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('KCP etcd through the workload API server (real etcd)', () => {
  let env: Envtest;
  let client: KubeClient;
  let etcd: TlsEtcd;
  let pf: PortForwardServer;
  const nodes = () => etcd.cluster.members.map((m) => m.name);
  const nodeObjects = () =>
    nodes().map((name) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { [CONTROL_PLANE_NODE_ROLE_LABEL]: '' }, creationTimestamp: '2026-01-01T00:00:00Z' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    }));
  /** A workload cluster of `cluster` whose Nodes are the live members (its API is only used for etcd here). */
  const workload = (cluster: string) =>
    new ClientWorkloadCluster(client, () => etcdClientGeneratorFactory(client)({ namespace: NS, name: cluster }), {
      list: () => Promise.resolve(nodeObjects().filter((n) => alive.has(n.metadata.name))),
      get: (name) => Promise.resolve(nodeObjects().find((n) => n.metadata.name === name)),
    });
  const alive = new Set<string>();
  const machineOn = (node: string): Machine => {
    const m = machine(`m-${node}`);
    m.spec.providerID = `test://${node}`;
    m.status = { nodeRef: { name: node } };
    return m;
  };
  const secret = (name: string, data: Record<string, string>) =>
    client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data });

  beforeAll(async () => {
    [env, etcd, pf] = await Promise.all([startEnvtest(), startTlsEtcd(3), startPortForwardServer()]);
    client = clientFor(env);
    for (const m of etcd.cluster.members) {
      pf.pods.set(`kube-system/etcd-${m.name}`, new URL(m.clientUrl).host);
      alive.add(m.name);
    }
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const kubeconfig = b64(pf.kubeConfig().exportConfig());
    const wrongCa = await generateCA('not-the-etcd-ca');
    for (const [cluster, ca] of [
      ['c1', etcd.ca],
      ['wrong-ca', wrongCa],
    ] as const) {
      await secret(`${cluster}-kubeconfig`, { value: kubeconfig });
      await secret(`${cluster}-etcd`, { 'tls.crt': b64(ca.cert), 'tls.key': b64(ca.key) });
    }
    await secret('no-etcd-kubeconfig', { value: kubeconfig });
  });

  afterAll(async () => {
    client?.close();
    await pf?.close();
    await etcd?.stop();
    await env?.stop();
  });

  it('reads members, leader and alarms; every Machine EtcdMemberHealthy, EtcdClusterHealthy True', async () => {
    const wc = workload('c1');
    const machines = nodes().map(machineOn);
    const results = new Map(
      machines.map((m) => [m.metadata.name!, { upToDate: true, result: { eligibleForInPlaceUpdate: true } }] as const),
    );
    const observed = await observeControlPlane(
      { forCluster: () => Promise.resolve(wc) },
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: NS, name: 'c1' },
        spec: {},
      } as never,
      { spec: { kubeadmConfigSpec: {} } } as never,
      machines,
      results as never,
    );
    expect(observed.etcdMembers?.map((m) => m.name).sort()).toEqual([...nodes()].sort());
    expect(observed.etcdLeader?.name).toBe((await etcd.cluster.leader())?.name);
    expect(observed.etcdAlarms).toEqual([]);
    for (const m of machines)
      expect(observed.machineHealth.get(m.metadata.name!)?.find((c) => c.type === 'EtcdMemberHealthy')).toEqual({
        type: 'EtcdMemberHealthy',
        status: 'True',
        reason: 'Healthy',
      });
    expect(observed.kcpHealth.find((c) => c.type === 'EtcdClusterHealthy')).toMatchObject({ status: 'True' });
  });

  it('forwardEtcdLeadership moves the real leader to the candidate; a follower is left alone', async () => {
    const wc = workload('c1');
    const leader = (await etcd.cluster.leader())!.name;
    const candidate = nodes().find((n) => n !== leader)!;
    await wc.forwardEtcdLeadership(machineOn(candidate), machineOn(leader)); // not the leader: nothing moves
    expect((await etcd.cluster.leader())?.name).toBe(leader);
    await wc.forwardEtcdLeadership(machineOn(leader), machineOn(candidate));
    expect((await etcd.cluster.leader())?.name).toBe(candidate);
  });

  it("the etcd CA Secret missing, or not the members' CA: a clear error on the etcd conditions, within seconds", async () => {
    const started = Date.now();
    const missing = await workload('no-etcd').etcdMembersAndAlarms(nodes());
    expect(missing).toEqual({
      error: `failed to get secret; etcd CA bundle ${NS}/no-etcd-etcd: not found`,
      machineMessage: `Failed to connect to etcd: failed to get secret; etcd CA bundle ${NS}/no-etcd-etcd: not found`,
    });
    const wrong = await workload('wrong-ca').etcdMembersAndAlarms(nodes());
    expect(wrong).toMatchObject({
      error: expect.stringMatching(
        /^failed to get an etcd client for .* Nodes: could not establish a connection to etcd members hosted on /,
      ),
      machineMessage: expect.stringMatching(/^Failed to connect to etcd: .*14 UNAVAILABLE/),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('reconcileEtcdMembers removes the member without a Machine (retrying while etcd refuses); removeEtcdMemberForMachine too', async () => {
    const wc: WorkloadCluster = workload('c1');
    const [a, b, orphan] = [...nodes()].sort();
    const machines = [a, b].map(machineOn);
    const results = new Map(
      machines.map((m) => [m.metadata.name!, { upToDate: true, result: { eligibleForInPlaceUpdate: true } }] as const),
    );
    const observe = () =>
      observeControlPlane(
        { forCluster: () => Promise.resolve(wc) },
        { metadata: { namespace: NS, name: 'c1' }, spec: {} } as never,
        { spec: { kubeadmConfigSpec: {} } } as never,
        machines,
        results as never,
      );
    const before = await observe();
    expect(before.kcpHealth.find((c) => c.type === 'EtcdClusterHealthy')).toMatchObject({
      status: 'False',
      message: `* Etcd member ${orphan} does not have a corresponding Machine`,
    });
    // etcd refuses removals until every member has been connected for 5 s ("unhealthy cluster"): KCP requeues.
    let result;
    for (let deadline = Date.now() + 20_000; ;) {
      const err = await reconcileEtcdMembers(await observe(), testReconcileContext().log).then(
        (r) => ((result = r), undefined),
        (e: Error) => e,
      );
      if (!err) break;
      expect(err.message).toMatch(
        new RegExp(`^failed to remove etcd member ${orphan}. Please check the etcd status: .*unhealthy cluster`),
      );
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(result).toEqual({ requeueAfterMs: 1000 });
    alive.delete(orphan);
    const after = await observe();
    expect(after.etcdMembers?.map((m) => m.name).sort()).toEqual([a, b]);
    expect(after.kcpHealth.find((c) => c.type === 'EtcdClusterHealthy')).toMatchObject({ status: 'True' });
    expect(await reconcileEtcdMembers(after, testReconcileContext().log)).toBeUndefined();

    // The last two: removing one leaves one; the last is never removed.
    await wc.removeEtcdMemberForMachine(machineOn(b));
    alive.delete(b);
    // If b led, a elects itself first: the next reconciles read the one member left.
    await eventually(async () => (await observe()).etcdMembers?.map((m) => m.name).join() === a, {
      message: `etcd to report ${a} as its only member`,
      timeoutMs: 15_000,
    });
    await expect(wc.removeEtcdMemberForMachine(machineOn(a))).rejects.toThrow(
      /failed to create etcd client: invalid argument: forFirstAvailableNode can't be called with an empty list of nodes/,
    );
  });
});
