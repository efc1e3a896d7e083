// Child-process entry of the etcd-chaos bench: the manager against an external kube-apiserver (--kubeconfig and the
// other flags from the parent) with the in-memory provider and the zero-latency reference updater added as a module,
// as the embedded default adds them (apps/manager/src/manager.module.ts); JSON log lines on stdout. Prints
// {"ready":true} once started. Besides the manager's log, one {"updater":...} line each time the updater's host backend
// applies an update, saying whether the update was performed afresh (an "in progress" answer came first) or was an
// idempotent repeat of a completed one: the updater's side of "UpdateMachine completed twice".
// Usage: node -r @swc-node/register etcd-chaos-manager.ts <manager flags...>
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { CanUpdateMachineObjects, HookObject } from '@capi/api';
import { INMEMORY_HOST_BACKEND, type InMemoryHostBackend } from '@capi/inmemory';
import {
  applyHeapGrowingPercent,
  buildManagerModule,
  EmbeddedProviderModule,
  JsonLogger,
  LOGGER,
  loadManagerConfig,
} from '@capi/manager';

/** What a line of the child's stdout says the updater did. */
export interface UpdaterLine {
  updater: 'completed';
  machine: string;
  fresh: boolean;
}

/** Counts the host backend's updates per Machine: fresh after a beginUpdate, else a repeat of a completed one. */
function reportHostUpdates(backend: InMemoryHostBackend): void {
  const begun = new Set<string>();
  const keyOf = (m: HookObject) => `${m.metadata?.namespace ?? ''}/${m.metadata?.name ?? ''}`;
  const begin = backend.beginUpdate?.bind(backend);
  const apply = backend.applyUpdate.bind(backend);
  backend.beginUpdate = async (machine: HookObject, desired: CanUpdateMachineObjects) => {
    begun.add(keyOf(machine));
    await begin?.(machine, desired);
  };
  backend.applyUpdate = async (machine: HookObject, desired: CanUpdateMachineObjects) => {
    await apply(machine, desired);
    const key = keyOf(machine);
    const line: UpdaterLine = { updater: 'completed', machine: key, fresh: begun.delete(key) };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  };
}

async function main(argv: string[]): Promise<void> {
  const loaded = loadManagerConfig(argv, {});
  if (loaded.help) throw new Error('unexpected --help');
  applyHeapGrowingPercent(loaded.config.heapGrowingPercent);
  const logger = JsonLogger.create({ level: 'info', destination: { write: (s: string) => process.stdout.write(s) } });
  const root = buildManagerModule(loaded.config, {
    providers: [{ provide: LOGGER, useValue: logger }],
    // Workload servers in this process: one child less on a machine the bench shares with etcd and kube-apiserver.
    modules: [
      EmbeddedProviderModule.forRoot({
        provisioningDelayMs: 0,
        workloadServers: 'in-process',
        updater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 },
      }),
    ],
  });
  const app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  app.useLogger(logger);
  await app.init();
  // Before any update: the rollout starts once the parent has read {"ready":true}.
  reportHostUpdates(app.get<InMemoryHostBackend>(INMEMORY_HOST_BACKEND, { strict: false }));
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const stop = () => void app.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  // A bench killed with SIGKILL cannot stop its children: the manager goes once it is orphaned.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(1), 1000).unref();
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`error: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
