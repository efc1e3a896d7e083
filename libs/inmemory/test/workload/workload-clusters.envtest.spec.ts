// WorkloadClusters against a real management API server (envtest) and real workload servers.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Client, KubeClient } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { WorkloadClusters, type WorkloadServerHost } from '@capi/inmemory';
import { ChildProcessWorkloadServerHost } from '../../src/workload/child-process-host';
import { kubeconfigSecret, kubeconfigSecretUpToDate } from '../../src/workload/workload-clusters';

jest.setTimeout(30_000);

let env: Envtest;
let management: KubeClient;
const cluster = (name: string) => ({ namespace: 'default', name, uid: `uid-${name}` });

beforeAll(async () => {
  env = await startEnvtest({ installProjectCrds: false });
  management = clientFor(env);
});
afterAll(async () => {
  management?.close();
  await env?.stop();
});

const secretOf = (c: Client, name: string) =>
  c.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: `${name}-kubeconfig` });

/** The kubeconfig in a cluster's `<name>-kubeconfig` Secret. */
async function publishedKubeconfig(name: string): Promise<string> {
  const secret = await secretOf(management, name);
  return Buffer.from((secret!.data as Record<string, string>).value, 'base64').toString('utf8');
}

/** The server a kubeconfig points at answers (reads the default Namespace). */
async function expectServes(kubeconfig: string): Promise<void> {
  const c = clientFor(kubeconfig);
  try {
    expect((await c.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' })).metadata.name).toBe('default');
  } finally {
    c.close();
  }
}

describe('kubeconfigSecret', () => {
  it('is the cluster.x-k8s.io/secret `<cluster>-kubeconfig` with the kubeconfig under value', () => {
    const s = kubeconfigSecret(cluster('a'), 'KC');
    expect(s.metadata).toMatchObject({
      name: 'a-kubeconfig',
      namespace: 'default',
      labels: { 'cluster.x-k8s.io/cluster-name': 'a' },
    });
    expect(s.metadata.ownerReferences).toEqual([
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'a', uid: 'uid-a', blockOwnerDeletion: true },
    ]);
    expect(s.type).toBe('cluster.x-k8s.io/secret');
    expect(kubeconfigSecretUpToDate(s, 'KC')).toBe(true);
    expect(kubeconfigSecretUpToDate(s, 'other')).toBe(false);
    expect(kubeconfigSecretUpToDate(undefined, 'KC')).toBe(false);
  });
});

describe('WorkloadClusters', () => {
  it('concurrent ensure() calls share one server; its Secret reaches it', async () => {
    const workloads = new WorkloadClusters(management);
    try {
      const [a, b] = await Promise.all([workloads.ensure(cluster('w1')), workloads.ensure(cluster('w1'))]);
      expect(a).toBe(b);
      expect(workloads.list()).toHaveLength(1);
      await expectServes(await publishedKubeconfig('w1'));
    } finally {
      await workloads.stopAll();
    }
    expect(workloads.list()).toEqual([]);
  });

  it('reuses a preferred free port and falls back to a random one when it is taken', async () => {
    const workloads = new WorkloadClusters(management);
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      const first = await workloads.ensure(cluster('w2'));
      const port = first.port;
      await workloads.stop(cluster('w2'));
      expect(workloads.get(cluster('w2'))).toBeUndefined();
      const again = await workloads.ensure(cluster('w2'), port);
      expect(again.port).toBe(port);
      const other = await workloads.ensure(cluster('w3'), taken);
      expect(other.port).not.toBe(taken);
    } finally {
      await workloads.stopAll();
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('a failed start (no management API) is reported and retried on the next ensure()', async () => {
    const broken = clientFor(env.kubeconfig.replace(/server: .*/, 'server: https://127.0.0.1:1'));
    const workloads = new WorkloadClusters(broken);
    try {
      await expect(workloads.ensure(cluster('w4'))).rejects.toThrow();
      expect(workloads.list()).toEqual([]);
    } finally {
      broken.close();
      await workloads.stopAll();
    }
  });

  it('reports a server lost while its kubeconfig Secret was being written (its own lost listeners had already run)', async () => {
    // A host whose server's process is gone by the time WorkloadClusters registers with it.
    const host: WorkloadServerHost = {
      start: async () => ({
        url: 'https://127.0.0.1:1',
        token: 't',
        port: 1,
        alive: false,
        onLost: () => undefined,
        countRequests: async () => ({}) as never,
        resetRequests: async () => undefined,
        storageUsage: async () => ({}) as never,
        setEtcdCA: async () => undefined,
        stop: async () => undefined,
      }),
      pid: () => undefined,
      close: async () => undefined,
    };
    const workloads = new WorkloadClusters(management, { servers: host });
    const lost: { namespace: string; name: string }[] = [];
    workloads.onLost((key) => lost.push(key));
    try {
      await workloads.ensure(cluster('w5'));
      expect(lost).toEqual([{ namespace: 'default', name: 'w5' }]);
      expect(workloads.get(cluster('w5'))).toBeUndefined();
    } finally {
      await workloads.stopAll();
    }
  });

  it('on a child-process host: starts a cluster again, with a new kubeconfig Secret, once the child died', async () => {
    const workloads = new WorkloadClusters(management, { servers: new ChildProcessWorkloadServerHost() });
    const lost: { namespace: string; name: string }[] = [];
    workloads.onLost((key) => lost.push(key));
    try {
      const first = await workloads.ensure(cluster('c1'));
      await workloads.ensure(cluster('c2'));
      await workloads.stop(cluster('c2')); // stopped on purpose: not lost
      expect(workloads.serversPid()).not.toBe(process.pid);
      process.kill(workloads.serversPid()!, 'SIGKILL');
      await eventually(() => workloads.list().length === 0, { timeoutMs: 10_000, message: 'dead cluster not listed' });
      expect(workloads.get(cluster('c1'))).toBeUndefined();
      expect(lost).toEqual([{ namespace: 'default', name: 'c1' }]);
      const second = await workloads.ensure(cluster('c1'), first.port);
      expect(second).not.toBe(first);
      expect(second.token).not.toBe(first.token);
      const kubeconfig = await publishedKubeconfig('c1');
      expect(kubeconfig).toBe(second.kubeconfig);
      await expectServes(kubeconfig);
    } finally {
      await workloads.stopAll();
    }
    expect(workloads.serversPid()).toBeUndefined();
    expect(lost).toHaveLength(1); // stopAll closed the second child on purpose
  }, 60_000);
});
