// RuntimeClient against real HTTPS extension servers on 127.0.0.1.
import { LeadershipFence, LeadershipLostError } from '@capi/controller-runtime';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { HOOKS_API_VERSION, type CanUpdateMachineRequest, type UpdateMachineRequest } from '@capi/api';
import {
  aggregateResponses,
  type AnyExtensionHandler,
  createExtensionServer,
  discoverExtension,
  type ExtensionConfig,
  ExtensionRegistry,
  type ExtensionServer,
  generateServerTls,
  HttpsExtensionTransport,
  type LabelSelector,
  RuntimeClient,
} from '@capi/runtime-client';
import { isExtensionCallError } from '../src/errors';
import { TtlResponseCache } from '../src/cache';

const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'team-a' },
  spec: {},
};
const updateRequest = (settings?: Record<string, string>): UpdateMachineRequest => ({
  apiVersion: HOOKS_API_VERSION,
  kind: 'UpdateMachineRequest',
  ...(settings ? { settings } : {}),
  desired: { machine, infrastructureMachine: { ...machine, kind: 'DevMachine' } },
});
const canUpdateRequest: CanUpdateMachineRequest = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'CanUpdateMachineRequest',
  current: { machine, infrastructureMachine: machine },
  desired: { machine, infrastructureMachine: machine },
};
const forObject = { metadata: { namespace: 'team-a' } };
const namespaces: Record<string, Record<string, string>> = { 'team-a': { team: 'a' }, 'team-b': { team: 'b' } };

describe('RuntimeClient', () => {
  const transport = new HttpsExtensionTransport();
  const registry = new ExtensionRegistry();
  const client = new RuntimeClient(registry, transport, async (ns) => namespaces[ns] ?? {});
  const servers: ExtensionServer[] = [];
  let release: () => void = () => undefined;
  const hang = new Promise<void>((r) => (release = r));
  let calls = 0;

  async function register(
    name: string,
    handlers: AnyExtensionHandler[],
    extra: { settings?: Record<string, string>; namespaceSelector?: LabelSelector } = {},
  ) {
    const server = await createExtensionServer({ tls: 'generate', handlers });
    servers.push(server);
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name, resourceVersion: '1' },
      spec: {
        clientConfig: { url: server.url, caBundle: server.caBundle },
        settings: extra.settings,
        namespaceSelector: extra.namespaceSelector,
      },
    };
    registry.add(await discoverExtension(ec, transport));
    return server;
  }

  beforeAll(async () => {
    registry.warmUp([]);
    await register(
      'good',
      [
        {
          hook: 'UpdateMachine',
          name: 'update-machine',
          handle: (req) => {
            calls++;
            return { message: `settings=${JSON.stringify(req.settings ?? {})}`, retryAfterSeconds: 7 };
          },
        },
        { hook: 'CanUpdateMachine', name: 'can-update', handle: () => ({ status: 'Failure', message: 'nope' }) },
      ],
      { settings: { a: 'ec', b: 'ec' } },
    );
    await register('broken', [
      {
        hook: 'CanUpdateMachineSet',
        name: 'slow',
        timeoutSeconds: 1,
        handle: async () => {
          await hang;
          return {};
        },
      },
    ]);
  });
  afterAll(async () => {
    release();
    transport.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('calls <base>/hooks.runtime.cluster.x-k8s.io/v1alpha1/<lowercased hook>/<handler>?timeout=10s', async () => {
    await client.callExtension('UpdateMachine', forObject, 'update-machine.good', updateRequest());
    const last = servers[0].requests[servers[0].requests.length - 1];
    expect(last.path).toBe('/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/update-machine');
    expect(last.search).toBe('?timeout=10s');
    expect(last.body).toMatchObject({ apiVersion: HOOKS_API_VERSION, kind: 'UpdateMachineRequest' });
  });

  it('a deposed leader (its LeadershipFence refuses) calls no extension', async () => {
    const fence = new LeadershipFence();
    const fenced = new RuntimeClient(registry, transport, async (ns) => namespaces[ns] ?? {}, undefined, fence);
    await fenced.callExtension('UpdateMachine', forObject, 'update-machine.good', updateRequest());
    const before = calls;
    fence.bind(() => false);
    await expect(
      fenced.callExtension('UpdateMachine', forObject, 'update-machine.good', updateRequest()),
    ).rejects.toThrow(new LeadershipLostError('calling UpdateMachine extension update-machine.good').message);
    expect(calls).toBe(before);
  });

  it('merges ExtensionConfig settings, request keys win', async () => {
    const r = await client.callExtension(
      'UpdateMachine',
      forObject,
      'update-machine.good',
      updateRequest({ b: 'req', c: 'req' }),
    );
    expect(JSON.parse(r.message!.replace('settings=', ''))).toEqual({ a: 'ec', b: 'req', c: 'req' });
    expect(r.retryAfterSeconds).toBe(7);
  });

  it('status Failure -> ExtensionCallError reason Failure with the message', async () => {
    const err = await client
      .callExtension('CanUpdateMachine', forObject, 'can-update.good', canUpdateRequest)
      .catch((e) => e);
    expect(isExtensionCallError(err, 'Failure')).toBe(true);
    expect(err.message).toContain('nope');
  });

  it('times out after the handler timeout with reason Timeout', async () => {
    const err = await client
      .callExtension('CanUpdateMachineSet', forObject, 'slow.broken', {
        apiVersion: HOOKS_API_VERSION,
        kind: 'CanUpdateMachineSetRequest',
      } as never)
      .catch((e) => e);
    expect(isExtensionCallError(err, 'Timeout')).toBe(true);
    expect(servers[1].requests[servers[1].requests.length - 1].search).toBe('?timeout=1s');
  });

  it('unknown name and wrong hook are NotRegistered errors', async () => {
    await expect(
      client.callExtension('UpdateMachine', forObject, 'missing.good', updateRequest()),
    ).rejects.toMatchObject({ reason: 'NotRegistered' });
    await expect(
      client.callExtension('CanUpdateMachine', forObject, 'update-machine.good', canUpdateRequest),
    ).rejects.toMatchObject({ reason: 'NotRegistered' });
  });

  it('not warmed up -> NotReady', async () => {
    const cold = new RuntimeClient(new ExtensionRegistry(), transport, async () => ({}));
    expect(cold.isReady()).toBe(false);
    await expect(cold.getAllExtensions('UpdateMachine', forObject)).rejects.toMatchObject({ reason: 'NotReady' });
  });

  it('caching returns the cached response without an HTTP call, keyed by request content', async () => {
    const cache = new TtlResponseCache(60_000);
    const before = calls;
    await client.callExtension('UpdateMachine', forObject, 'update-machine.good', updateRequest(), {
      caching: { cache },
    });
    await client.callExtension('UpdateMachine', forObject, 'update-machine.good', updateRequest(), {
      caching: { cache },
    });
    expect(calls - before).toBe(1);
    await client.callExtension('UpdateMachine', forObject, 'update-machine.good', updateRequest({ x: '1' }), {
      caching: { cache },
    });
    expect(calls - before).toBe(2);
  });
});

