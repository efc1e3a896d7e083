import { Test } from '@nestjs/testing';
import { HOOKS_API_VERSION } from '@capi/api';
import {
  createExtensionServer,
  EXTENSION_SERVER,
  type ExtensionServer,
  ExtensionServerModule,
  HttpsExtensionTransport,
} from '@capi/runtime-client';

describe('createExtensionServer', () => {
  const transport = new HttpsExtensionTransport();
  afterAll(() => transport.close());

  it('serves handlers under a path prefix, fills the envelope and turns thrown errors into Failure', async () => {
    const server = await createExtensionServer({
      tls: 'generate',
      pathPrefix: '/ext',
      handlers: [
        { hook: 'UpdateMachine', name: 'update-machine', handle: () => ({ message: 'ok' }) },
        {
          hook: 'CanUpdateMachine',
          name: 'can-update-machine',
          handle: () => {
            throw new Error('cannot decode');
          },
        },
      ],
    });
    try {
      const post = (path: string) =>
        transport.post(new URL(server.url + path), {}, { caBundle: server.caBundle, timeoutMs: 5000 });
      const ok = await post('/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/update-machine');
      expect(JSON.parse(ok.body)).toEqual({
        apiVersion: HOOKS_API_VERSION,
        kind: 'UpdateMachineResponse',
        status: 'Success',
        message: 'ok',
        retryAfterSeconds: 0,
      });
      const failed = await post('/hooks.runtime.cluster.x-k8s.io/v1alpha1/canupdatemachine/can-update-machine');
      expect(JSON.parse(failed.body)).toEqual({
        apiVersion: HOOKS_API_VERSION,
        kind: 'CanUpdateMachineResponse',
        status: 'Failure',
        message: 'cannot decode',
      });
      expect((await post('/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/nope')).statusCode).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('keeps no request with recordRequests false (a long-running updater would grow with every call)', async () => {
    const handlers = [{ hook: 'UpdateMachine' as const, name: 'u', handle: () => ({}) }];
    const recording = await createExtensionServer({ tls: 'generate', handlers });
    const quiet = await createExtensionServer({ tls: 'generate', handlers, recordRequests: false });
    try {
      for (const server of [recording, quiet]) {
        await transport.post(
          new URL(`${server.url}/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/u`),
          { machine: {} },
          { caBundle: server.caBundle, timeoutMs: 5000 },
        );
      }
      expect(recording.requests).toHaveLength(1);
      expect(quiet.requests).toHaveLength(0);
    } finally {
      await Promise.all([recording.close(), quiet.close()]);
    }
  });

  it('rejects duplicate handlers', async () => {
    const h = { hook: 'UpdateMachine' as const, name: 'x', handle: () => ({}) };
    await expect(createExtensionServer({ tls: 'generate', handlers: [h, h] })).rejects.toThrow(
      'duplicate handler UpdateMachine/x',
    );
  });

  it('ExtensionServerModule starts the server as a provider and closes it with the module', async () => {
    const mod = await Test.createTestingModule({
      imports: [
        ExtensionServerModule.forRoot({
          tls: 'generate',
          handlers: [{ hook: 'UpdateMachine', name: 'u', handle: () => ({}) }],
        }),
      ],
    }).compile();
    const server = mod.get<ExtensionServer>(EXTENSION_SERVER);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await mod.close();
    await expect(
      transport.post(new URL(server.url + '/x'), {}, { caBundle: server.caBundle, timeoutMs: 2000 }),
    ).rejects.toMatchObject({ reason: 'TransportError' });
  });
});
