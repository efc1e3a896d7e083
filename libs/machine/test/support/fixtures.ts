// Objects for Machine controller tests: a Cluster, a KubeadmConfig, a TestMachine, a Machine, a Node, built to be ready.
import {
  MACHINE_CONTROL_PLANE_LABEL,
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  type Condition,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import { eventually, TEST_INFRA_API_VERSION } from '@capi/envtest';

export const MACHINE_API = 'cluster.x-k8s.io/v1beta2';
export const BOOTSTRAP_API = 'bootstrap.cluster.x-k8s.io/v1beta2';

export const ref = (apiVersion: string, kind: string, namespace: string, name: string) => ({
  apiVersion,
  kind,
  namespace,
  name,
});

export async function createNamespace(c: KubeClient, ns: string, labels?: Record<string, string>): Promise<void> {
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, ...(labels ? { labels } : {}) } });
}

/** A Cluster whose infrastructure is provisioned and control plane initialized. */
export async function createReadyCluster(c: KubeClient, ns: string, name = 'c1'): Promise<KubeObject> {
  const created = await c.create<KubeObject>({
    apiVersion: MACHINE_API,
    kind: 'Cluster',
    metadata: { name, namespace: ns },
    spec: {},
  });
  return c.updateStatus<KubeObject>({
    ...created,
    status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } },
  });
}

export interface MachineSet {
  machine: string;
  infra: string;
  bootstrap?: string;
}

export interface CreateOptions {
  name: string;
  cluster?: string;
  withBootstrapConfig?: boolean;
  machineAnnotations?: Record<string, string>;
  machineLabels?: Record<string, string>;
  minReadySeconds?: number;
}

/** Machine + TestMachine (+ KubeadmConfig) with the refs wired; nothing provisioned yet. */
export async function createMachineObjects(c: KubeClient, ns: string, o: CreateOptions): Promise<MachineSet> {
  const cluster = o.cluster ?? 'c1';
  const withBootstrap = o.withBootstrapConfig !== false;
  await c.create({
    apiVersion: TEST_INFRA_API_VERSION,
    kind: 'TestMachine',
    metadata: { name: `${o.name}-infra`, namespace: ns },
    spec: { image: 'v1' },
  });
  if (withBootstrap) {
    await c.create({
      apiVersion: BOOTSTRAP_API,
      kind: 'KubeadmConfig',
      metadata: { name: `${o.name}-boot`, namespace: ns },
      spec: {},
    });
  }
  await c.create({
    apiVersion: MACHINE_API,
    kind: 'Machine',
    metadata: {
      name: o.name,
      namespace: ns,
      ...(o.machineAnnotations ? { annotations: o.machineAnnotations } : {}),
      ...(o.machineLabels ? { labels: o.machineLabels } : {}),
    },
    spec: {
      clusterName: cluster,
      version: 'v1.31.0',
      bootstrap: withBootstrap
        ? { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: `${o.name}-boot` } }
        : { dataSecretName: `${o.name}-data` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: `${o.name}-infra` },
      ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
    },
  });
  return { machine: o.name, infra: `${o.name}-infra`, bootstrap: withBootstrap ? `${o.name}-boot` : undefined };
}

export async function provisionBootstrap(c: KubeClient, ns: string, name: string): Promise<void> {
  // Merge patches, not updates: the Machine controller adopts these objects meanwhile (an update would conflict).
  await c.patch(
    ref(BOOTSTRAP_API, 'KubeadmConfig', ns, name),
    'merge',
    { status: { initialization: { dataSecretCreated: true }, dataSecretName: `${name}-secret` } },
    { subresource: 'status' },
  );
}

export async function provisionInfra(c: KubeClient, ns: string, name: string, providerID: string): Promise<void> {
  const r = ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, name);
  await c.patch(r, 'merge', { spec: { providerID } });
  await c.patch(
    r,
    'merge',
    { status: { initialization: { provisioned: true }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } },
    { subresource: 'status' },
  );
}

export async function createNode(c: KubeClient, name: string, providerID: string, ready = true): Promise<void> {
  const node = await c.create<KubeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { providerID } });
  await c.updateStatus({
    ...node,
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: 'KubeletReady',
          message: ready ? 'ok' : 'kubelet stopped',
        },
        { type: 'MemoryPressure', status: 'False', reason: 'Ok' },
        { type: 'DiskPressure', status: 'False', reason: 'Ok' },
        { type: 'PIDPressure', status: 'False', reason: 'Ok' },
      ],
    },
  });
}

