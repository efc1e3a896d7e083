// The simulated etcd members of a workload cluster, reached as KCP reaches a real one: the etcd3 client over TLS with
// a client certificate, through a port-forward to the etcd Pod on the workload API server — in this process and in
// the child process hosting the servers.
import { generateCA, signCertificate, type KeyPair } from '@capi/certs';
import { KubeClient } from '@capi/controller-runtime';
import { renderKubeconfig } from '@capi/apiserver';
import { KubeConfig } from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { applyNode, removeNode } from '../../src/host/nodes';
import type { HostState } from '../../src/host/node';
import { ETCD_CLUSTER_ID_ANNOTATION, ETCD_MEMBER_ID_ANNOTATION } from '../../src/host/control-plane';
import {
  InProcessWorkloadServerHost,
  type WorkloadServer,
  type WorkloadServerHost,
} from '../../src/workload/server-host';
import { ChildProcessWorkloadServerHost } from '../../src/workload/child-process-host';
import { etcdClient, failure, forwardToEtcdPod, type EtcdForward } from '../support/etcd';

jest.setTimeout(60_000);

const host = (name: string): HostState => ({
  nodeName: name,
  providerID: `in-memory://c/${name}`,
  controlPlane: true,
  kubeletVersion: 'v1.31.0',
  files: {},
  spec: {},
  ready: true,
});

function clientOf(server: WorkloadServer): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromString(renderKubeconfig({ ...server, name: 'w' }));
  return new KubeClient(kc);
}

let ca: KeyPair;
let clientCert: KeyPair;
let strangerCert: KeyPair;
beforeAll(async () => {
  ca = await generateCA('etcd-ca');
  clientCert = await signCertificate(ca, { commonName: 'cluster-api.x-k8s.io', usage: 'client' });
  // Signed by another CA: etcd must refuse it.
  strangerCert = await signCertificate(await generateCA('someone-else'), { commonName: 'x', usage: 'client' });
});

/** A workload server with three control-plane hosts (cp-1 started the etcd cluster) and open etcd forwards. */
async function workload(servers: WorkloadServerHost) {
  const server = await servers.start('127.0.0.1');
  const client = clientOf(server);
  for (const name of ['cp-1', 'cp-2', 'cp-3']) await applyNode(client, host(name), new Date());
  const forwards: EtcdForward[] = [];
  const clients: Etcd3[] = [];
  const etcd = async (member: string, cert = clientCert, trusted = ca) => {
    const fwd = await forwardToEtcdPod(server, `etcd-${member}`);
    forwards.push(fwd);
    const c = etcdClient(fwd.endpoint, trusted, cert);
    clients.push(c);
    return c;
  };
  const close = async () => {
    clients.forEach((c) => c.close());
    await Promise.all(forwards.map((f) => f.close()));
    client.close();
    await servers.close();
  };
  return { server, client, etcd, forwards, close };
}

const idsByName = async (c: Etcd3) =>
  Object.fromEntries((await c.cluster.memberList({})).members.map((m) => [m.name, m.ID]));

