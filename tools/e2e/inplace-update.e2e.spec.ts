// End to end, as upstream's test/e2e/cluster_in_place_update.go: a Cluster with 3 control-plane Machines (KCP) and
// worker Machines (a MachineDeployment) on the embedded manager with the reference in-place updater (the in-memory
// provider's, which changes the simulated hosts). Five successive changes of one file in the KubeadmConfigs: on the
// KCP (`spec.kubeadmConfigSpec.files`) and on the workers (a new KubeadmConfigTemplate with the file, referenced by the
// MachineDeployment: upstream changes both through a ClusterClass variable, which is what topology would do without
// one). After each: no Machine, InMemoryMachine or KubeadmConfig was replaced, every KubeadmConfig has the file, every
// host has it (as a user sees it: the Node's host files annotation in the workload cluster), every Machine is
// UpToDate, and so is the Cluster (ControlPlaneMachinesUpToDate, WorkerMachinesUpToDate).
import {
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION,
  CONTROLPLANE_API_VERSION,
  KubeadmConfigGVK,
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UP_TO_DATE_CONDITION,
  WORKER_MACHINES_UP_TO_DATE_CONDITION,
  type Cluster,
  type KubeadmConfig,
  type KubeadmConfigTemplate,
  type Machine,
} from '@capi/api';
import { kubeconfigSecretClientProvider } from '@capi/clustercache';
import type { Client } from '@capi/controller-runtime';
import { INMEMORY_API_VERSION, fileDigest, hostFilesOf } from '@capi/inmemory';
import { FAST_TIMINGS, startEmbeddedManager, type EmbeddedManager } from '../demo/embedded';
import { bootstrapTemplateObject, createDemoCluster, names, type DemoSpec } from '../demo/objects';
import { conditionOf, createNamespace, listMachines, untilNoProblems } from './support';

// Creation (~20 s) and five changes (~25 s each) on two shared cores.
jest.setTimeout(300_000);

const spec: DemoSpec = {
  namespace: 'in-place-update',
  cluster: 'ipu',
  controlPlaneReplicas: 3,
  workerReplicas: 2,
  version: 'v1.31.0',
  upgradeVersion: 'v1.31.0',
  image: 'img-1',
  newImage: 'img-1',
};
const want = spec.controlPlaneReplicas + spec.workerReplicas;
const FILE_PATH = '/tmp/test';
const CLUSTER_UP_TO_DATE_CONDITIONS = [
  CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION,
  WORKER_MACHINES_UP_TO_DATE_CONDITION,
];
const CONTENTS = [
  'first in-place update',
  'second in-place update',
  'third in-place update',
  'fourth in-place update',
  'five in-place update',
];

let manager: EmbeddedManager | undefined;
let workload: ReturnType<typeof kubeconfigSecretClientProvider> | undefined;

beforeAll(async () => {
  manager = await startEmbeddedManager({ provider: FAST_TIMINGS });
  workload = kubeconfigSecretClientProvider(manager.client);
});

afterAll(async () => {
  workload?.closeAll();
  await manager?.stop();
});

/** A Machine with the UIDs of what it is made of (upstream getMachineObjects, plus the InfraMachine). */
interface MachineObjects {
  machine: Machine;
  infraUid?: string;
  config?: KubeadmConfig;
}

async function machineObjects(client: Client): Promise<MachineObjects[]> {
  const out: MachineObjects[] = [];
  for (const machine of await listMachines(client, spec.namespace)) {
    const ns = spec.namespace;
    const infra = await client.tryGet({
      apiVersion: INMEMORY_API_VERSION,
      kind: 'InMemoryMachine',
      namespace: ns,
      name: machine.spec.infrastructureRef.name,
    });
    const configName = machine.spec.bootstrap.configRef?.name;
    const config = configName
      ? await client.tryGet<KubeadmConfig>({ ...KubeadmConfigGVK, namespace: ns, name: configName })
      : undefined;
    out.push({ machine, infraUid: infra?.metadata.uid, config });
  }
  return out;
}

const uids = (objs: MachineObjects[]) =>
  new Map(objs.map((o) => [o.machine.metadata.name!, [o.machine.metadata.uid, o.infraUid, o.config?.metadata.uid]]));

