// `kubectl scale` through the /scale subresource on envtest: the MachineDeployment and MachineSet controllers react
// to the new spec.replicas by creating (and deleting) Machines.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_API_VERSION, type MachineDeployment, type MachineSet } from '@capi/api';
import {
  createDeployment,
  eventually,
  INFRA_API_VERSION,
  INFRA_GROUP,
  machinesOf,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(90_000);

const run = promisify(execFile);

describe('kubectl scale', () => {
  let h: Harness;
  let cacheDir: string;
  const kubectl = (...args: string[]) =>
    run('kubectl', ['--kubeconfig', h.env.kubeconfigPath, ...args], {
      env: { ...process.env, KUBECACHEDIR: cacheDir },
    });
  const live = async (ns: string) => (await machinesOf(h.client, ns)).filter((m) => !m.metadata.deletionTimestamp);

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    h = await startHarness({ inPlaceUpdates: false });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('machinedeployment: scaling up creates Machines, scaling down deletes them', async () => {
    const ns = 'scale-md';
    await createDeployment(h.client, ns, { replicas: 1, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    await eventually(async () => (await live(ns)).length === 1, '1 Machine');
    const out = await kubectl('scale', 'machinedeployment', 'md', '-n', ns, '--replicas=3');
    expect(out.stdout).toContain('machinedeployment.cluster.x-k8s.io/md scaled');
    await eventually(
      async () => (await live(ns)).length === 3 && (await machinesOf(h.client, ns)).length === 3,
      '3 Machines',
    );
    const ms = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
    expect(ms.map((s) => s.spec.replicas)).toEqual([3]);
    await kubectl('scale', 'machinedeployment', 'md', '-n', ns, '--current-replicas=3', '--replicas=2');
    await eventually(async () => (await machinesOf(h.client, ns)).length === 2, '2 Machines');
    const md = await h.client.get<MachineDeployment>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      namespace: ns,
      name: 'md',
    });
    expect(md.spec.replicas).toBe(2);
    const scale = JSON.parse(
      (await kubectl('get', '--raw', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments/md/scale`))
        .stdout,
    );
    await eventually(async () => {
      const s = JSON.parse(
        (await kubectl('get', '--raw', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments/md/scale`))
          .stdout,
      );
      return s.status.replicas === 2 && s;
    }, 'Scale status.replicas 2');
    expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 } });
  });

  it('machineset (not owned by a MachineDeployment): scaling up creates Machines', async () => {
    const ns = 'scale-ms';
    await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await h.client.create({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachineTemplate',
      metadata: { name: 'tmpl', namespace: ns },
      spec: { template: { spec: { image: 'v1' } } },
    });
    await h.client.create<MachineSet>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineSet',
      metadata: { name: 'pool', namespace: ns },
      spec: {
        clusterName: 'c1',
        replicas: 1,
        selector: { matchLabels: { pool: 'pool' } },
        template: {
          metadata: { labels: { pool: 'pool' } },
          spec: {
            clusterName: 'c1',
            version: 'v1.30.0',
            bootstrap: { dataSecretName: 'data' },
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
          },
        },
      },
    });
    await eventually(async () => (await machinesOf(h.client, ns)).length === 1, '1 Machine');
    await kubectl('scale', 'machineset', 'pool', '-n', ns, '--replicas=4');
    await eventually(async () => (await machinesOf(h.client, ns)).length === 4, '4 Machines');
  });
});
