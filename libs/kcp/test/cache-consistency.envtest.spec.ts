// The KCP's next reconcile waits until the manager's cache shows the Machine it created (upstream
// controlplane/kubeadm/reconcilers/kubeadmcontrolplane/helpers.go createMachine, DeferNextReconcileUntilCacheUpToDate),
// here with the manager's Machine watch delivering its events late.
import type { TestingModule } from '@nestjs/testing';
import type { Registry } from 'prom-client';
import { CLUSTER_API_VERSION, type Machine } from '@capi/api';
import {
  KUBE_CLIENT,
  METRICS_REGISTRY,
  type KubeClient,
  type WatchEvent,
  type WatchOptions,
} from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import {
  createControlPlane,
  getKcp,
  KCP_POLL,
  NS,
  startKcpHarness,
  waitForStableControlPlane,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(90_000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** The manager's Machine watch events reach its cache `lag.ms` late, in order (its other kinds are not delayed). */
function lagMachineWatch(app: TestingModule, lag: { ms: number }): void {
  const client = app.get<KubeClient>(KUBE_CLIENT);
  const watch = client.watch.bind(client);
  client.watch = ((apiVersion: string, kind: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void) => {
    if (kind !== 'Machine') return watch(apiVersion, kind, opts, onEvent);
    let delivered = Promise.resolve();
    return watch(apiVersion, kind, opts, (ev) => {
      const due = Date.now() + lag.ms;
      delivered = delivered.then(() => sleep(due - Date.now())).then(() => onEvent(ev));
    });
  }) as KubeClient['watch'];
}

async function kcpStaleMachineSkips(h: KcpHarness): Promise<number> {
  const metric = h.app.get<Registry>(METRICS_REGISTRY).getSingleMetric('capi_reconcile_stale_cache_skips_total');
  const { values } = await metric!.get();
  return (
    values.find((v) => v.labels.controller === 'kubeadmcontrolplane' && v.labels.cached_kind === 'Machine')?.value ?? 0
  );
}

describe('KCP with a Machine informer behind the API server', () => {
  let h: KcpHarness;
  const lag = { ms: 2_000 };
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false, beforeStart: (app) => lagMachineWatch(app, lag) });
  });
  afterAll(async () => {
    lag.ms = 0;
    await h?.close();
  });

  it('reconciles the KCP again only once its cache shows the Machine it created: one Machine, not two', async () => {
    const created = new Set<string>();
    const watch = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: NS }, (ev) => {
      if (ev.type === 'ADDED') created.add(ev.object.metadata.name!);
    });
    try {
      await createControlPlane(h.client, { replicas: 1 });
      await eventually(() => created.size > 0, { ...KCP_POLL, message: 'the first Machine' });
      // Its status write and requeues bring the KCP back within the lag: those reconciles are skipped.
      await eventually(async () => (await kcpStaleMachineSkips(h)) > 0, {
        ...KCP_POLL,
        message: 'a KCP reconcile skipped for a stale Machine cache',
      });
      await eventually(async () => (await getKcp(h.client)).status?.replicas === 1, {
        ...KCP_POLL,
        message: 'the KCP counting its Machine',
      });
      lag.ms = 0;
      await waitForStableControlPlane(h, 1, 'v1.30.0');
      expect([...created]).toHaveLength(1);
    } finally {
      watch.stop();
    }
  });
});
