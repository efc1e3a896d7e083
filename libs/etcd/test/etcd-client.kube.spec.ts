// @capi/etcd against a real 3-member etcd v3.6 over TLS with client-certificate auth (KUBEBUILDER_ASSETS), each
// member reached through the test port-forward server as KCP reaches etcd-<node> through the API server.
import { ALARM_TYPE_NAME, AlarmType, EtcdClientGenerator, type EtcdClient } from '@capi/etcd';
import { AlarmAction, AlarmType as EtcdAlarmType, Etcd3 } from 'etcd3';
import { generateCA, signCertificate } from '@capi/certs';
import { startPortForwardServer, type PortForwardServer } from '@capi/etcd/testing';
import { startTlsEtcd, type TlsEtcd } from '@capi/etcd/testing';

jest.setTimeout(120_000);

describe('EtcdClient on a real 3-member etcd over TLS, through port-forward', () => {
  let etcd: TlsEtcd;
  let pf: PortForwardServer;
  let generator: EtcdClientGenerator;
  const clients: EtcdClient[] = [];
  const open = async (node: string) => {
    const c = await generator.forFirstAvailableNode([node]);
    clients.push(c);
    return c;
  };
  const hostPort = (url: string) => new URL(url).host;
  // Node names as kubeadm names the members: the member name is the Node name.
  const nodes = () => etcd.cluster.members.map((m) => m.name);

  beforeAll(async () => {
    etcd = await startTlsEtcd(3);
    pf = await startPortForwardServer();
    for (const m of etcd.cluster.members) pf.pods.set(`kube-system/etcd-${m.name}`, hostPort(m.clientUrl));
    generator = EtcdClientGenerator.forWorkloadCluster({ kubeConfig: pf.kubeConfig(), tls: etcd.clientTls });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await pf?.close();
    await etcd?.stop();
  });

  it('lists the members (exact 64-bit ids, one cluster id), reports status/leader and no alarms', async () => {
    const client = await open(nodes()[0]);
    expect(client.endpoint).toBe(`etcd-${nodes()[0]}`);
    const members = await client.members();
    expect(members.map((m) => m.name).sort()).toEqual([...nodes()].sort());
    for (const m of members) {
      expect(m.id).toMatch(/^[1-9][0-9]*$/);
      expect(m.isLearner).toBe(false);
      expect(m.clientURLs).toEqual([etcd.cluster.members.find((x) => x.name === m.name)!.clientUrl]);
    }
    expect(new Set(members.map((m) => m.clusterId)).size).toBe(1);
    const leader = await etcd.cluster.leader();
    expect(members.find((m) => m.id === client.leaderId)?.name).toBe(leader!.name);
    expect(await client.alarms()).toEqual([]);
    // Every member agrees on the list and the leader.
    for (const node of nodes().slice(1)) {
      const other = await open(node);
      expect((await other.members()).map((m) => m.id).sort()).toEqual(members.map((m) => m.id).sort());
      expect(other.leaderId).toBe(client.leaderId);
    }
  });

  it('reports the alarms etcd raised, by member (NOSPACE activated and cleared through the Maintenance API)', async () => {
    const client = await open(nodes()[1]);
    const member = (await client.members()).find((m) => m.name === nodes()[2])!;
    const admin = new Etcd3({
      hosts: etcd.cluster.members[0].clientUrl,
      credentials: {
        rootCertificate: Buffer.from(etcd.ca.cert),
        certChain: Buffer.from(etcd.clientTls.cert),
        privateKey: Buffer.from(etcd.clientTls.key),
      },
    });
    try {
      await admin.maintenance.alarm({
        action: AlarmAction.Activate,
        memberID: member.id,
        alarm: EtcdAlarmType.Nospace,
      });
      expect(await client.alarms()).toEqual([{ memberId: member.id, type: AlarmType.NoSpace }]);
      expect(ALARM_TYPE_NAME[(await client.alarms())[0].type]).toBe('NOSPACE');
      await admin.maintenance.alarm({
        action: AlarmAction.Deactivate,
        memberID: member.id,
        alarm: EtcdAlarmType.Nospace,
      });
      expect(await client.alarms()).toEqual([]);
    } finally {
      admin.close();
    }
  });

  it('moveLeader moves the leadership to the member asked', async () => {
    const before = (await etcd.cluster.leader())!;
    // MoveLeader must be called on the leader (upstream ForwardEtcdLeadership connects to it).
    const client = await open(before.name);
    const members = await client.members();
    const target = members.find((m) => m.name !== before.name)!;
    await client.moveLeader(target.id);
    const after = await etcd.cluster.leader();
    expect(after?.name).toBe(target.name);
    const fresh = await open(nodes().find((n) => n !== target.name)!);
    expect(fresh.leaderId).toBe(target.id);
  });

  it("moveLeader on a follower is refused with etcd's error", async () => {
    const leader = (await etcd.cluster.leader())!;
    const follower = await open(nodes().find((n) => n !== leader.name)!);
    const members = await follower.members();
    const other = members.find((m) => m.name !== leader.name && m.name !== follower.endpoint.slice(5))!;
    await expect(follower.moveLeader(other.id)).rejects.toThrow(
      new RegExp(`^failed to move etcd leader to: ${other.id}: .*not leader`),
    );
  });

  it('removes a member: it is gone from the list and the cluster stays healthy', async () => {
    const leader = (await etcd.cluster.leader())!;
    const victim = etcd.cluster.members.find((m) => m !== leader)!;
    const client = await open(leader.name);
    const id = (await client.members()).find((m) => m.name === victim.name)!.id;
    // etcd refuses to remove a member until every member has been connected for 5 s ("unhealthy cluster"): KCP
    // requeues on that error; here we retry the same way.
    for (let deadline = Date.now() + 20_000; ;) {
      const err = await client.removeMember(id).then(
        () => undefined,
        (e: Error) => e,
      );
      if (!err) break;
      expect(err.message).toMatch(new RegExp(`^failed to remove etcd member: ${id}: .*unhealthy cluster`));
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
    const remaining = await client.members();
    expect(remaining.map((m) => m.name).sort()).toEqual(
      nodes()
        .filter((n) => n !== victim.name)
        .sort(),
    );
    await victim.process.stop();
    for (const m of etcd.cluster.members.filter((x) => x !== victim)) expect(await etcd.cluster.healthy(m)).toBe(true);
    // Removing it again: etcd says the member is not found.
    await expect(client.removeMember(id)).rejects.toThrow(
      new RegExp(`^failed to remove etcd member: ${id}: .*member not found`),
    );
  });

  it('a client certificate of another CA is refused within seconds, with the reason', async () => {
    const otherCa = await generateCA('not-the-etcd-ca');
    const wrong = await signCertificate(otherCa, { commonName: 'cluster-api.x-k8s.io', usage: 'client' });
    const bad = EtcdClientGenerator.forWorkloadCluster({
      kubeConfig: pf.kubeConfig(),
      tls: { ca: etcd.ca.cert, cert: wrong.cert, key: wrong.key },
    });
    const started = Date.now();
    const leader = (await etcd.cluster.leader())!;
    await expect(bad.forFirstAvailableNode([leader.name])).rejects.toThrow(
      new RegExp(
        `^could not establish a connection to etcd members hosted on ${leader.name}: failed to get etcd status: .*(certificate|alert|handshake|Connection dropped|UNAVAILABLE)`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a serving certificate not signed by the etcd CA is refused', async () => {
    const otherCa = await generateCA('other-ca');
    const bad = EtcdClientGenerator.forWorkloadCluster({
      kubeConfig: pf.kubeConfig(),
      tls: { ...etcd.clientTls, ca: otherCa.cert },
    });
    const leader = (await etcd.cluster.leader())!;
    await expect(bad.forFirstAvailableNode([leader.name])).rejects.toThrow(/failed to get etcd status: .*/);
  });

  it("an unreachable member fails fast; the next Node's member answers; no Pod → the API server's reason", async () => {
    pf.pods.set('kube-system/etcd-gone', '127.0.0.1:1');
    const started = Date.now();
    const leader = (await etcd.cluster.leader())!;
    await expect(generator.forFirstAvailableNode(['gone', 'missing'])).rejects.toThrow(
      /^could not establish a connection to etcd members hosted on gone,missing: \[failed to get etcd status: .*error forwarding port 2379 to pod etcd-gone.*, failed to get etcd status: .*pods "etcd-missing" not found\]$/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    const client = await generator.forFirstAvailableNode(['gone', leader.name]);
    clients.push(client);
    expect(client.endpoint).toBe(`etcd-${leader.name}`);
  });

  it('an API server that never answers the upgrade: the dial timeout bounds it', async () => {
    const slow = EtcdClientGenerator.forWorkloadCluster({
      kubeConfig: pf.kubeConfig(),
      tls: etcd.clientTls,
      dialTimeoutMs: 1000,
    });
    pf.hang = true;
    try {
      const started = Date.now();
      await expect(slow.forFirstAvailableNode([nodes()[0]])).rejects.toThrow(/failed to get etcd status: .*timed out/i);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      pf.hang = false;
    }
  });
});
