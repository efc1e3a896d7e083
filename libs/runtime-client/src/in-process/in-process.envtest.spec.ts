// In-process updaters registered by DI in provider modules, composed with an ExtensionConfig-registered HTTPS
// extension by ExtensionConfigModule's RUNTIME_CLIENT, on envtest (embedded API server over HTTPS).
import { Inject, Injectable, Module, type DynamicModule } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  encodePatch,
  type CanUpdateMachineRequest,
  type CanUpdateMachineResponse,
  type UpdateMachineRequest,
} from '@capi/api';
import { ControllerRuntimeModule, KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { eventually, kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import type { RuntimeClient } from '../client';
import { ExtensionConfigController, ExtensionConfigModule } from '../module/extension-config.module';
import { EXTENSION_TRANSPORT, RUNTIME_CLIENT } from '../runtime-client.module';
import { createExtensionServer, type ExtensionServer } from '../extension-server/extension-server';
import { IN_PLACE_UPDATERS, inPlaceUpdater, type InPlaceUpdater, type InProcessResponse } from './in-place-updater';

const forObject = { metadata: { namespace: 'default' } };
const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'default' },
  spec: { version: 'v1.31.0' },
};
const request = {
  current: { machine, infrastructureMachine: { object: {} }, bootstrapConfig: { object: {} } },
  desired: {
    machine: { ...machine, spec: { version: 'v1.31.1' } },
    infrastructureMachine: { object: {} },
    bootstrapConfig: { object: {} },
  },
} as unknown as CanUpdateMachineRequest;
const versionPatch = encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: 'v1.31.1' }]);
const fdPatch = encodePatch('JSONPatch', [{ op: 'add', path: '/spec/failureDomain', value: 'fd2' }]);

/** A dependency of the provider's updater, to show it is an ordinary Nest provider. */
@Injectable()
class HostAgent {
  updates: string[] = [];
}

@Injectable()
class VersionUpdater implements InPlaceUpdater {
  readonly name = 'version-updater';
  constructor(@Inject(HostAgent) private readonly agent: HostAgent) {}
  canUpdateMachine(): InProcessResponse<CanUpdateMachineResponse> {
    return { status: 'Success', machinePatch: versionPatch };
  }
  updateMachine(req: UpdateMachineRequest) {
    this.agent.updates.push(req.desired.machine.metadata.name ?? '');
    return { status: 'Success' as const, retryAfterSeconds: 0, message: 'version-updater done' };
  }
}
@Module({ providers: [HostAgent, { provide: IN_PLACE_UPDATERS, useClass: VersionUpdater }], exports: [HostAgent] })
class VersionProviderModule {}

const thrower = {
  calls: 0,
  name: 'thrower',
  failurePolicy: 'Ignore' as const,
  canUpdateMachineSet: () => (thrower.calls++, Promise.reject(new Error('agent down'))),
};
/** Two more updaters in one module (inPlaceUpdater() gives each its own token): one throws, one hangs. */
@Module({
  providers: [
    inPlaceUpdater({ useValue: thrower }),
    inPlaceUpdater({
      useValue: { name: 'zz-hanger', timeoutSeconds: 1, updateMachine: () => new Promise<never>(() => undefined) },
    }),
  ],
})
class FaultyProviderModule {}

async function compile(env: Envtest, ...modules: Array<DynamicModule | (new () => unknown)>): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({ kubeconfig: () => kubeConfigFor(env) }),
      ExtensionConfigModule.forRoot({ warmUp: { retryIntervalMs: 50 } }),
      ...modules,
    ],
  }).compile();
  await app.init();
  return app;
}

