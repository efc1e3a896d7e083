// In-process updaters through the real RuntimeClient: registry entries + in-process dispatch, composed with an
// HTTPS extension, failure policy on throw and hang, response validation.
import { encodePatch, type CanUpdateMachineRequest, type UpdateMachineRequest } from '@capi/api';
import {
  createExtensionServer,
  discoverExtension,
  ExtensionCallError,
  ExtensionRegistry,
  type ExtensionServer,
  HttpsExtensionTransport,
  type InPlaceUpdater,
  InProcessAwareTransport,
  InProcessUpdaters,
  RuntimeClient,
} from '@capi/runtime-client';
import { InPlaceUpdaterRegistrationError } from '../../src/in-process/in-process-updaters';

const forObject = { metadata: { namespace: 'default' } };
const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'default' },
  spec: { version: 'v1.31.0' },
};
const canUpdateMachineRequest = {
  apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
  kind: 'CanUpdateMachineRequest',
  current: { machine, infrastructureMachine: { object: {} }, bootstrapConfig: { object: {} } },
  desired: {
    machine: { ...machine, spec: { version: 'v1.31.1' } },
    infrastructureMachine: { object: {} },
    bootstrapConfig: { object: {} },
  },
} as unknown as CanUpdateMachineRequest;
const versionPatch = encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: 'v1.31.1' }]);

function setup(updaters: InPlaceUpdater[], https = new HttpsExtensionTransport()) {
  const table = new InProcessUpdaters();
  table.set(updaters.map((u, i) => ({ updater: u, source: `Updater${i} in TestModule` })));
  const registry = new ExtensionRegistry();
  registry.warmUp([]);
  registry.setInProcess(table.registrations());
  const transport = new InProcessAwareTransport(https, table);
  return { table, registry, transport, client: new RuntimeClient(registry, transport, async () => ({})) };
}

describe('InProcessUpdaters registration', () => {
  const ok: InPlaceUpdater = { name: 'mine', canUpdateMachine: () => ({ status: 'Success' }) };
  it.each<[string, InPlaceUpdater[], RegExp]>([
    [
      'the same name twice',
      [ok, { ...ok }],
      /in-place updater "mine" is registered twice: Updater0 in TestModule and Updater1 in TestModule/,
    ],
    ['a name that is not a DNS label', [{ ...ok, name: 'My_Updater' }], /name "My_Updater" must be a DNS-1123 label/],
    [
      'no name',
      [{ canUpdateMachine: ok.canUpdateMachine } as unknown as InPlaceUpdater],
      /name undefined must be a DNS-1123 label/,
    ],
    [
      'no hook method',
      [{ name: 'empty' }],
      /"empty" \(Updater0 in TestModule\) implements none of canUpdateMachine, canUpdateMachineSet, updateMachine/,
    ],
    ['a timeout above 30 s', [{ ...ok, timeoutSeconds: 31 }], /timeoutSeconds 31 must be an integer between 1 and 30/],
    [
      'an unknown failure policy',
      [{ ...ok, failurePolicy: 'Sometimes' as never }],
      /failurePolicy must be one of Fail, Ignore, got "Sometimes"/,
    ],
  ])('rejects %s at start-up, naming the updater', (_what, updaters, message) => {
    expect(() =>
      new InProcessUpdaters().set(updaters.map((u, i) => ({ updater: u, source: `Updater${i} in TestModule` }))),
    ).toThrow(InPlaceUpdaterRegistrationError);
    expect(() =>
      new InProcessUpdaters().set(updaters.map((u, i) => ({ updater: u, source: `Updater${i} in TestModule` }))),
    ).toThrow(message);
  });

  it('registers one handler per implemented hook, named like discovered handlers, with the updater timeout and policy', () => {
    const { registry } = setup([
      {
        name: 'mine',
        timeoutSeconds: 3,
        failurePolicy: 'Ignore',
        canUpdateMachine: () => ({ status: 'Success' }),
        updateMachine: () => ({ status: 'Success', retryAfterSeconds: 0 }),
      },
    ]);
    expect(registry.list().map((r) => [r.name, r.gvh.hook, r.timeoutSeconds, r.failurePolicy])).toEqual([
      ['can-update-machine.mine', 'CanUpdateMachine', 3, 'Ignore'],
      ['update-machine.mine', 'UpdateMachine', 3, 'Ignore'],
    ]);
    // An ExtensionConfig with the updater's name is shadowed by it (one registration per name).
    registry.add({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'mine' },
      spec: { clientConfig: { url: 'https://ext.example' } },
      status: {
        handlers: [
          {
            name: 'can-update-machine.mine',
            requestHook: { apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1', hook: 'CanUpdateMachine' },
          },
        ],
      },
    } as never);
    expect(
      registry
        .list()
        .filter((r) => r.name === 'can-update-machine.mine')
        .map((r) => r.clientConfig.url),
    ).toEqual(['https://mine.in-process.invalid']);
    expect(registry.get('can-update-machine.mine')?.clientConfig.url).toBe('https://mine.in-process.invalid');
    // ExtensionConfig warm-ups and removals leave in-process registrations alone.
    registry.warmUp([]);
    registry.remove('mine');
    expect(registry.get('update-machine.mine')).toBeDefined();
  });
});

