// envtest harness: a management API server running the MHC controller, plus a second in-memory API server acting as
// the workload cluster (its kubeconfig in the `<cluster>-kubeconfig` Secret, as the real provider reads it).
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { formatTime, type Condition } from '@capi/api';
import { ControllerRuntimeModule, CountingClientMetrics, KubeClient, MANAGER, type KubeObject, type Manager } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { MachineControllerModule } from '@capi/machine';
import { SsaModule } from '@capi/ssa';
import { MachineHealthCheckControllerModule } from '../mhc-controller.module';
import { MachineHealthCheckReconciler } from '../mhc.reconciler';

export const CAPI = 'cluster.x-k8s.io/v1beta2';

export class ManualClock {
  constructor(public t = Math.floor(Date.now() / 1000) * 1000) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  /** RFC 3339 time `offsetS` seconds from the clock's now. */
  at(offsetS: number): string {
    return formatTime(new Date(this.t + offsetS * 1000));
  }
}

export interface Harness {
  mgmt: Envtest;
  workload: Envtest;
  client: KubeClient;
  wl: KubeClient;
  app: INestApplication;
  reconciler: MachineHealthCheckReconciler;
  manager: Manager;
  clock: ManualClock;
  counts: CountingClientMetrics;
  close(): Promise<void>;
}

const clientFor = (kubeconfig: string) => {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return { kc, client: new KubeClient(kc) };
};

/** A minimal v1beta2-contract infrastructure machine kind, for runs with the real Machine controller. */
export const testMachineCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'testmachines.infrastructure.cluster.x-k8s.io', labels: { 'cluster.x-k8s.io/v1beta2': 'v1beta2' } },
  spec: {
    group: 'infrastructure.cluster.x-k8s.io',
    scope: 'Namespaced',
    names: { kind: 'TestMachine', plural: 'testmachines', singular: 'testmachine', listKind: 'TestMachineList' },
    versions: [{
      name: 'v1beta2', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      } } },
    }],
  },
};

/** `withMachineController`: also run @capi/machine's controller (same clock, kubeconfig-Secret workload clients). */
export async function startHarness(opts: { withMachineController?: boolean } = {}): Promise<Harness> {
  const [mgmt, workload] = await Promise.all([startEnvtest({ crds: [testMachineCrd] }), startEnvtest({ installProjectCrds: false })]);
  const { kc, client } = clientFor(mgmt.kubeconfig);
  const wl = clientFor(workload.kubeconfig).client;
  const clock = new ManualClock();
  const counts = new CountingClientMetrics();
  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({ kubeconfig: kc, clientMetrics: counts, gracefulShutdownTimeoutMs: 5000 }),
      SsaModule.forRoot(),
      MachineHealthCheckControllerModule.forRoot({ clock, nodePollIntervalMs: 3_600_000 }),
      ...(opts.withMachineController ? [MachineControllerModule.forRoot({ clock, nodePollIntervalMs: 3_600_000 })] : []),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return {
    mgmt, workload, client, wl, app, clock, counts,
    reconciler: app.get(MachineHealthCheckReconciler),
    manager: app.get<Manager>(MANAGER),
    close: async () => {
      await app.close();
      client.close();
      wl.close();
      await Promise.all([mgmt.stop(), workload.stop()]);
    },
  };
}

export async function createClusterWithWorkload(h: Harness, ns: string, name: string): Promise<void> {
  await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const created = await h.client.create<KubeObject>({ apiVersion: CAPI, kind: 'Cluster', metadata: { name, namespace: ns }, spec: {} });
  await h.client.updateStatus({ ...created, status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } } });
  await h.client.create({
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-kubeconfig`, namespace: ns },
    data: { value: Buffer.from(h.workload.kubeconfig).toString('base64') },
  });
}

export interface MachineOpts {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  nodeName?: string;
  conditions?: Condition[];
}

export async function createMachine(h: Harness, ns: string, cluster: string, name: string, o: MachineOpts = {}): Promise<KubeObject> {
  const created = await h.client.create<KubeObject>({
    apiVersion: CAPI, kind: 'Machine',
    metadata: { name, namespace: ns, labels: { 'cluster.x-k8s.io/cluster-name': cluster, ...(o.labels ?? {}) }, annotations: o.annotations },
    spec: { clusterName: cluster, bootstrap: { dataSecretName: `${name}-boot` }, infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name } },
  });
  return h.client.patch<KubeObject>(
    { apiVersion: CAPI, kind: 'Machine', namespace: ns, name },
    'merge',
    { status: { ...(o.nodeName ? { nodeRef: { name: o.nodeName } } : {}), conditions: o.conditions ?? [] } },
    { subresource: 'status' },
  ).then((m) => m ?? created);
}

export async function createNode(h: Harness, name: string, conditions: { type: string; status: string; reason?: string; lastTransitionTime: string }[]): Promise<void> {
  await h.wl.create({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });
  await h.wl.patch({ apiVersion: 'v1', kind: 'Node', name }, 'merge', { status: { conditions } }, { subresource: 'status' });
}

export const machineRef = (ns: string, name: string) => ({ apiVersion: CAPI, kind: 'Machine', namespace: ns, name });
export const mhcRef = (ns: string, name: string) => ({ apiVersion: CAPI, kind: 'MachineHealthCheck', namespace: ns, name });

export const conditionOf = (o: KubeObject | undefined, type: string): Condition | undefined =>
  ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

/** Polls until check returns truthy (real time, bounded). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, label: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the controllers' queues are empty and idle for `quietMs` (bounded). */
export async function settle(h: Harness, quietMs = 150, timeoutMs = 10_000, controllers = ['machinehealthcheck']): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietSince = Date.now();
  for (;;) {
    const busy = controllers.some((name) => {
      const c = h.manager.controller(name);
      return !c || c.queue.len() > 0 || c.queue.processingCount() > 0;
    });
    if (busy) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    if (Date.now() > deadline) throw new Error('machinehealthcheck controller did not settle');
    await new Promise((r) => setTimeout(r, 10));
  }
}
