// End to end: the updater over HTTPS, discovered and called through the runtime client.
import { HOOKS_API_VERSION, decodePatch } from '@capi/api';
import { extensionConfigFor } from '@capi/envtest';
import { discoverExtension, ExtensionRegistry, HttpsExtensionTransport, RuntimeClient } from '@capi/runtime-client';
import { type RunningInPlaceUpdater, startInPlaceUpdater } from '@capi/inplace-updater';

describe('startInPlaceUpdater', () => {
  let updater: RunningInPlaceUpdater;
  const transport = new HttpsExtensionTransport();
  const registry = new ExtensionRegistry();
  const client = new RuntimeClient(registry, transport, async () => ({}));
  let now = 0;
  const forObject = { metadata: { namespace: 'default' } };
  const m = (version: string) => ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'm', namespace: 'default' },
    spec: { version },
  });
  const infra = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'DevMachine',
    metadata: { name: 'm', namespace: 'default' },
    spec: {},
  };

  beforeAll(async () => {
    updater = await startInPlaceUpdater({ now: () => now, random: () => 0 });
    registry.warmUp([await discoverExtension(extensionConfigFor('inplace-updater', updater), transport)]);
  });
  afterAll(async () => {
    transport.close();
    await updater.stop();
  });

  it('registers the three hooks', () => {
    expect(registry.list().map((r) => r.name)).toEqual([
      'can-update-machine.inplace-updater',
      'can-update-machineset.inplace-updater',
      'update-machine.inplace-updater',
    ]);
  });

  it('CanUpdateMachine returns a base64 JSON patch for the version change', async () => {
    const resp = await client.callExtension('CanUpdateMachine', forObject, 'can-update-machine.inplace-updater', {
      apiVersion: HOOKS_API_VERSION,
      kind: 'CanUpdateMachineRequest',
      current: { machine: m('v1.30.0'), infrastructureMachine: infra },
      desired: { machine: m('v1.31.0'), infrastructureMachine: infra },
    });
    expect(decodePatch(resp.machinePatch!).document).toEqual([
      { op: 'replace', path: '/spec/version', value: 'v1.31.0' },
    ]);
  });

  it('UpdateMachine goes from in progress to done', async () => {
    const req = {
      apiVersion: HOOKS_API_VERSION,
      kind: 'UpdateMachineRequest' as const,
      desired: { machine: m('v1.31.0'), infrastructureMachine: infra },
    };
    expect(await client.callAllExtensions('UpdateMachine', forObject, req)).toMatchObject({
      retryAfterSeconds: 5,
      message: 'Extension is updating Machine',
    });
    now += 16_000;
    expect(await client.callAllExtensions('UpdateMachine', forObject, req)).toMatchObject({
      retryAfterSeconds: 0,
      message: 'Extension completed updating Machine',
    });
  });

  it('a malformed request becomes a Failure response, the server keeps running', async () => {
    await expect(
      client.callExtension('UpdateMachine', forObject, 'update-machine.inplace-updater', {
        apiVersion: HOOKS_API_VERSION,
        kind: 'UpdateMachineRequest',
      } as never),
    ).rejects.toMatchObject({
      reason: 'Failure',
      message: expect.stringContaining('request field desired must be an object'),
    });
    expect(await client.getAllExtensions('UpdateMachine', forObject)).toHaveLength(1);
  });
});