describe('failure handling with misbehaving extensions', () => {
  const transport = new HttpsExtensionTransport();
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    transport.close();
    await Promise.all(closers.map((close) => close()));
  });

  /** Registers a fake "extension" whose UpdateMachine endpoint answers with a raw HTTP status/body. */
  async function rawExtension(
    name: string,
    failurePolicy: 'Fail' | 'Ignore',
    code: number,
    body: string,
    caBundle?: string,
  ) {
    const tls = await generateServerTls();
    const srv = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(body);
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    let closed: Promise<void> | undefined;
    closers.push(
      () =>
        (closed ??= new Promise<void>((r) => {
          srv.closeAllConnections();
          srv.close(() => r());
        })),
    );
    const port = (srv.address() as AddressInfo).port;
    return {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name },
      spec: {
        clientConfig: {
          url: `https://127.0.0.1:${port}`,
          caBundle: caBundle ?? Buffer.from(tls.cert).toString('base64'),
        },
      },
      status: {
        handlers: [
          {
            name: `update-machine.${name}`,
            requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' },
            timeoutSeconds: 5,
            failurePolicy,
          },
        ],
      },
    } as ExtensionConfig;
  }

  let otherCa: string;
  beforeAll(async () => {
    otherCa = Buffer.from((await generateServerTls()).cert).toString('base64');
  });

  it.each([
    ['HTTP 500', 500, '{"message":"boom"}', 'HttpStatus', undefined],
    ['garbage JSON', 200, '{not json', 'MalformedResponse', undefined],
    ['wrong types', 200, '{"status":"Success","retryAfterSeconds":"soon"}', 'MalformedResponse', undefined],
    ['cert from another CA', 200, '{"status":"Success"}', 'TransportError', 'other'],
  ])('%s -> Fail gives a typed error, Ignore gives Success', async (label, code, body, reason, ca) => {
    const registry = new ExtensionRegistry();
    registry.warmUp([]);
    const client = new RuntimeClient(registry, transport, async () => ({}));
    const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    registry.add(await rawExtension(`${slug}-fail`, 'Fail', code, body, ca ? otherCa : undefined));
    registry.add(await rawExtension(`${slug}-ignore`, 'Ignore', code, body, ca ? otherCa : undefined));

    const err = await client
      .callExtension('UpdateMachine', forObject, `update-machine.${slug}-fail`, updateRequest())
      .catch((e) => e);
    expect(isExtensionCallError(err, reason as never)).toBe(true);
    expect(err.message).toContain(`update-machine.${slug}-fail`);

    const ignored = await client.callExtension(
      'UpdateMachine',
      forObject,
      `update-machine.${slug}-ignore`,
      updateRequest(),
    );
    expect(ignored).toMatchObject({ status: 'Success', message: '', retryAfterSeconds: 0 });
  });

  it.each([
    ['missing status', '{"kind":"UpdateMachineResponse","retryAfterSeconds":0}', 'status is not set'],
    ['null status', '{"status":null}', 'status is not set'],
    ['unknown status', '{"status":"OK"}', 'status "OK"'],
  ])(
    '%s -> InvalidResponseStatus for Fail and Ignore alike (the failure policy does not apply)',
    async (label, body, detail) => {
      const registry = new ExtensionRegistry();
      registry.warmUp([]);
      const client = new RuntimeClient(registry, transport, async () => ({}));
      const slug = label.replace(/[^a-z0-9]+/g, '-');
      registry.add(await rawExtension(`${slug}-fail`, 'Fail', 200, body));
      registry.add(await rawExtension(`${slug}-ignore`, 'Ignore', 200, body));
      for (const policy of ['fail', 'ignore']) {
        const err = await client
          .callExtension('UpdateMachine', forObject, `update-machine.${slug}-${policy}`, updateRequest())
          .catch((e) => e);
        expect(isExtensionCallError(err, 'InvalidResponseStatus')).toBe(true);
        expect(err.message).toContain(detail);
      }
    },
  );

  it('a status of the wrong JSON type is a decode error, so Ignore still applies (as Go decoding fails first)', async () => {
    const registry = new ExtensionRegistry();
    registry.warmUp([]);
    const client = new RuntimeClient(registry, transport, async () => ({}));
    registry.add(await rawExtension('numeric-status', 'Ignore', 200, '{"status":1}'));
    await expect(
      client.callExtension('UpdateMachine', forObject, 'update-machine.numeric-status', updateRequest()),
    ).resolves.toMatchObject({ status: 'Success' });
  });

  it('connection refused -> TransportError', async () => {
    const registry = new ExtensionRegistry();
    const ec = await rawExtension('refused', 'Fail', 200, '{}');
    await closers[closers.length - 1]();
    registry.warmUp([ec]);
    const client = new RuntimeClient(registry, transport, async () => ({}));
    await expect(
      client.callExtension('UpdateMachine', forObject, 'update-machine.refused', updateRequest()),
    ).rejects.toMatchObject({ reason: 'TransportError' });
  });
});