describe('etcd members behind port-forward (in-process workload server)', () => {
  let w: Awaited<ReturnType<typeof workload>>;
  let ids: Record<string, string>;
  beforeAll(async () => {
    w = await workload(new InProcessWorkloadServerHost());
  });
  afterAll(async () => {
    await w?.close();
  });

  it('before the etcd CA is handed over, the forward fails with the reason; after, the member answers', async () => {
    const early = await w.etcd('cp-1');
    expect(await failure(early.cluster.memberList({}))).not.toBe('');
    await waitFor(() => w.forwards[0].errors.length > 0);
    expect(w.forwards[0].errors[0]).toContain("the cluster's etcd CA was not handed to its API server");

    await w.server.setEtcdCA(ca);
    const c1 = await w.etcd('cp-1');
    ids = await idsByName(c1);
    expect(Object.keys(ids)).toEqual(['cp-1', 'cp-2', 'cp-3']);
    for (const id of Object.values(ids)) expect(id).toMatch(/^[1-9]\d*$/);
  });

  it('every member lists the same members and answers with its own ID; the first one leads', async () => {
    for (const name of ['cp-1', 'cp-2', 'cp-3']) {
      const c = await w.etcd(name);
      const list = await c.cluster.memberList({});
      expect(list.members.map((m) => [m.name, m.ID, m.peerURLs.length, m.clientURLs.length])).toEqual(
        Object.entries(ids).map(([n, id]) => [n, id, 1, 1]),
      );
      const status = await c.maintenance.status({});
      expect(status.header.member_id).toBe(ids[name]);
      expect(status.header.cluster_id).toBe(list.header.cluster_id);
      expect(status.leader).toBe(ids['cp-1']);
      // upstream TestReconcileNormalEtcd "takes care of the etcd cluster annotations": same cluster, own member ID.
      const pod = await w.client.get({ apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: `etcd-${name}` });
      expect(pod.metadata.annotations).toMatchObject({
        [ETCD_CLUSTER_ID_ANNOTATION]: list.header.cluster_id,
        [ETCD_MEMBER_ID_ANNOTATION]: ids[name],
      });
    }
  });

  it('a client certificate not signed by the etcd CA is refused in the handshake, quickly', async () => {
    const started = Date.now();
    const stranger = await w.etcd('cp-1', strangerCert);
    expect(await failure(stranger.cluster.memberList({}))).toMatch(/UNAVAILABLE|No connection established/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // And a client that does not trust the etcd CA refuses the member.
    const untrusting = await w.etcd('cp-1', clientCert, strangerCert);
    expect(await failure(untrusting.maintenance.status({}))).not.toBe('');
  });

  it('alarms: activated through one member, seen by the others (list and Status errors), deactivated', async () => {
    const c1 = await w.etcd('cp-1');
    const c3 = await w.etcd('cp-3');
    await c1.maintenance.alarm({ action: 'Activate', memberID: ids['cp-2'], alarm: 'Nospace' });
    const alarms = await c3.maintenance.alarm({ action: 'Get', memberID: '0', alarm: 'None' });
    expect(alarms.alarms).toEqual([{ memberID: ids['cp-2'], alarm: 'Nospace' }]);
    expect((await c3.maintenance.status({})).errors).toEqual([`memberID:${ids['cp-2']} alarm:NOSPACE `]);
    await c3.maintenance.alarm({ action: 'Deactivate', memberID: ids['cp-2'], alarm: 'Nospace' });
    expect((await c1.maintenance.alarm({ action: 'Get', memberID: '0', alarm: 'None' })).alarms).toEqual([]);
  });

  it('MoveLeader: only the leader moves it; the target then leads for every member', async () => {
    const c2 = await w.etcd('cp-2');
    expect(await failure(c2.maintenance.moveLeader({ targetID: ids['cp-3'] }))).toContain('etcdserver: not leader');
    const c1 = await w.etcd('cp-1');
    expect(await failure(c1.maintenance.moveLeader({ targetID: '12345' }))).toContain(
      'etcdserver: bad leader transferee',
    );
    await c1.maintenance.moveLeader({ targetID: ids['cp-3'] });
    for (const c of [c1, c2]) expect((await c.maintenance.status({})).leader).toBe(ids['cp-3']);
  });

  it('MemberRemove: the member is gone from every list and answers only errors; an unknown member is not found', async () => {
    const c3 = await w.etcd('cp-3');
    expect(await failure(c3.cluster.memberRemove({ ID: '12345' }))).toContain('etcdserver: member not found');
    const left = await c3.cluster.memberRemove({ ID: ids['cp-2'] });
    expect(left.members.map((m) => m.name)).toEqual(['cp-1', 'cp-3']);
    expect(Object.keys(await idsByName(await w.etcd('cp-1')))).toEqual(['cp-1', 'cp-3']);
    const c2 = await w.etcd('cp-2');
    expect(await failure(c2.maintenance.status({}))).toContain('inspect called on etcd which has been removed');
  });

  it('a host that goes takes its etcd Pod; its member stays listed (down) until removed', async () => {
    await removeNode(w.client, 'cp-1');
    const c3 = await w.etcd('cp-3');
    expect(Object.keys(await idsByName(c3))).toEqual(['cp-1', 'cp-3']);
    // No Pod to forward to: the API server answers 404 before any upgrade.
    const gone = await w.etcd('cp-1');
    expect(await failure(gone.maintenance.status({}))).not.toBe('');
    await waitFor(() => w.forwards.at(-1)!.errors.length > 0);
    expect(w.forwards.at(-1)!.errors[0]).toMatch(/404|not found/i);
    // KCP's reconcileEtcdMembers removes it: a down member may go.
    await c3.cluster.memberRemove({ ID: ids['cp-1'] });
    expect(Object.keys(await idsByName(c3))).toEqual(['cp-3']);
  });
});

describe('etcd members behind port-forward (workload servers in a child process)', () => {
  it('the members answer from the child process, with the CA handed over IPC; a stranger certificate is refused', async () => {
    const w = await workload(new ChildProcessWorkloadServerHost());
    try {
      await w.server.setEtcdCA(ca);
      const c2 = await w.etcd('cp-2');
      const ids = await idsByName(c2);
      expect(Object.keys(ids)).toEqual(['cp-1', 'cp-2', 'cp-3']);
      expect((await c2.maintenance.status({})).leader).toBe(ids['cp-1']);
      const c1 = await w.etcd('cp-1');
      await c1.maintenance.moveLeader({ targetID: ids['cp-2'] });
      expect((await c2.maintenance.status({})).leader).toBe(ids['cp-2']);
      const stranger = await w.etcd('cp-2', strangerCert);
      expect(await failure(stranger.cluster.memberList({}))).not.toBe('');
    } finally {
      await w.close();
    }
  });
});

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