/** Sets or removes annotations with a merge patch (null removes). */
export async function annotate(
  c: KubeClient,
  r: ReturnType<typeof ref>,
  annotations: Record<string, string | null>,
): Promise<KubeObject> {
  return c.patch<KubeObject>(r, 'merge', { metadata: { annotations } });
}

/**
 * A Machine with the control-plane label in the Cluster (not provisioned): while one is active, deleting another
 * Machine deletes its Node (upstream isDeleteNodeAllowed keeps the Node when no control-plane Machine remains).
 */
export async function createControlPlaneMachine(
  c: KubeClient,
  ns: string,
  name: string,
  cluster = 'c1',
): Promise<void> {
  await createMachineObjects(c, ns, { name, cluster, machineLabels: { [MACHINE_CONTROL_PLANE_LABEL]: '' } });
  // Reconciled once (finalizer): the controller's cache holds it.
  await eventually(
    async () => (await c.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, name))).metadata.finalizers?.length,
    `${ns}/${name} reconciled`,
  );
}

export const MARKERS_ON = { [UPDATE_IN_PROGRESS_ANNOTATION]: '' };
export const PENDING_UPDATE_MACHINE = { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' };

export const conditionOf = (o: KubeObject | undefined, type: string): Condition | undefined =>
  ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

/** A provisioned Machine with its Node (so Running with a nodeRef), or without a Node (`node: false`, no nodeRef). */
export async function createRunningMachine(
  c: KubeClient,
  ns: string,
  name: string,
  opts: { node?: boolean } = {},
): Promise<void> {
  const objs = await createMachineObjects(c, ns, { name });
  await provisionBootstrap(c, ns, objs.bootstrap!);
  if (opts.node !== false) await createNode(c, `node-${name}`, `test://${name}`);
  await provisionInfra(c, ns, objs.infra, `test://${name}`);
  await eventually(async () => {
    const m = await c.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, name));
    const status = m.status as
      { initialization?: { infrastructureProvisioned?: boolean }; nodeRef?: unknown } | undefined;
    return status?.initialization?.infrastructureProvisioned && (opts.node === false || status.nodeRef);
  }, `${ns}/${name} provisioned`);
}

/**
 * The owner's trigger: update-in-progress on Machine, infra, bootstrap, then pending-hooks on the Machine (upstream
 * controlplane/kubeadm/reconcilers/kubeadmcontrolplane/inplace_trigger.go).
 */
export async function triggerInPlaceUpdate(
  c: KubeClient,
  ns: string,
  name: string,
  parts: { infra?: boolean; bootstrap?: boolean; pending?: boolean } = {},
): Promise<void> {
  await annotate(c, ref(MACHINE_API, 'Machine', ns, name), MARKERS_ON);
  if (parts.infra !== false)
    await annotate(c, ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, `${name}-infra`), MARKERS_ON);
  if (parts.bootstrap !== false) await annotate(c, ref(BOOTSTRAP_API, 'KubeadmConfig', ns, `${name}-boot`), MARKERS_ON);
  if (parts.pending !== false) await annotate(c, ref(MACHINE_API, 'Machine', ns, name), PENDING_UPDATE_MACHINE);
}

/**
 * Waits until Machine `name` has completed an in-place update: the markers the trigger set are gone (the controller
 * removes them last) and Updating is NotUpdating. The condition alone is not enough: it reads NotUpdating before the
 * trigger too, until the first reconcile after it writes status.
 */
export function inPlaceUpdateCompleted(c: KubeClient, ns: string, name: string): Promise<KubeObject> {
  return eventually(async () => {
    const m = await c.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, name));
    const annotations = m.metadata.annotations ?? {};
    const done =
      !(UPDATE_IN_PROGRESS_ANNOTATION in annotations) &&
      !(PENDING_HOOKS_ANNOTATION in annotations) &&
      conditionOf(m, 'Updating')?.reason === 'NotUpdating';
    return done && m;
  }, `${ns}/${name}: in-place update completed`);
}

/** A core/v1 Event as the tests read it. */
export interface CoreEvent extends KubeObject {
  reason: string;
  message: string;
  type: string;
  involvedObject: { kind: string; name: string; uid?: string };
}

/** The core/v1 Events of `reason` recorded about Machine `name` in `ns`. */
export async function machineEvents(c: KubeClient, ns: string, name: string, reason: string): Promise<CoreEvent[]> {
  return (await c.list<CoreEvent>('v1', 'Event', { namespace: ns })).items.filter(
    (e) => e.involvedObject.kind === 'Machine' && e.involvedObject.name === name && e.reason === reason,
  );
}
