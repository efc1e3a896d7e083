// The provider with its workload servers in a child process that dies: the lost cluster comes back without any
// change in the management cluster (new server, new kubeconfig Secret, Nodes registered again).
import type { KubeObject } from '@capi/apimachinery';
import { MANAGER, type Manager } from '@capi/controller-runtime';
import { clientFor, eventually, settle } from '@capi/envtest';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import {
  INMEMORY_CLUSTER_CONTROLLER,
  INMEMORY_MACHINE_CONTROLLER,
  kubeconfigSecretName,
} from '../../src/api/constants';
import { NS, createCluster, createMachine, startProviderEnv, type ProviderEnv } from '../support/fixtures';

jest.setTimeout(60_000);

let p: ProviderEnv;
beforeAll(async () => {
  p = await startProviderEnv({ provisioningDelayMs: 0, workloadServers: 'child-process' });
});
afterAll(async () => {
  await p?.stop();
});

/** The kubeconfig published in the cluster's Secret. */
async function publishedKubeconfig(cluster: string): Promise<string | undefined> {
  const secret = await p.client.tryGet({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: NS,
    name: kubeconfigSecretName(cluster),
  });
  const value = (secret?.data as Record<string, string> | undefined)?.value;
  return value && Buffer.from(value, 'base64').toString('utf8');
}

/** The Node's name as the published kubeconfig's server has it, undefined while it cannot say. */
async function nodeThroughSecret(
  cluster: string,
  node: string,
): Promise<{ kubeconfig: string; node?: KubeObject } | undefined> {
  const kubeconfig = await publishedKubeconfig(cluster);
  if (!kubeconfig) return undefined;
  const c = clientFor(kubeconfig);
  try {
    return { kubeconfig, node: await c.tryGet({ apiVersion: 'v1', kind: 'Node', name: node }) };
  } catch {
    return undefined; // the server it points at is gone
  } finally {
    c.close();
  }
}

describe('a workload cluster whose servers process died', () => {
  it('is started again, its kubeconfig Secret rewritten and its Nodes registered again, with nothing else changed', async () => {
    await createCluster(p.client, 'lost');
    const { machine } = await createMachine(p.client, 'lost', 'lost-m1', { dataSecretName: 'lost-m1-bootstrap' });
    const before = await eventually(async () => {
      const seen = await nodeThroughSecret('lost', machine.metadata.name!);
      return seen?.node ? seen : undefined;
    }, 'Node registered');
    // Nothing left to do: from here only the loss itself can bring the provider back to this cluster.
    await settle(p.app.get<Manager>(MANAGER), [INMEMORY_CLUSTER_CONTROLLER, INMEMORY_MACHINE_CONTROLLER], {
      quietMs: 500,
    });

    const workloads = p.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS);
    const pid = workloads.serversPid()!;
    expect(pid).not.toBe(process.pid);
    process.kill(pid, 'SIGKILL');

    const after = await eventually(
      async () => {
        const seen = await nodeThroughSecret('lost', machine.metadata.name!);
        return seen?.node && seen.kubeconfig !== before.kubeconfig ? seen : undefined;
      },
      { timeoutMs: 20_000, message: 'Node registered in the new server, reached through the rewritten Secret' },
    );
    expect(after.node!.spec).toEqual(before.node!.spec);
    expect(workloads.serversPid()).not.toBe(pid);
  });
});
