import { Inject, Injectable, Module, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Test, TestingModule } from '@nestjs/testing';
import { Registry } from 'prom-client';
import {
  CACHED_CLIENT,
  Client,
  ControllerRuntimeModule,
  CountingClientMetrics,
  KUBE_CLIENT,
  LEADERSHIP_FENCE,
  LeadershipFence,
  Manager,
  MANAGER,
  METRICS_REGISTRY,
  ReconcilerFor,
  Request,
} from '@capi/controller-runtime';
import { eventually } from '../../src/testing/eventually';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer } from '@capi/apiserver';
import { testCrd } from '../support/crds';
import { KubeObject } from '@capi/apimachinery';

const reconciled: string[] = [];

@ReconcilerFor({
  name: 'widget-status',
  for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
  owns: [{ apiVersion: 'test.capi.io/v1', kind: 'Gadget' }],
})
class WidgetReconciler {
  constructor(@Inject(CACHED_CLIENT) private readonly client: Client) {}

  async reconcile(req: Request): Promise<void> {
    reconciled.push(req.name);
    const widget = await this.client.tryGet({
      apiVersion: 'test.capi.io/v1',
      kind: 'Widget',
      namespace: req.namespace,
      name: req.name,
    });
    if (!widget) return;
    const gadgets = await this.client.list('test.capi.io/v1', 'Gadget', {
      namespace: req.namespace,
      labelSelector: `widget=${req.name}`,
    });
    const count = gadgets.items.length;
    if ((widget.status as { gadgets?: number } | undefined)?.gadgets === count) return;
    await this.client.updateStatus({ ...widget, status: { gadgets: count } });
  }
}

/** What another lib's module (the Runtime SDK client's) injects to refuse a deposed leader's extension calls. */
@Injectable()
class FenceUser {
  constructor(@Optional() @Inject(LEADERSHIP_FENCE) readonly fence?: LeadershipFence) {}
}

@Module({ providers: [WidgetReconciler, FenceUser] })
class WidgetModule {}

describe('ControllerRuntimeModule', () => {
  let server: ApiServer;
  let moduleRef: TestingModule;
  const counts = new CountingClientMetrics();

  beforeAll(async () => {
    server = new ApiServer({ storage: { type: 'memory' }, port: 0, host: '127.0.0.1' });
    await server.start();
    await server.installCrds([testCrd('Widget', 'widgets'), testCrd('Gadget', 'gadgets')]);
    const kubeconfig = () => {
      const kc = new KubeConfig();
      kc.loadFromString(server.kubeconfig());
      return kc;
    };
    moduleRef = await Test.createTestingModule({
      imports: [
        ControllerRuntimeModule.forRoot({ kubeconfig, namespace: 'default', clientMetrics: counts }),
        WidgetModule,
      ],
    }).compile();
    await moduleRef.init();
  });
  afterAll(async () => {
    await moduleRef.close();
    await server.stop();
  });

  it("gives other modules the Manager's leadership fence (the Runtime SDK client injects it as optional)", () => {
    const fence = moduleRef.get(FenceUser).fence;
    expect(fence).toBeInstanceOf(LeadershipFence);
    expect(fence).toBe(moduleRef.get(LEADERSHIP_FENCE, { strict: false }));
  });

  it('discovers the @ReconcilerFor provider and reconciles created objects and owned-object changes', async () => {
    const client = moduleRef.get<Client>(KUBE_CLIENT);
    const manager = moduleRef.get<Manager>(MANAGER);
    expect(manager.controllerNames()).toEqual(['widget-status']);
    const w = await client.create<KubeObject>({
      apiVersion: 'test.capi.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: {},
    });
    const ref = { apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace: 'default', name: 'w' };
    await eventually(
      async () => ((await client.get(ref)).status as { gadgets?: number } | undefined)?.gadgets === 0,
      'status from first reconcile',
    );
    await client.create({
      apiVersion: 'test.capi.io/v1',
      kind: 'Gadget',
      metadata: {
        name: 'g1',
        namespace: 'default',
        labels: { widget: 'w' },
        ownerReferences: [
          { apiVersion: 'test.capi.io/v1', kind: 'Widget', name: 'w', uid: w.metadata.uid!, controller: true },
        ],
      },
    });
    await eventually(
      async () => ((await client.get(ref)).status as { gadgets?: number }).gadgets === 1,
      'status after owned gadget created',
    );
    expect(reconciled.filter((n) => n === 'w').length).toBeGreaterThanOrEqual(2);
    expect(counts.count('update', 'Widget')).toBe(2);
    const text = await moduleRef.get<Registry>(METRICS_REGISTRY).metrics();
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="widget-status",result="success"\} [1-9]/);
    expect(text).toMatch(/rest_client_requests_total\{code="200",host="127\.0\.0\.1:\d+",method="PUT"\} 2\n/);
    expect(text).toMatch(/rest_client_requests_total\{code="201",host="127\.0\.0\.1:\d+",method="POST"\} [1-9]/);
  });

  it("schedules the cache's resync of each watched kind with @nestjs/schedule", () => {
    expect(moduleRef.get(SchedulerRegistry).getIntervals().sort()).toEqual([
      'cache-resync:test.capi.io/v1/Gadget',
      'cache-resync:test.capi.io/v1/Widget',
    ]);
  });
});
