// Child-process entry of the benches that run the manager in a process of its own (rollout, etcd-chaos): the manager
// built as its main does (apps/manager/src/main.ts: buildManagerModule, applyHeapGrowingPercent) against the API
// server of --kubeconfig, with the in-memory provider (--embedded-provider, --embedded-workload-servers) running the
// zero-latency reference updater, which main.ts has no flags for; JSON log lines at --log-level on stdout. Prints
// {"ready":true} once started. Besides the manager's log, one {"updater":...} line each time the updater's host
// backend applies an update, saying whether the update was performed afresh (an "in progress" answer came first) or
// was an idempotent repeat of a completed one: the updater's side of "UpdateMachine completed twice".
// Usage: node <deploy/build.mjs --project tools/bench/tsconfig.manager-child.json output>/tools/bench/manager-child.js
// <manager flags...> (manager-process.ts builds and runs it), or node -r @swc-node/register manager-child.ts from source.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { CanUpdateMachineObjects, HookObject } from '@capi/api';
import { INMEMORY_HOST_BACKEND, type InMemoryHostBackend } from '@capi/inmemory';
import {
  applyHeapGrowingPercent,
  buildManagerModule,
  JsonLogger,
  LOGGER,
  loadManagerConfig,
  type EmbeddedProviderOptions,
} from '@capi/manager';

/** Zero-latency provider and updater: VMs boot at once, UpdateMachine completes on its second call. */
export const ZERO_LATENCY: EmbeddedProviderOptions = {
  provisioningDelayMs: 0,
  updater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 },
};

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
  const logger = JsonLogger.create({
    level: loaded.config.logLevel,
    destination: { write: (s: string) => process.stdout.write(s) },
  });
  if (!loaded.config.embeddedProvider) throw new Error('the bench manager needs --embedded-provider');
  const root = buildManagerModule(loaded.config, {
    providers: [{ provide: LOGGER, useValue: logger }],
    embeddedProvider: ZERO_LATENCY,
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

if (require.main === module)
  main(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`error: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
