// WorkloadClusters against a real management API server (envtest) and real workload servers.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Client, KubeClient } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { kubeconfigSecret, kubeconfigSecretUpToDate, WorkloadClusters } from './workload-clusters';

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

const secretOf = (c: Client, name: string) => c.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: `${name}-kubeconfig` });

describe('kubeconfigSecret', () => {
  it('is the cluster.x-k8s.io/secret `<cluster>-kubeconfig` with the kubeconfig under value', () => {
    const s = kubeconfigSecret(cluster('a'), 'KC');
    expect(s.metadata).toMatchObject({ name: 'a-kubeconfig', namespace: 'default', labels: { 'cluster.x-k8s.io/cluster-name': 'a' } });
    expect(s.metadata.ownerReferences).toEqual([{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'a', uid: 'uid-a', blockOwnerDeletion: true }]);
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
      const secret = await secretOf(management, 'w1');
      const c = clientFor(Buffer.from((secret!.data as Record<string, string>).value, 'base64').toString('utf8'));
      try {
        expect((await c.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' })).metadata.name).toBe('default');
      } finally {
        c.close();
      }
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
});
