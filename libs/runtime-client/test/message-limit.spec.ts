// A hook response's message is bounded where the client decodes it (src/invoke.ts), over real HTTPS: a multi-megabyte
// message from a buggy or hostile extension reaches no consumer (conditions, Failure errors, the response cache) whole.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { HOOKS_API_VERSION, type CanUpdateMachineRequest, type UpdateMachineRequest } from '@capi/api';
import {
  createExtensionServer,
  discoverExtension,
  type ExtensionConfig,
  ExtensionRegistry,
  type ExtensionServer,
  generateServerTls,
  HttpsExtensionTransport,
  RuntimeClient,
} from '@capi/runtime-client';
import { isExtensionCallError } from '../src/errors';
import { MAX_EXTENSION_MESSAGE_CHARS } from '../src/message-limit';

const machine = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', metadata: { name: 'm1', namespace: 'a' } };
const updateRequest: UpdateMachineRequest = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'UpdateMachineRequest',
  desired: { machine, infrastructureMachine: { ...machine, kind: 'DevMachine' } },
};
const canUpdateRequest: CanUpdateMachineRequest = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'CanUpdateMachineRequest',
  current: { machine, infrastructureMachine: machine },
  desired: { machine, infrastructureMachine: machine },
};
const forObject = { metadata: { namespace: 'a' } };
const HUGE = 'x'.repeat(3 * 1024 * 1024);
const SUFFIX = /\.\.\. \(truncated, (\d+) more characters\)$/;

describe('hook response messages are bounded when received', () => {
  const transport = new HttpsExtensionTransport();
  const registry = new ExtensionRegistry();
  const client = new RuntimeClient(registry, transport, async () => ({}));
  let server: ExtensionServer;
  let raw: https.Server | undefined;

  beforeAll(async () => {
    registry.warmUp([]);
    server = await createExtensionServer({
      tls: 'generate',
      handlers: [
        { hook: 'UpdateMachine', name: 'update', handle: () => ({ message: HUGE, retryAfterSeconds: 5 }) },
        { hook: 'CanUpdateMachine', name: 'can-update', handle: () => ({ status: 'Failure', message: HUGE }) },
      ],
    });
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'chatty', resourceVersion: '1' },
      spec: { clientConfig: { url: server.url, caBundle: server.caBundle } },
    };
    registry.add(await discoverExtension(ec, transport));
  });
  afterAll(async () => {
    transport.close();
    await server.close();
    if (raw) await new Promise((r) => raw!.close(r));
  });

  it('a 3 MB Success message: 10240 characters at most, its start kept, the suffix counting the rest', async () => {
    const r = await client.callExtension('UpdateMachine', forObject, 'update.chatty', updateRequest);
    expect(r).toMatchObject({ status: 'Success', retryAfterSeconds: 5 });
    expect(r.message!.length).toBeLessThanOrEqual(MAX_EXTENSION_MESSAGE_CHARS);
    const more = Number(SUFFIX.exec(r.message!)?.[1]);
    const kept = r.message!.replace(SUFFIX, '');
    expect(kept).toBe(HUGE.slice(0, kept.length));
    expect(kept.length + more).toBe(HUGE.length);
  });

  it('a 3 MB Failure message becomes an error with the bounded message', async () => {
    const err = await client
      .callExtension('CanUpdateMachine', forObject, 'can-update.chatty', canUpdateRequest)
      .catch((e) => e);
    expect(isExtensionCallError(err, 'Failure')).toBe(true);
    expect(err.message).toMatch(SUFFIX);
    expect(err.message.length).toBeLessThan(MAX_EXTENSION_MESSAGE_CHARS + 200);
  });

  it('a 3 MB invalid status is quoted bounded in the InvalidResponseStatus error', async () => {
    const tls = await generateServerTls();
    raw = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: HUGE })),
      );
    });
    await new Promise<void>((r) => raw!.listen(0, '127.0.0.1', () => r()));
    registry.add({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'raw' },
      spec: {
        clientConfig: {
          url: `https://127.0.0.1:${(raw.address() as AddressInfo).port}`,
          caBundle: Buffer.from(tls.cert).toString('base64'),
        },
      },
      status: {
        handlers: [
          {
            name: 'update.raw',
            requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' },
            timeoutSeconds: 5,
            failurePolicy: 'Fail',
          },
        ],
      },
    } as ExtensionConfig);
    const err = await client.callExtension('UpdateMachine', forObject, 'update.raw', updateRequest).catch((e) => e);
    expect(isExtensionCallError(err, 'InvalidResponseStatus')).toBe(true);
    expect(err.message).toMatch(
      /status "xxx+\.\.\. \(truncated, \d+ more characters\), expected Success or Failure\)$/,
    );
    expect(err.message.length).toBeLessThan(600);
  });
});
