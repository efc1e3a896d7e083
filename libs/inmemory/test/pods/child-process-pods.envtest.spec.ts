// The Pod simulation runs in the process serving the workload API server: with `workloadServers: 'child-process'` it
// runs in the child beside its server (its options cross the IPC channel).
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import { createCluster, createMachine, NS, startProviderEnv, type ProviderEnv } from '../support/fixtures';

jest.setTimeout(60_000);

let p: ProviderEnv;
afterAll(async () => {
  await p?.stop();
});

it('runs the sample workload in a child-process workload cluster, with the replica count asked for', async () => {
  p = await startProviderEnv({
    provisioningDelayMs: 0,
    workloadServers: 'child-process',
    workloadPods: { sampleWorkload: { replicas: 2 } },
  });
  await createCluster(p.client, 'child');
  await createMachine(p.client, 'child', 'w-1', { dataSecretName: 'w-1-data' });
  const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
  const workload = await eventually(() => clients({ namespace: NS, name: 'child' }), 'workload client');
  const pods = await eventually(async () => {
    const items = (await workload.list<KubeObject>('v1', 'Pod', { namespace: 'default', labelSelector: 'app=sample' }))
      .items;
    return items.length === 2 && items.every((pod) => (pod.status as { phase?: string }).phase === 'Running')
      ? items
      : undefined;
  }, 'two running sample Pods');
  expect(pods.map((pod) => (pod.spec as { nodeName: string }).nodeName)).toEqual(['w-1', 'w-1']);
  const pdb = await workload.get<KubeObject>({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    namespace: 'default',
    name: 'sample',
  });
  expect(pdb.spec).toMatchObject({ minAvailable: 1 });
});
