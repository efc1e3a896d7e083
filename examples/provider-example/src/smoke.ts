// End-to-end check of the example provider against a running manager (`node dist/main.js`, embedded API server):
// creates a Cluster whose MachineDeployment runs one ExampleMachine, bumps the Kubernetes version, and checks the
// Machine was updated in place (same UID) by the in-process updater (no ExtensionConfig exists; the Node's kubelet
// version, which only ExampleUpdater changes, follows).
//   node dist/smoke.js <kubeconfig> [timeout seconds, default 120]
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import {
  BOOTSTRAP_API_VERSION,
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  INFRASTRUCTURE_GROUP,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  type Cluster,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { KubeClient } from '@capi/controller-runtime';
import { EXAMPLE_API_VERSION } from './api';

const ns = 'default';
const cluster = 'example';
const md = `${cluster}-md-0`;
const [kubeconfigPath, timeoutArg] = process.argv.slice(2);
const deadline = Date.now() + Number(timeoutArg ?? 120) * 1000;

async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

async function main(): Promise<void> {
  if (!kubeconfigPath) throw new Error('usage: smoke.js <kubeconfig> [timeout seconds]');
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(kubeconfigPath, 'utf8'));
  const client = new KubeClient(kc);
  try {
    const labels = { [CLUSTER_NAME_LABEL]: cluster };
    const c = await client.create<Cluster>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Cluster',
      metadata: { name: cluster, namespace: ns, labels },
      spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: cluster } },
    } as Cluster);
    const owner = [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: cluster, uid: c.metadata.uid! }];
    await client.create({
      apiVersion: `${INFRASTRUCTURE_GROUP}/v1alpha1`,
      kind: 'InMemoryCluster',
      metadata: { name: cluster, namespace: ns, labels, ownerReferences: owner },
      spec: {},
    });
    // No control plane provider in this example: mark the control plane initialized, as one would.
    await client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', namespace: ns, name: cluster },
      'merge',
      { status: { initialization: { controlPlaneInitialized: true } } },
      { subresource: 'status' },
    );
    await client.create({
      apiVersion: EXAMPLE_API_VERSION,
      kind: 'ExampleMachineTemplate',
      metadata: { name: `${md}-1`, namespace: ns, labels },
      spec: { template: { spec: { profile: 'small' } } },
    });
    await client.create({
      apiVersion: BOOTSTRAP_API_VERSION,
      kind: 'KubeadmConfigTemplate',
      metadata: { name: md, namespace: ns, labels },
      spec: { template: { spec: { joinConfiguration: {} } } },
    });
    const selector = { ...labels, [MACHINE_DEPLOYMENT_NAME_LABEL]: md };
    await client.create({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      metadata: { name: md, namespace: ns, labels, ownerReferences: owner },
      spec: {
        clusterName: cluster,
        replicas: 1,
        selector: { matchLabels: selector },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } },
        template: {
          metadata: { labels: selector },
          spec: {
            clusterName: cluster,
            version: 'v1.31.0',
            bootstrap: { configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name: md } },
            infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'ExampleMachineTemplate', name: `${md}-1` },
          },
        },
      },
    } as KubeObject);

    const machines = async () => (await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns })).items;
    const running = await eventually('the Machine to be Running with its Node', async () => {
      const [m] = await machines();
      return m?.status?.phase === 'Running' && m.status.nodeInfo?.kubeletVersion === 'v1.31.0' ? m : undefined;
    });
    process.stdout.write(`machine ${running.metadata.name} running (uid ${running.metadata.uid}, kubelet v1.31.0)\n`);

    await client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: ns, name: md },
      'merge',
      { spec: { template: { spec: { version: 'v1.31.1' } } } },
    );
    const updated = await eventually('the Machine to be updated in place to v1.31.1', async () => {
      const all = await machines();
      const m = all.find((x) => x.metadata.uid === running.metadata.uid);
      const done = m && m.spec.version === 'v1.31.1' && m.status?.nodeInfo?.kubeletVersion === 'v1.31.1';
      const inProgress = Object.keys(m?.metadata.annotations ?? {}).some((a) => a.includes('update-in-progress'));
      return done && !inProgress ? { m, all } : undefined;
    });
    const extensionConfigs = (await client.list('runtime.cluster.x-k8s.io/v1beta2', 'ExtensionConfig')).items;
    const result = {
      inPlace: updated.all.length === 1 && updated.m.metadata.uid === running.metadata.uid,
      machines: updated.all.map((m) => ({
        name: m.metadata.name,
        uid: m.metadata.uid,
        version: m.spec.version,
        kubelet: m.status?.nodeInfo?.kubeletVersion,
      })),
      extensionConfigs: extensionConfigs.length,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (!result.inPlace || result.extensionConfigs !== 0)
      throw new Error('the Machine was not updated in place by the in-process updater');
    process.stdout.write('in-place update through the in-process updater: ok\n');
  } finally {
    client.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`smoke: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