describe('RuntimeClient with in-process updaters', () => {
  let ext: ExtensionServer;
  beforeAll(async () => {
    ext = await createExtensionServer({
      tls: 'generate',
      handlers: [
        {
          hook: 'CanUpdateMachine',
          name: 'can-update-machine',
          handle: () => ({
            machinePatch: encodePatch('JSONPatch', [{ op: 'add', path: '/spec/failureDomain', value: 'fd2' }]),
          }),
        },
      ],
    });
  });
  afterAll(async () => ext?.close());

  it('only in-process: calls the updater with a JSON copy of the request and validates its answer', async () => {
    const seen: CanUpdateMachineRequest[] = [];
    const { client } = setup([
      {
        name: 'mine',
        canUpdateMachine: (req) => {
          seen.push(structuredClone(req));
          (req as { mutated?: boolean }).mutated = true;
          return { status: 'Success', machinePatch: versionPatch };
        },
      },
    ]);
    expect(await client.getAllExtensions('CanUpdateMachine', forObject)).toEqual(['can-update-machine.mine']);
    const res = await client.callAllExtensions('CanUpdateMachine', forObject, canUpdateMachineRequest);
    expect(res).toMatchObject({
      apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
      kind: 'CanUpdateMachineResponse',
      status: 'Success',
    });
    const single = await client.callExtension(
      'CanUpdateMachine',
      forObject,
      'can-update-machine.mine',
      canUpdateMachineRequest,
    );
    expect(single.machinePatch).toEqual(versionPatch);
    expect(seen[0]).toEqual(canUpdateMachineRequest);
    expect((canUpdateMachineRequest as { mutated?: boolean }).mutated).toBeUndefined();
  });

  it('both composed: the in-process updater and an ExtensionConfig-registered extension, in registration-name order', async () => {
    const { client, registry, transport } = setup([
      { name: 'mine', canUpdateMachine: () => ({ status: 'Success', machinePatch: versionPatch }) },
    ]);
    const ec = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'https-ext' },
      spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle } },
    };
    registry.add(await discoverExtension(ec as never, transport));
    expect(await client.getAllExtensions('CanUpdateMachine', forObject)).toEqual([
      'can-update-machine.https-ext',
      'can-update-machine.mine',
    ]);
    const fromHttps = await client.callExtension(
      'CanUpdateMachine',
      forObject,
      'can-update-machine.https-ext',
      canUpdateMachineRequest,
    );
    const fromProcess = await client.callExtension(
      'CanUpdateMachine',
      forObject,
      'can-update-machine.mine',
      canUpdateMachineRequest,
    );
    expect([fromHttps.machinePatch, fromProcess.machinePatch]).toEqual([
      encodePatch('JSONPatch', [{ op: 'add', path: '/spec/failureDomain', value: 'fd2' }]),
      versionPatch,
    ]);
  });

  it('UpdateMachine: retryAfterSeconds and messages are aggregated like any extension', async () => {
    const { client } = setup([
      { name: 'a', updateMachine: () => ({ status: 'Success', retryAfterSeconds: 7, message: 'a is updating' }) },
      { name: 'b', updateMachine: async () => ({ status: 'Success', retryAfterSeconds: 3, message: 'b is updating' }) },
    ]);
    const res = await client.callAllExtensions('UpdateMachine', forObject, {
      desired: canUpdateMachineRequest.desired,
    } as unknown as UpdateMachineRequest);
    expect(res).toMatchObject({ status: 'Success', retryAfterSeconds: 3, message: 'a is updating, b is updating' });
  });

  it('a throwing updater: failurePolicy Fail surfaces a TransportError naming it; Ignore counts as an empty Success', async () => {
    const boom = () => {
      throw new Error('cannot reach the host agent');
    };
    const fail = setup([{ name: 'thrower', canUpdateMachine: boom }]).client;
    const err = await fail
      .callExtension('CanUpdateMachine', forObject, 'can-update-machine.thrower', canUpdateMachineRequest)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtensionCallError);
    expect(err).toMatchObject({
      reason: 'TransportError',
      message: expect.stringContaining('in-process updater "thrower" threw: cannot reach the host agent'),
    });
    const ignore = setup([{ name: 'thrower', failurePolicy: 'Ignore', canUpdateMachine: boom }]).client;
    expect(
      await ignore.callExtension('CanUpdateMachine', forObject, 'can-update-machine.thrower', canUpdateMachineRequest),
    ).toMatchObject({ status: 'Success', message: '' });
  });

  it('a hanging updater times out after its timeoutSeconds (Timeout, subject to the failure policy)', async () => {
    const hang = () => new Promise<never>(() => undefined);
    const { client } = setup([{ name: 'hanger', timeoutSeconds: 1, updateMachine: hang }]);
    const started = Date.now();
    const err = await client
      .callExtension('UpdateMachine', forObject, 'update-machine.hanger', {} as UpdateMachineRequest)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      reason: 'Timeout',
      message: expect.stringContaining('in-process updater "hanger" did not answer within 1s'),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    const ignored = setup([{ name: 'hanger', timeoutSeconds: 1, failurePolicy: 'Ignore', updateMachine: hang }]).client;
    expect(
      await ignored.callExtension('UpdateMachine', forObject, 'update-machine.hanger', {} as UpdateMachineRequest),
    ).toMatchObject({ status: 'Success', retryAfterSeconds: 0 });
  });

  it('a malformed patch or a Failure answer is handled as from an HTTPS extension', async () => {
    const { client } = setup([
      {
        name: 'bad-patch',
        canUpdateMachine: () => ({ status: 'Success', machinePatch: { patchType: 'XMLPatch', patch: '!!' } as never }),
      },
      { name: 'refuses', canUpdateMachine: () => ({ status: 'Failure', message: 'not today' }) },
    ]);
    await expect(
      client.callExtension('CanUpdateMachine', forObject, 'can-update-machine.bad-patch', canUpdateMachineRequest),
    ).rejects.toMatchObject({
      reason: 'MalformedResponse',
      message: expect.stringContaining('machinePatch'),
    });
    await expect(
      client.callExtension('CanUpdateMachine', forObject, 'can-update-machine.refuses', canUpdateMachineRequest),
    ).rejects.toMatchObject({
      reason: 'Failure',
      message:
        'failed to call extension handler "can-update-machine.refuses": got failure response with message: not today',
    });
  });
});
