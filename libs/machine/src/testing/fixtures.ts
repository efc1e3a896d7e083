// Objects for Machine controller tests: a Cluster, a KubeadmConfig, a TestMachine, a Machine, a Node, built to be ready.
import { UPDATE_IN_PROGRESS_ANNOTATION, PENDING_HOOKS_ANNOTATION } from '@capi/api';
import type { KubeClient, KubeObject } from '@capi/controller-runtime';
import { TEST_INFRA_API_VERSION } from '@capi/envtest';

export const MACHINE_API = 'cluster.x-k8s.io/v1beta2';
export const BOOTSTRAP_API = 'bootstrap.cluster.x-k8s.io/v1beta2';

export const ref = (apiVersion: string, kind: string, namespace: string, name: string) => ({ apiVersion, kind, namespace, name });

export async function createNamespace(c: KubeClient, ns: string): Promise<void> {
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
}

/** A Cluster whose infrastructure is provisioned and control plane initialized. */
export async function createReadyCluster(c: KubeClient, ns: string, name = 'c1'): Promise<KubeObject> {
  const created = await c.create<KubeObject>({ apiVersion: MACHINE_API, kind: 'Cluster', metadata: { name, namespace: ns }, spec: {} });
  return c.updateStatus<KubeObject>({ ...created, status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } } });
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
  minReadySeconds?: number;
}

/** Machine + TestMachine (+ KubeadmConfig) with the refs wired; nothing provisioned yet. */
export async function createMachineObjects(c: KubeClient, ns: string, o: CreateOptions): Promise<MachineSet> {
  const cluster = o.cluster ?? 'c1';
  const withBootstrap = o.withBootstrapConfig !== false;
  await c.create({ apiVersion: TEST_INFRA_API_VERSION, kind: 'TestMachine', metadata: { name: `${o.name}-infra`, namespace: ns }, spec: { image: 'v1' } });
  if (withBootstrap) {
    await c.create({ apiVersion: BOOTSTRAP_API, kind: 'KubeadmConfig', metadata: { name: `${o.name}-boot`, namespace: ns }, spec: {} });
  }
  await c.create({
    apiVersion: MACHINE_API,
    kind: 'Machine',
    metadata: { name: o.name, namespace: ns, ...(o.machineAnnotations ? { annotations: o.machineAnnotations } : {}) },
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
  const cfg = await c.get<KubeObject>(ref(BOOTSTRAP_API, 'KubeadmConfig', ns, name));
  await c.updateStatus({ ...cfg, status: { initialization: { dataSecretCreated: true }, dataSecretName: `${name}-secret` } });
}

export async function provisionInfra(c: KubeClient, ns: string, name: string, providerID: string): Promise<void> {
  const infra = await c.get<KubeObject>(ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, name));
  const withId = await c.update<KubeObject>({ ...infra, spec: { ...(infra.spec as object), providerID } });
  await c.updateStatus({ ...withId, status: { initialization: { provisioned: true }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } });
}

export async function createNode(c: KubeClient, name: string, providerID: string, ready = true): Promise<void> {
  const node = await c.create<KubeObject>({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { providerID } });
  await c.updateStatus({
    ...node,
    status: {
      conditions: [
        { type: 'Ready', status: ready ? 'True' : 'False', reason: 'KubeletReady', message: ready ? 'ok' : 'kubelet stopped' },
        { type: 'MemoryPressure', status: 'False', reason: 'Ok' },
        { type: 'DiskPressure', status: 'False', reason: 'Ok' },
        { type: 'PIDPressure', status: 'False', reason: 'Ok' },
      ],
    },
  });
}

/** Sets or removes annotations with a merge patch (null removes). */
export async function annotate(c: KubeClient, r: ReturnType<typeof ref>, annotations: Record<string, string | null>): Promise<KubeObject> {
  return c.patch<KubeObject>(r, 'merge', { metadata: { annotations } });
}

export const MARKERS_ON = { [UPDATE_IN_PROGRESS_ANNOTATION]: '' };
export const PENDING_UPDATE_MACHINE = { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' };
