// A kubelet-version updater: it can change a Machine's spec.version in place, nothing else.
import { encodePatch, type HookObject, type Patch } from '@capi/api';
import { createExtensionServer, type ExtensionServer, type TlsMaterial } from '@capi/runtime-client';

/** RFC 6902 patch that copies desired's version (at `path` under the object) into current; [] when equal. */
function versionPatch(current: HookObject, desired: HookObject, path: string[]): Patch {
  const get = (o: unknown) => path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
  const want = get(desired);
  if (want === undefined || get(current) === want) return encodePatch('JSONPatch', []);
  return encodePatch('JSONPatch', [{ op: 'add', path: '/' + path.join('/'), value: want }]);
}

export interface VersionUpdater {
  server: ExtensionServer;
  /** Versions the fake "host" of each Machine ("ns/name") runs; a real updater would talk to the host. */
  hostVersions: Map<string, string>;
}

/** Starts the extension. `stepsPerUpdate` = UpdateMachine calls an update takes (the first ones answer "retry"). */
export async function startVersionUpdater(
  opts: { tls?: TlsMaterial | 'generate'; stepsPerUpdate?: number } = {},
): Promise<VersionUpdater> {
  const steps = opts.stepsPerUpdate ?? 2;
  const hostVersions = new Map<string, string>();
  const progress = new Map<string, number>(); // "ns/name@version" -> calls seen
  const server = await createExtensionServer({
    tls: opts.tls ?? 'generate',
    handlers: [
      {
        hook: 'CanUpdateMachine',
        name: 'can-update-machine',
        // Only the Machine is patched: any other difference (infra, bootstrap) fails CAPI's coverage check → rollout.
        handle: (req) => ({
          machinePatch: versionPatch(req.current.machine, req.desired.machine, ['spec', 'version']),
        }),
      },
      {
        hook: 'CanUpdateMachineSet',
        name: 'can-update-machineset',
        handle: (req) => ({
          machineSetPatch: versionPatch(req.current.machineSet, req.desired.machineSet, [
            'spec',
            'template',
            'spec',
            'version',
          ]),
        }),
      },
      {
        hook: 'UpdateMachine',
        name: 'update-machine',
        timeoutSeconds: 5,
        handle: (req) => {
          const { metadata, spec } = req.desired.machine;
          const version = spec?.version;
          if (typeof version !== 'string') throw new Error('desired.machine.spec.version is required'); // → status: Failure
          const machine = `${metadata.namespace}/${metadata.name}`;
          if (hostVersions.get(machine) === version) return { retryAfterSeconds: 0, message: `running ${version}` }; // idempotent
          const key = `${machine}@${version}`;
          const calls = (progress.get(key) ?? 0) + 1;
          progress.set(key, calls);
          if (calls < steps) return { retryAfterSeconds: 5, message: `upgrading kubelet to ${version}` };
          progress.delete(key);
          hostVersions.set(machine, version);
          return { retryAfterSeconds: 0, message: `running ${version}` };
        },
      },
    ],
  });
  return { server, hostVersions };
}
