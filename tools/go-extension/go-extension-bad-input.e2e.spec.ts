// Bad answers from the Go extension (its --misbehave modes) through the embedded manager: a discovery advertising a
// hook version the catalog does not have, and an UpdateMachine answer that is not JSON. Each surfaces as a condition
// with upstream's reason on the object the call was made for, the manager keeps running, and once the extension
// answers properly again the update completes in place.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLUSTER_API_VERSION,
  DISCOVERED_CONDITION,
  ExtensionConfigGVK,
  IN_PLACE_UPDATE_FAILED_REASON,
  MACHINE_CONTROL_PLANE_LABEL,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UPDATING_CONDITION,
  type ExtensionConfig,
  type Machine,
} from '@capi/api';
import { eventually } from '@capi/envtest';
import { conditionOf, createNamespace, listMachines } from '../e2e/support';
import { startEmbeddedManager, type EmbeddedManager } from '../demo/embedded';
import { createDemoCluster, names, versionPatch, type DemoSpec } from '../demo/objects';
import { buildGoExtension, goExtensionConfig, startGoExtension, type GoExtension } from './go-extension';

jest.setTimeout(900_000);

const NAMESPACE_LABEL = { 'capi-inplace.test/go-extension': 'true' };
const spec: DemoSpec = {
  namespace: 'go-ext-bad',
  cluster: 'gb',
  controlPlaneReplicas: 3,
  workerReplicas: 1,
  version: 'v1.31.0',
  upgradeVersion: 'v1.31.1',
  image: 'img-1',
  newImage: 'img-2',
};
const FAST = ['--update-duration=1s', '--update-jitter=0s', '--retry-after-seconds=1'];

let dir: string;
let binary: string;
let manager: EmbeddedManager | undefined;
const running: GoExtension[] = [];

beforeAll(async () => {
  binary = await buildGoExtension((l) => process.stderr.write(`${l}\n`));
  dir = mkdtempSync(join(tmpdir(), 'go-extension-bad-'));
  manager = await startEmbeddedManager({ provider: { provisioningDelayMs: 0, updater: false } });
  await createNamespace(manager.client, spec.namespace, NAMESPACE_LABEL);
});

afterAll(async () => {
  await manager?.stop();
  for (const ext of running) await ext.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, args: string[], reuse?: GoExtension): Promise<GoExtension> {
  const ext = await startGoExtension({ binary, dir: join(dir, name), args, port: reuse?.port, tls: reuse?.tls });
  running.push(ext);
  return ext;
}

const getExtensionConfig = (name: string) => manager!.client.tryGet<ExtensionConfig>({ ...ExtensionConfigGVK, name });

async function worker(): Promise<Machine | undefined> {
  const workers = (await listMachines(manager!.client, spec.namespace)).filter(
    (m) => !(MACHINE_CONTROL_PLANE_LABEL in (m.metadata.labels ?? {})),
  );
  return workers.length === 1 ? workers[0] : undefined;
}

describe('the Go extension misbehaving, through the embedded manager', () => {
  it('a discovery with an unknown hook version: Discovered=False (NotDiscovered) naming the hook, no handlers', async () => {
    const ext = await start('unknown-version', ['--misbehave=unknown-hook-version']);
    await manager!.client.create(goExtensionConfig('go-extension-v99', ext, NAMESPACE_LABEL));
    const ec = await eventually(
      async () => {
        const got = await getExtensionConfig('go-extension-v99');
        return conditionOf(got, DISCOVERED_CONDITION)?.status === 'False' ? got : undefined;
      },
      { message: 'ExtensionConfig go-extension-v99 Discovered=False', timeoutMs: 60_000 },
    );
    const discovered = conditionOf(ec, DISCOVERED_CONDITION)!;
    // Upstream's reason (api/runtime/v1beta2 ExtensionConfigNotDiscoveredReason).
    expect(discovered.reason).toBe('NotDiscovered');
    expect(discovered.message).toContain('hooks.runtime.cluster.x-k8s.io/v1alpha99');
    expect(ec.status?.handlers ?? []).toEqual([]);
    await manager!.client.delete({ ...ExtensionConfigGVK, name: 'go-extension-v99' });
    await ext.stop();
  });

  it('an UpdateMachine answer that is not JSON: Updating=True (InPlaceUpdateFailed) on the Machine; fixed, the update completes in place', async () => {
    const client = manager!.client;
    const bad = await start('malformed', ['--misbehave=malformed-update-machine', ...FAST]);
    await client.create(goExtensionConfig('go-extension', bad, NAMESPACE_LABEL));
    await eventually(
      async () => conditionOf(await getExtensionConfig('go-extension'), DISCOVERED_CONDITION)?.status === 'True',
      { message: 'ExtensionConfig go-extension Discovered=True', timeoutMs: 60_000 },
    );
    await createDemoCluster((obj) => client.create(obj), spec);
    const created = await eventually(
      async () => {
        const m = await worker();
        return m?.status?.phase === 'Running' ? m : undefined;
      },
      { message: 'the worker Machine Running', timeoutMs: 180_000 },
    );

    await client.patch(
      {
        apiVersion: CLUSTER_API_VERSION,
        kind: 'MachineDeployment',
        namespace: spec.namespace,
        name: names(spec).machineDeployment,
      },
      'merge',
      versionPatch.machineDeployment(spec.upgradeVersion),
    );
    const failed = await eventually(
      async () => {
        const c = conditionOf(await worker(), UPDATING_CONDITION);
        return c?.reason === IN_PLACE_UPDATE_FAILED_REASON ? c : undefined;
      },
      { message: 'Updating=InPlaceUpdateFailed on the worker Machine', timeoutMs: 120_000 },
    );
    expect(failed.status).toBe('True');
    // As upstream: the condition points at the logs, where the decode error is.
    expect(failed.message).toBe('UpdateMachine hook failed: please check controller logs for errors');
    const during = (await worker())!;
    expect(during.metadata.uid).toBe(created.metadata.uid);
    expect(during.metadata.annotations?.[UPDATE_IN_PROGRESS_ANNOTATION]).toBeDefined();

    // The extension is fixed and restarted on the same address and certificate.
    await bad.stop();
    await start('fixed', FAST, bad);
    const done = await eventually(
      async () => {
        const m = await worker();
        const inProgress = m && UPDATE_IN_PROGRESS_ANNOTATION in (m.metadata.annotations ?? {});
        return m && !inProgress && conditionOf(m, UPDATING_CONDITION)?.status === 'False' ? m : undefined;
      },
      { message: 'the worker Machine updated in place after the extension was fixed', timeoutMs: 120_000 },
    );
    expect(done.metadata.uid).toBe(created.metadata.uid);
    expect(done.spec.version).toBe(spec.upgradeVersion);
  });
});
