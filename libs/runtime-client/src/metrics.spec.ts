// Runtime SDK metrics: upstream's names, labels (code, host, group, version, hook, status) and buckets.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { HOOKS_API_VERSION, type UpdateMachineRequest } from '@capi/api';
import { RuntimeClient } from './client';
import { discoverExtension } from './discovery';
import type { ExtensionConfig } from './extension-config';
import { RuntimeSdkMetrics } from './metrics';
import { ExtensionRegistry } from './registry';
import { createExtensionServer, generateServerTls, type ExtensionServer } from './extension-server/extension-server';
import { HttpsExtensionTransport } from './transport';

const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'ns' },
  spec: {},
};
const request: UpdateMachineRequest = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'UpdateMachineRequest',
  desired: { machine, infrastructureMachine: machine },
};
const forObject = { metadata: { namespace: 'ns' } };
const G = 'group="hooks.runtime.cluster.x-k8s.io",version="v1alpha1"';

describe('Runtime SDK metrics', () => {
  const transport = new HttpsExtensionTransport();
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    transport.close();
    for (const c of closers) await c();
  });

  async function rawServer(code: number, body: string): Promise<{ url: string; ca: string }> {
    const tls = await generateServerTls();
    const srv = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(code, { 'content-type': 'application/json' }).end(body));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    closers.push(
      () =>
        new Promise<void>((r) => {
          srv.closeAllConnections();
          srv.close(() => r());
        }),
    );
    return {
      url: `https://127.0.0.1:${(srv.address() as AddressInfo).port}`,
      ca: Buffer.from(tls.cert).toString('base64'),
    };
  }

  it('counts discovery and hook calls by code, host, hook and response status, and observes their duration', async () => {
    const registry = new Registry();
    const metrics = new RuntimeSdkMetrics(registry);
    const ext: ExtensionServer = await createExtensionServer({
      tls: 'generate',
      handlers: [
        { hook: 'UpdateMachine', name: 'update', failurePolicy: 'Ignore', handle: () => ({ retryAfterSeconds: 1 }) },
      ],
    });
    closers.push(() => ext.close());
    const host = new URL(ext.url).host;
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'ok' },
      spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle } },
    };
    const reg = new ExtensionRegistry();
    reg.warmUp([await discoverExtension(ec, transport, { metrics })]);
    const client = new RuntimeClient(reg, transport, async () => ({}), metrics);
    await client.callExtension('UpdateMachine', forObject, 'update.ok', request);
    await client.callExtension('UpdateMachine', forObject, 'update.ok', request);

    // An HTTP 500 (no decoded status) and a refused connection (no HTTP code), both under failurePolicy Ignore.
    const { url: failingUrl, ca } = await rawServer(500, '{"status":"Success"}');
    const handlers = [
      {
        name: 'update.bad',
        requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' },
        failurePolicy: 'Ignore' as const,
      },
    ];
    reg.add({
      ...ec,
      metadata: { name: 'bad' },
      spec: { clientConfig: { url: failingUrl, caBundle: ca } },
      status: { handlers },
    });
    await client.callExtension('UpdateMachine', forObject, 'update.bad', request);
    reg.add({
      ...ec,
      metadata: { name: 'gone' },
      spec: { clientConfig: { url: 'https://127.0.0.1:1', caBundle: ca } },
      status: { handlers: [{ ...handlers[0], name: 'update.gone' }] },
    });
    await client.callExtension('UpdateMachine', forObject, 'update.gone', request);

    const text = await registry.metrics();
    expect(text).toContain('# TYPE capi_runtime_sdk_requests_total counter');
    expect(text).toContain(
      `capi_runtime_sdk_requests_total{code="200",host="${host}",${G},hook="Discovery",status="Success"} 1`,
    );
    expect(text).toContain(
      `capi_runtime_sdk_requests_total{code="200",host="${host}",${G},hook="UpdateMachine",status="Success"} 2`,
    );
    expect(text).toContain(
      `capi_runtime_sdk_requests_total{code="500",host="${new URL(failingUrl).host}",${G},hook="UpdateMachine",status="Unknown"} 1`,
    );
    expect(text).toContain(
      `capi_runtime_sdk_requests_total{code="<error>",host="127.0.0.1:1",${G},hook="UpdateMachine",status="Unknown"} 1`,
    );
    expect(text).toContain('# TYPE capi_runtime_sdk_request_duration_seconds histogram');
    expect(text).toContain(
      `capi_runtime_sdk_request_duration_seconds_count{host="${host}",${G},hook="UpdateMachine"} 2`,
    );
    expect(text).toContain(
      `capi_runtime_sdk_request_duration_seconds_bucket{le="60",host="${host}",${G},hook="Discovery"} 1`,
    );
    expect(text).toContain(
      `capi_runtime_sdk_request_duration_seconds_bucket{le="0.005",host="${host}",${G},hook="UpdateMachine"}`,
    );
  });

  it('host is the URL host as written, an explicit :443 included (Go url.URL.Host)', async () => {
    const registry = new Registry();
    const metrics = new RuntimeSdkMetrics(registry);
    const fake = { post: async () => ({ statusCode: 200, body: '{"status":"Success"}' }) };
    const reg = new ExtensionRegistry();
    const handlers = [{ name: 'update.svc', requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' } }];
    reg.warmUp([
      {
        apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
        kind: 'ExtensionConfig',
        metadata: { name: 'svc' },
        spec: { clientConfig: { service: { name: 'updater', namespace: 'capi', port: 443 } } },
        status: { handlers },
      },
    ]);
    await new RuntimeClient(reg, fake, async () => ({}), metrics).callExtension(
      'UpdateMachine',
      forObject,
      'update.svc',
      request,
    );
    expect(await registry.metrics()).toContain(
      `capi_runtime_sdk_requests_total{code="200",host="updater.capi.svc:443",${G},hook="UpdateMachine",status="Success"} 1`,
    );
  });

  it('a second RuntimeSdkMetrics on the same registry reuses the metrics', () => {
    const registry = new Registry();
    new RuntimeSdkMetrics(registry);
    expect(() => new RuntimeSdkMetrics(registry)).not.toThrow();
    expect(
      registry
        .getMetricsAsArray()
        .map((m) => m.name)
        .sort(),
    ).toEqual(['capi_runtime_sdk_request_duration_seconds', 'capi_runtime_sdk_requests_total']);
  });
});