/** What is not yet as it should be after a change to `content` (undefined: before any change). */
async function problems(objs: MachineObjects[], content?: string): Promise<string[]> {
  const out = objs.length === want ? [] : [`${objs.length} Machines (want ${want})`];
  const nodes = await (await workload!({ namespace: spec.namespace, name: spec.cluster })).list('v1', 'Node');
  for (const { machine, config } of objs) {
    const name = machine.metadata.name!;
    if (conditionOf(machine, 'Ready')?.status !== 'True') out.push(`${name}: not Ready`);
    const upToDate = conditionOf(machine, UP_TO_DATE_CONDITION);
    if (upToDate?.status !== 'True') out.push(`${name}: UpToDate ${upToDate?.status} ${upToDate?.message ?? ''}`);
    for (const marker of [UPDATE_IN_PROGRESS_ANNOTATION, PENDING_HOOKS_ANNOTATION])
      if (marker in (machine.metadata.annotations ?? {})) out.push(`${name}: ${marker}`);
    if (content === undefined) continue;
    const files = config?.spec.files ?? [];
    if (!files.some((f) => f.path === FILE_PATH && f.content === content))
      out.push(`${name}: KubeadmConfig files ${JSON.stringify(files)}`);
    const node = nodes.items.find((n) => n.metadata.name === machine.status?.nodeRef?.name);
    const onHost = node ? hostFilesOf(node)[FILE_PATH] : undefined;
    if (onHost !== fileDigest(content)) out.push(`${name}: host file ${FILE_PATH} ${onHost ?? 'missing'}`);
  }
  return out;
}

/** Machines, InMemoryMachines or KubeadmConfigs that are not the ones of `before` (a rollout replaced them). */
function replaced(before: MachineObjects[], now: MachineObjects[]): string[] {
  const was = uids(before);
  const out: string[] = [];
  for (const [name, ids] of uids(now))
    if (JSON.stringify(was.get(name)) !== JSON.stringify(ids)) out.push(`${name}: new (UIDs ${ids.join(', ')})`);
  return out;
}

async function clusterProblems(client: Client): Promise<string[]> {
  const cluster = await client.get<Cluster>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    namespace: spec.namespace,
    name: spec.cluster,
  });
  const out: string[] = [];
  for (const type of CLUSTER_UP_TO_DATE_CONDITIONS) {
    const c = conditionOf(cluster, type);
    if (c?.status !== 'True') out.push(`Cluster ${type} ${c?.status} ${c?.message ?? ''}`);
  }
  return out;
}

/** The workers' bootstrap template for the i-th change (templates are immutable by convention: a change is a new one). */
function workerTemplate(i: number, content: string): KubeadmConfigTemplate {
  const t = bootstrapTemplateObject(spec);
  t.metadata.name = `${names(spec).bootstrapTemplate}-files-${i}`;
  t.spec.template.spec = { ...t.spec.template.spec, files: [{ path: FILE_PATH, content }] };
  return t;
}

describe('in-place updates of a file in the KubeadmConfigs (upstream cluster_in_place_update.go)', () => {
  let before: MachineObjects[];

  it('creates the Cluster: 3 control-plane and 2 worker Machines, all Ready and UpToDate', async () => {
    const client = manager!.client;
    await createNamespace(client, spec.namespace);
    await createDemoCluster((obj) => client.create(obj), spec);
    before = await untilNoProblems(
      async () => {
        const objs = await machineObjects(client);
        return { problems: await problems(objs), value: objs };
      },
      'the Cluster’s Machines Ready and UpToDate',
      120_000,
    );
  });

  CONTENTS.forEach((content, i) => {
    it(`[${i}] "${content}": updated in place on every Machine, KubeadmConfig and host`, async () => {
      const client = manager!.client;
      const n = names(spec);
      const file = { path: FILE_PATH, content };
      await client.patch(
        {
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: 'KubeadmControlPlane',
          namespace: spec.namespace,
          name: n.controlPlane,
        },
        'merge',
        { spec: { kubeadmConfigSpec: { files: [file] } } },
      );
      const template = await client.create(workerTemplate(i, content));
      await client.patch(
        {
          apiVersion: CLUSTER_API_VERSION,
          kind: 'MachineDeployment',
          namespace: spec.namespace,
          name: n.machineDeployment,
        },
        'merge',
        {
          spec: {
            template: {
              spec: {
                bootstrap: {
                  configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name: template.metadata.name },
                },
              },
            },
          },
        },
      );
      const after = await untilNoProblems(
        async () => {
          const objs = await machineObjects(client);
          const all = [
            ...replaced(before, objs),
            ...(await problems(objs, content)),
            ...(await clusterProblems(client)),
          ];
          return { problems: all, value: objs };
        },
        `change ${i} ("${content}") done in place`,
        90_000,
      );
      // Same Machines, InfraMachines and KubeadmConfigs (names and UIDs): nothing was replaced.
      expect(uids(after)).toEqual(uids(before));
      before = after;
    });
  });
});
