// Manager entry point (`npm start -- <flags>`). Exit codes: 0 ok / --help / graceful shutdown on a signal, 2 bad flags,
// 1 start-up failure, crash or exit request (see lifecycle/exit-reporting.ts).
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { resolve } from 'node:path';
import { StorageDamagedError } from '@capi/apiserver';
import { LiveViewListenError, LiveViewService } from '@capi/live-view';
import { DEFAULT_DATA_DIR, loadManagerConfig, type ManagerConfig } from './config/config';
import { ConfigError, usage } from './config/flags';
import { ControllerSetupError, ControllerUnavailableError } from './controllers/registry';
import { EXIT_CODES, ExitReporting } from './lifecycle/exit-reporting';
import { applyHeapGrowingPercent } from './lifecycle/heap';
import { JsonLogger, LOGGER, NestStartupLogger } from './logging/logger';
import { ListenError } from './metrics/http-endpoint';
import { ApiAccessError } from './config/api-access';
import { DataDirInUseError } from './embedded/data-dir-lock';
import { buildManagerModule, EMBEDDED_STARTED, type EmbeddedStarted } from './manager.module';
import { DeferredManagerExit, MANAGER_EXIT } from './runtime-sdk/warm-up-exit';

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let loaded;
  try {
    loaded = loadManagerConfig(argv, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`error: ${e.message}\n`);
      return EXIT_CODES.badFlags;
    }
    throw e;
  }
  if (loaded.help) {
    process.stdout.write(usage());
    return EXIT_CODES.ok;
  }
  // From here on every exit reports itself (signal, crash, start-up failure, exit request, last word on 'exit').
  const reporting = new ExitReporting({
    log: JsonLogger.create({ level: 'info', format: loaded.config.logFormat }),
  }).install();
  try {
    await start(loaded.config, reporting);
  } catch (e) {
    const { code, message } = startUpFailure(e, loaded.config.controllersDefaulted);
    process.stderr.write(`error: ${message}\n`);
    reporting.exit(code, `start-up failed: ${message}`, isNamedFailure(e) ? undefined : { stack: (e as Error)?.stack });
  }
  return -1; // keep running until a signal or an exit request
}

/** Period of the timer that keeps the process alive (it does nothing; the longest a Node timer can wait). */
const KEEP_ALIVE_INTERVAL_MS = 2 ** 31 - 1;

async function start(config: ManagerConfig, reporting: ExitReporting): Promise<void> {
  applyHeapGrowingPercent(config.heapGrowingPercent);
  // Runs until a signal or an exit request, as upstream's mgr.Start(ctx): with no endpoint to serve and an API server
  // it cannot reach (informers retrying on unref'd timers), the event loop would run dry and the process exit 0.
  const keepAlive = setInterval(() => undefined, KEEP_ALIVE_INTERVAL_MS);
  const root = buildManagerModule(config);
  // Nest logs through the manager's logger from the first line: nothing is buffered while providers start (a start-up
  // that waits would hide every line), and a start-up failure is reported once, by main.
  const app = await NestFactory.createApplicationContext(root, {
    logger: new NestStartupLogger(JsonLogger.create({ level: config.logLevel, format: config.logFormat })),
    abortOnError: false,
  });
  const log = app.get<JsonLogger>(LOGGER);
  app.useLogger(log);
  // A signal closes the app (controllers, endpoints, embedded API server) before the process exits.
  reporting.setShutdown(async () => {
    clearInterval(keepAlive);
    await app.close();
  });
  try {
    await app.init();
  } catch (e) {
    // Stop what did start (embedded API server, endpoints) before reporting the failure.
    await app.close().catch(() => undefined);
    throw e;
  }
  const embedded = app.get<EmbeddedStarted>(EMBEDDED_STARTED);
  if (embedded?.kubeconfigPath) {
    log.info('embedded API server ready', { logger: 'manager', kubeconfig: embedded.kubeconfigPath });
    process.stdout.write(embeddedBanner(embedded.kubeconfigPath));
  }
  if (config.liveView) process.stdout.write(`Live view: http://${app.get(LiveViewService).address}/\n`);
  log.info('manager started', { logger: 'manager' });
  // A fatal condition found after start-up (the registry warm-up gave up) stops the process like upstream's manager.
  const exit = app.get(MANAGER_EXIT);
  if (exit instanceof DeferredManagerExit)
    exit.onRequest((code, reason) => void reporting.shutdownAndExit(code, reason));
}

/** Failures whose message says it all (a flag, a port, a controller precondition): no stack on the exit line. */
function isNamedFailure(e: unknown): boolean {
  return (
    e instanceof ListenError ||
    e instanceof LiveViewListenError ||
    e instanceof ApiAccessError ||
    e instanceof DataDirInUseError ||
    e instanceof ControllerUnavailableError ||
    e instanceof ControllerSetupError ||
    e instanceof StorageDamagedError ||
    (e instanceof Error && e.message.startsWith('invalid --'))
  );
}

/** Exit code and one-line message of a start-up failure. */
function startUpFailure(e: unknown, controllersDefaulted: boolean): { code: number; message: string } {
  if (e instanceof ControllerUnavailableError) {
    // Asking for a controller that cannot run is a bad flag; the default set failing is a start-up failure.
    if (controllersDefaulted)
      return { code: EXIT_CODES.failure, message: `${e.message} (run a subset with --controllers)` };
    return { code: EXIT_CODES.badFlags, message: `invalid --controllers: ${e.message}` };
  }
  return { code: EXIT_CODES.failure, message: (e as Error)?.message ?? String(e) };
}

/** What `npm start` prints for people (logs go to stderr). */
export function embeddedBanner(kubeconfigPath: string, cwd = process.cwd()): string {
  // The demo finds the default data dir's kubeconfig by itself.
  const demoArgs =
    kubeconfigPath === resolve(cwd, DEFAULT_DATA_DIR, 'kubeconfig') ? '' : ` -- --kubeconfig ${kubeconfigPath}`;
  return [
    `Embedded API server ready. kubeconfig: ${kubeconfigPath}`,
    `  kubectl --kubeconfig ${kubeconfigPath} get machines -A`,
    `  npm run demo${demoArgs}    # creates a cluster, then an in-place and a rollout update`,
    '',
  ].join('\n');
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (e: Error) => {
      process.stderr.write(`error: ${e?.message ?? String(e)}\n`);
      process.exit(EXIT_CODES.failure);
    },
  );
}