describe('in-process updaters by DI (envtest)', () => {
  let env: Envtest;
  let ext: ExtensionServer;
  let app: TestingModule;
  let runtimeClient: RuntimeClient;

  beforeAll(async () => {
    env = await startEnvtest();
    ext = await createExtensionServer({
      tls: 'generate',
      handlers: [{ hook: 'CanUpdateMachine', name: 'can-update-machine', handle: () => ({ machinePatch: fdPatch }) }],
    });
    app = await compile(env, VersionProviderModule, FaultyProviderModule);
    runtimeClient = app.get<RuntimeClient>(RUNTIME_CLIENT);
    await eventually(() => app.get(ExtensionConfigController).warmUpDone, 'warm-up started');
    expect(await app.get(ExtensionConfigController).warmUpDone).toMatchObject({ ok: true });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await ext?.close();
    await env?.stop();
  });

  it('only in-process: with no ExtensionConfig, the runtime client lists and calls the DI-registered updater', async () => {
    expect(await runtimeClient.getAllExtensions('CanUpdateMachine', forObject)).toEqual([
      'can-update-machine.version-updater',
    ]);
    const res = await runtimeClient.callExtension(
      'CanUpdateMachine',
      forObject,
      'can-update-machine.version-updater',
      request,
    );
    expect(res).toMatchObject({ kind: 'CanUpdateMachineResponse', status: 'Success', machinePatch: versionPatch });
    const done = await runtimeClient
      .callAllExtensions('UpdateMachine', forObject, { desired: request.desired } as unknown as UpdateMachineRequest)
      .catch((e: Error) => e);
    // zz-hanger (Fail) times out after its 1 s: UpdateMachine on all updaters surfaces it, after version-updater answered.
    expect(done).toMatchObject({
      reason: 'Timeout',
      message: expect.stringContaining('in-process updater "zz-hanger" did not answer within 1s'),
    });
    expect(app.get(HostAgent).updates).toEqual(['m']);
  });

  it('a throwing updater with failurePolicy Ignore counts as an empty Success', async () => {
    expect(await runtimeClient.getAllExtensions('CanUpdateMachineSet', forObject)).toEqual([
      'can-update-machineset.thrower',
    ]);
    expect(await runtimeClient.callAllExtensions('CanUpdateMachineSet', forObject, {} as never)).toMatchObject({
      status: 'Success',
      message: '',
    });
    expect(thrower.calls).toBe(1);
  });

  it('both composed: an ExtensionConfig-registered extension joins the in-process updater, in registration-name order', async () => {
    const client = app.get<Client>(KUBE_CLIENT);
    await client.create({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'https-ext' },
      spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle } },
    });
    const names = await eventually(async () => {
      const n = await runtimeClient.getAllExtensions('CanUpdateMachine', forObject);
      return n.length === 2 ? n : undefined;
    }, 'the extension discovered next to the in-process updater');
    expect(names).toEqual(['can-update-machine.https-ext', 'can-update-machine.version-updater']);
    const patches = [];
    for (const name of names)
      patches.push((await runtimeClient.callExtension('CanUpdateMachine', forObject, name, request)).machinePatch);
    expect(patches).toEqual([fdPatch, versionPatch]);
    // A re-list of ExtensionConfigs (warm-up, deletions) keeps the in-process registrations.
    await client.delete({ apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig', name: 'https-ext' });
    await eventually(
      async () => (await runtimeClient.getAllExtensions('CanUpdateMachine', forObject)).length === 1,
      'https-ext removed',
    );
    expect(await runtimeClient.getAllExtensions('CanUpdateMachine', forObject)).toEqual([
      'can-update-machine.version-updater',
    ]);
  });

  it('a replaced EXTENSION_TRANSPORT that does not dispatch in-process updaters fails start-up saying how to wrap it', async () => {
    const plain = { post: () => Promise.reject(new Error('unused')) };
    const replaced = Test.createTestingModule({
      imports: [
        ControllerRuntimeModule.forRoot({ kubeconfig: () => kubeConfigFor(env) }),
        ExtensionConfigModule.forRoot(),
        VersionProviderModule,
      ],
    })
      .overrideProvider(EXTENSION_TRANSPORT)
      .useValue(plain)
      .compile();
    await expect(replaced.then((m) => m.init())).rejects.toThrow(
      'EXTENSION_TRANSPORT (Object) does not dispatch the in-process updaters version-updater: wrap the replacement, new InProcessAwareTransport(',
    );
  });

  it('the same updater registered by two modules fails start-up naming both', async () => {
    @Module({ imports: [VersionProviderModule], providers: [{ provide: IN_PLACE_UPDATERS, useClass: VersionUpdater }] })
    class AnotherProviderModule {}
    await expect(compile(env, VersionProviderModule, AnotherProviderModule)).rejects.toThrow(
      'in-place updater "version-updater" is registered twice: VersionUpdater in VersionProviderModule and VersionUpdater in AnotherProviderModule',
    );
  });
});