describe('namespaceSelector and callAll', () => {
  const transport = new HttpsExtensionTransport();
  const registry = new ExtensionRegistry();
  const namespaceReads: string[] = [];
  const client = new RuntimeClient(registry, transport, async (ns) => {
    namespaceReads.push(ns);
    return namespaces[ns] ?? {};
  });
  const servers: ExtensionServer[] = [];
  afterAll(async () => {
    transport.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  beforeAll(async () => {
    registry.warmUp([]);
    const add = async (name: string, retryAfterSeconds: number, message: string, namespaceSelector?: LabelSelector) => {
      const server = await createExtensionServer({
        tls: 'generate',
        handlers: [{ hook: 'UpdateMachine', name: 'update', handle: () => ({ retryAfterSeconds, message }) }],
      });
      servers.push(server);
      const ec: ExtensionConfig = {
        apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
        kind: 'ExtensionConfig',
        metadata: { name },
        spec: { clientConfig: { url: server.url, caBundle: server.caBundle }, namespaceSelector },
      };
      registry.add(await discoverExtension(ec, transport));
    };
    await add('a-all', 0, '');
    await add('b-team-a', 20, 'b says hi', { matchLabels: { team: 'a' } });
    await add('c-team-a', 5, 'c says hi', { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] });
    await add('d-team-b', 1, 'd', { matchLabels: { team: 'b' } });
  });

  it('getAllExtensions omits handlers whose selector does not match the Namespace labels', async () => {
    expect(await client.getAllExtensions('UpdateMachine', forObject)).toEqual([
      'update.a-all',
      'update.b-team-a',
      'update.c-team-a',
    ]);
    expect(await client.getAllExtensions('UpdateMachine', { metadata: { namespace: 'team-b' } })).toEqual([
      'update.a-all',
      'update.d-team-b',
    ]);
    expect(namespaceReads).toContain('team-a');
  });

  it('callExtension to a non-matching handler errors with NamespaceMismatch', async () => {
    await expect(
      client.callExtension('UpdateMachine', forObject, 'update.d-team-b', updateRequest()),
    ).rejects.toMatchObject({ reason: 'NamespaceMismatch' });
  });

  it('callAllExtensions aggregates: lowest non-zero retryAfterSeconds, messages joined by ", "', async () => {
    const r = await client.callAllExtensions('UpdateMachine', forObject, updateRequest());
    expect(r).toEqual({
      apiVersion: HOOKS_API_VERSION,
      kind: 'UpdateMachineResponse',
      status: 'Success',
      message: 'b says hi, c says hi',
      retryAfterSeconds: 5,
    });
  });

  it('aggregate retryAfterSeconds is 0 only if all are 0', () => {
    const base = { apiVersion: HOOKS_API_VERSION, kind: 'UpdateMachineResponse', status: 'Success' as const };
    expect(
      aggregateResponses('UpdateMachine', [
        { ...base, retryAfterSeconds: 0 },
        { ...base, retryAfterSeconds: 0 },
      ] as never),
    ).toMatchObject({ retryAfterSeconds: 0, message: '' });
    expect(aggregateResponses('CanUpdateMachine', [base])).not.toHaveProperty('retryAfterSeconds');
  });
});
