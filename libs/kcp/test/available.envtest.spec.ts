// The KCP Available condition on envtest with the Machine controller and the in-memory provider (its workload clusters
// run mirror Pods and answer etcd's API): a healthy control plane becomes Available and `kubectl get kcp` shows it; losing
// etcd quorum makes it NotAvailable with upstream's message.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getCondition, type Machine } from '@capi/api';
import { eventually } from '@capi/envtest';
import {
  createControlPlane,
  getKcp,
  KCP_POLL,
  listMachines,
  startKcpHarness,
  CLUSTER,
  NS,
  type KcpHarness,
} from './support/harness';
import { setEtcdAlarm } from './support/etcd-alarms';

jest.setTimeout(120_000);

const KCP_REF = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  namespace: NS,
  name: 'cp',
};
const POLL = { ...KCP_POLL, timeoutMs: 80_000 };

describe('KCP Available', () => {
  let h: KcpHarness;
  let cacheDir: string;
  const kubectl = async (...args: string[]) =>
    (
      await promisify(execFile)('kubectl', ['--kubeconfig', h.env.kubeconfigPath, ...args], {
        env: { ...process.env, KUBECACHEDIR: cacheDir },
      })
    ).stdout;

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'kcp-available-kubectl-'));
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 3 });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('a healthy control plane is Available=True, shown in the AVAILABLE column', async () => {
    const kcp = await eventually(
      async () => {
        const k = await getKcp(h.client);
        const machines = await listMachines(h.client);
        const allNodes = machines.length === 3 && machines.every((m) => m.status?.nodeRef);
        return allNodes &&
          k.status?.readyReplicas === 3 &&
          getCondition(k, 'Available')?.status === 'True' &&
          getCondition(k, 'EtcdClusterHealthy')?.status === 'True'
          ? k
          : undefined;
      },
      { ...POLL, message: 'KCP Available True with 3 Machines with Nodes' },
    );
    expect(getCondition(kcp, 'Available')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(getCondition(kcp, 'Available')?.message).toBeUndefined();
    const out = await kubectl('get', 'kcp', '-n', NS);
    expect(out).toMatch(
      // upstream's columns: the Available condition, then the replica counters (AVAILABLE again), INITIALIZED.
      /^NAME\s+CLUSTER\s+AVAILABLE\s+DESIRED\s+CURRENT\s+READY\s+AVAILABLE\s+UP-TO-DATE\s+INITIALIZED\s+AGE\s+VERSION\s*\ncp\s+c1\s+True\s+3\s+3\s+3\s+3\s+3\s+true\s+\S+\s+v1\.30\.0\s*$/,
    );
  });

  it('etcd alarms on two of three members: NotAvailable, no etcd quorum', async () => {
    const machines: Machine[] = await listMachines(h.client);
    const [, b, c] = machines.map((m) => m.status!.nodeRef!.name).sort();
    await setEtcdAlarm(h, { namespace: NS, name: CLUSTER }, b, 'Nospace');
    await setEtcdAlarm(h, { namespace: NS, name: CLUSTER }, c, 'Corrupt');
    // Nothing watches the workload cluster's objects: poke the KCP once so it reads the new state.
    await h.client.patch(KCP_REF, 'merge', { metadata: { annotations: { poke: '1' } } });
    const kcp = await eventually(
      async () => {
        const k = await getKcp(h.client);
        return getCondition(k, 'Available')?.status === 'False' ? k : undefined;
      },
      { ...POLL, message: 'KCP Available False' },
    );
    expect(getCondition(kcp, 'Available')).toMatchObject({
      status: 'False',
      reason: 'NotAvailable',
      message: '* 1 of 3 etcd members is healthy, at least 2 healthy member required for etcd quorum',
    });
    expect(await kubectl('get', 'kcp', '-n', NS)).toMatch(/\ncp\s+c1\s+False\s+3\s+3\s/);
  });
});
