// Runs the example of docs/writing-an-extension.md through the real runtime client, and checks the doc shows this code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compare, applyPatch, type Operation } from 'fast-json-patch';
import { decodePatch, type HookObject } from '@capi/api';
import {
  discoverExtension,
  type ExtensionConfig,
  ExtensionRegistry,
  HttpsExtensionTransport,
  RuntimeClient,
} from '@capi/runtime-client';
import { startVersionUpdater, type VersionUpdater } from '../../src/module/docs-example';

const machine = (version: string): HookObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'worker-1', namespace: 'default' },
  spec: { clusterName: 'c', version },
});
const infra = (image: string): HookObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
  kind: 'DevMachine',
  metadata: { name: 'worker-1', namespace: 'default' },
  spec: { image },
});
const apply = (obj: HookObject, p: { patchType?: 'JSONPatch' | 'JSONMergePatch'; patch?: string } | undefined) =>
  p ? (applyPatch(structuredClone(obj), decodePatch(p).document as Operation[]).newDocument as HookObject) : obj;

describe('docs/writing-an-extension.md example', () => {
  let updater: VersionUpdater;
  let client: RuntimeClient;
  const transport = new HttpsExtensionTransport();
  const forObject = { metadata: { namespace: 'default' } };

  beforeAll(async () => {
    updater = await startVersionUpdater();
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'version-updater' },
      spec: { clientConfig: { url: updater.server.url, caBundle: updater.server.caBundle } },
    };
    const registry = new ExtensionRegistry();
    registry.warmUp([await discoverExtension(ec, transport)]);
    client = new RuntimeClient(registry, transport, async () => ({}));
  });
  afterAll(async () => {
    transport.close();
    await updater.server.close();
  });

  it('is the code the doc shows', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/writing-an-extension.md'), 'utf8');
    const code = readFileSync(join(__dirname, '../../src/module/docs-example.ts'), 'utf8');
    expect(doc).toContain('```ts\n' + code + '```');
  });

  it('discovery registers its three handlers', async () => {
    expect(await client.getAllExtensions('UpdateMachine', forObject)).toEqual(['update-machine.version-updater']);
    expect(await client.getAllExtensions('CanUpdateMachineSet', forObject)).toEqual([
      'can-update-machineset.version-updater',
    ]);
  });

  it('CanUpdateMachine: the patch covers a version change, and only that', async () => {
    const current = { machine: machine('v1.30.0'), infrastructureMachine: infra('a') };
    const res = await client.callExtension('CanUpdateMachine', forObject, 'can-update-machine.version-updater', {
      apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
      kind: 'CanUpdateMachineRequest',
      current,
      desired: { machine: machine('v1.31.0'), infrastructureMachine: infra('b') },
    });
    const patched = apply(current.machine, res.machinePatch);
    expect(compare(patched, machine('v1.31.0'))).toEqual([]);
    // Nothing claimed for the infra change: the caller's coverage check fails and falls back to a rollout.
    expect(res.infrastructureMachinePatch).toBeUndefined();
  });

  it('CanUpdateMachineSet patches spec.template.spec.version', async () => {
    const ms = (version: string): HookObject => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineSet',
      metadata: { name: 'ms', namespace: 'default' },
      spec: { template: { spec: { version } } },
    });
    const tmpl: HookObject = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevMachineTemplate',
      metadata: { name: 't' },
      spec: { template: { spec: {} } },
    };
    const res = await client.callExtension('CanUpdateMachineSet', forObject, 'can-update-machineset.version-updater', {
      apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
      kind: 'CanUpdateMachineSetRequest',
      current: { machineSet: ms('v1.30.0'), infrastructureMachineTemplate: tmpl },
      desired: { machineSet: ms('v1.31.0'), infrastructureMachineTemplate: tmpl },
    });
    expect(apply(ms('v1.30.0'), res.machineSetPatch)).toEqual(ms('v1.31.0'));
  });

  it('UpdateMachine asks to retry, then completes, then stays completed (idempotent)', async () => {
    const call = () =>
      client.callAllExtensions('UpdateMachine', forObject, {
        apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
        kind: 'UpdateMachineRequest',
        desired: { machine: machine('v1.31.0'), infrastructureMachine: infra('a') },
      });
    expect(await call()).toMatchObject({
      status: 'Success',
      retryAfterSeconds: 5,
      message: 'upgrading kubelet to v1.31.0',
    });
    expect(await call()).toMatchObject({ status: 'Success', retryAfterSeconds: 0, message: 'running v1.31.0' });
    expect(updater.hostVersions.get('default/worker-1')).toBe('v1.31.0');
    expect(await call()).toMatchObject({ retryAfterSeconds: 0, message: 'running v1.31.0' });
  });

  it('a thrown error becomes status Failure, which the runtime client reports as an error', async () => {
    const bad = { ...machine('x'), spec: {} };
    await expect(
      client.callExtension('UpdateMachine', forObject, 'update-machine.version-updater', {
        apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
        kind: 'UpdateMachineRequest',
        desired: { machine: bad, infrastructureMachine: infra('a') },
      }),
    ).rejects.toMatchObject({
      reason: 'Failure',
      message: expect.stringContaining('desired.machine.spec.version is required'),
    });
  });
});
