// envtest harness: a management API server running the MHC controller, plus a second in-memory API server acting as
// the workload cluster (its kubeconfig in the `<cluster>-kubeconfig` Secret, as the real provider reads it).
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Condition } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  ControllerRuntimeModule,
  CountingClientMetrics,
  KubeClient,
  MANAGER,
  type Manager,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { FakeClock } from '@capi/apimachinery/testing';
import { reconcileWhenCached, TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { clientFor, kubeConfigFor, startEnvtest, testMachineCrd, type Envtest } from '@capi/envtest';
import { MachineControllerModule } from '@capi/machine';
import { SsaModule } from '@capi/ssa';
import { MachineHealthCheckControllerModule } from '@capi/mhc';
import { MachineHealthCheckReconciler } from '../../src/mhc.reconciler';
import { managerSecretCacheOptions } from '@capi/certs';

export const CAPI = 'cluster.x-k8s.io/v1beta2';

export interface Harness {
  mgmt: Envtest;
  workload: Envtest;
  client: KubeClient;
  wl: KubeClient;
  app: INestApplicationContext;
  reconciler: MachineHealthCheckReconciler;
  /** One reconcile outside the controller's queue, with a fresh test context. */
  reconcile(req: Request): Promise<Result | void>;
  manager: Manager;
  clock: FakeClock;
  counts: CountingClientMetrics;
  close(): Promise<void>;
}

/** `withMachineController`: also run @capi/machine's controller (same clock, kubeconfig-Secret workload clients). */
export async function startHarness(opts: { withMachineController?: boolean } = {}): Promise<Harness> {
  const [mgmt, workload] = await Promise.all([
    startEnvtest({ crds: [testMachineCrd()] }),
    startEnvtest({ installProjectCrds: false }),
  ]);
  const kc = kubeConfigFor(mgmt);
  const client = new KubeClient(kc);
  const wl = clientFor(workload);
  // Starts at the current real time (whole seconds), near the timestamps the API server itself writes.
  const clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000);
  const counts = new CountingClientMetrics();
  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({
        ...managerSecretCacheOptions(),
        kubeconfig: kc,
        clientMetrics: counts,
        gracefulShutdownTimeoutMs: 5000,
        ...TEST_RATE_LIMITING,
        // Upstream's suite_test.go overrideRateLimit: the MHC's own 15 s would make every check wait.
        rateLimitIntervals: { machinehealthcheck: TEST_RATE_LIMITING.rateLimitIntervalMs },
      }),
      SsaModule.forRoot(),
      MachineHealthCheckControllerModule.forRoot({ clock, nodePollIntervalMs: 3_600_000 }),
      ...(opts.withMachineController
        ? [MachineControllerModule.forRoot({ clock, nodePollIntervalMs: 3_600_000 })]
        : []),
    ],
  }).compile();
  const app = moduleRef;
  app.useLogger(false);
  await app.init();
  const manager = app.get<Manager>(MANAGER);
  const reconciler = app.get(MachineHealthCheckReconciler);
  return {
    mgmt,
    workload,
    client,
    wl,
    app,
    clock,
    counts,
    reconciler,
    // The reconciler reads from the manager's cache: let it show the test's last write first.
    reconcile: reconcileWhenCached(reconciler, manager.cache, client, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineHealthCheck',
    }),
    manager,
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
  const created = await h.client.create<KubeObject>({
    apiVersion: CAPI,
    kind: 'Cluster',
    metadata: { name, namespace: ns },
    spec: {},
  });
  await h.client.updateStatus({
    ...created,
    status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } },
  });
  await h.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    // Labelled as Cluster API writes it: the manager's secret-caching client holds only cluster-labelled Secrets.
    metadata: { name: `${name}-kubeconfig`, namespace: ns, labels: { 'cluster.x-k8s.io/cluster-name': name } },
    data: { value: Buffer.from(h.workload.kubeconfig).toString('base64') },
  });
}

export interface MachineOpts {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  nodeName?: string;
  conditions?: Condition[];
}

export async function createMachine(
  h: Harness,
  ns: string,
  cluster: string,
  name: string,
  o: MachineOpts = {},
): Promise<KubeObject> {
  const created = await h.client.create<KubeObject>({
    apiVersion: CAPI,
    kind: 'Machine',
    metadata: {
      name,
      namespace: ns,
      labels: { 'cluster.x-k8s.io/cluster-name': cluster, ...(o.labels ?? {}) },
      annotations: o.annotations,
    },
    spec: {
      clusterName: cluster,
      bootstrap: { dataSecretName: `${name}-boot` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name },
    },
  });
  return h.client
    .patch<KubeObject>(
      { apiVersion: CAPI, kind: 'Machine', namespace: ns, name },
      'merge',
      { status: { ...(o.nodeName ? { nodeRef: { name: o.nodeName } } : {}), conditions: o.conditions ?? [] } },
      { subresource: 'status' },
    )
    .then((m) => m ?? created);
}

export async function createNode(
  h: Harness,
  name: string,
  conditions: { type: string; status: string; reason?: string; lastTransitionTime: string }[],
): Promise<void> {
  await h.wl.create({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });
  await h.wl.patch(
    { apiVersion: 'v1', kind: 'Node', name },
    'merge',
    { status: { conditions } },
    { subresource: 'status' },
  );
}

export const machineRef = (ns: string, name: string) => ({ apiVersion: CAPI, kind: 'Machine', namespace: ns, name });
export const mhcRef = (ns: string, name: string) => ({
  apiVersion: CAPI,
  kind: 'MachineHealthCheck',
  namespace: ns,
  name,
});

export const conditionOf = (o: KubeObject | undefined, type: string): Condition | undefined =>
  ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);
