// Manager entry point (`npm start -- <flags>`). Exit codes: 0 ok / --help, 2 bad flags, 1 start-up failure.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR, loadManagerConfig } from './config/config';
import { ConfigError, usage } from './config/flags';
import { ControllerUnavailableError } from './controllers/registry';
import { LOGGER, type JsonLogger } from './logging/logger';
import { buildManagerModule, EMBEDDED_STARTED, type EmbeddedStarted } from './manager.module';
import { DeferredManagerExit, MANAGER_EXIT } from './runtime-sdk/warm-up-exit';

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let loaded;
  try {
    loaded = loadManagerConfig(argv, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (loaded.help) {
    process.stdout.write(usage());
    return 0;
  }
  let root;
  try {
    root = buildManagerModule(loaded.config);
  } catch (e) {
    if (e instanceof ControllerUnavailableError) {
      // Asking for a controller that cannot run is a bad flag; the default set failing is a start-up failure.
      if (loaded.config.controllersDefaulted) {
        process.stderr.write(`error: ${e.message} (run a subset with --controllers)\n`);
        return 1;
      }
      process.stderr.write(`error: invalid --controllers: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const app = await NestFactory.createApplicationContext(root, { bufferLogs: true, abortOnError: false });
  const log = app.get<JsonLogger>(LOGGER);
  app.useLogger(log);
  app.enableShutdownHooks();
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
  log.info('manager started', { logger: 'manager' });
  // A fatal condition found after start-up (the registry warm-up gave up) stops the process like upstream's manager.
  const exit = app.get(MANAGER_EXIT);
  if (exit instanceof DeferredManagerExit) {
    exit.onRequest((code) => void app.close().catch(() => undefined).finally(() => process.exit(code)));
  }
  return -1; // keep running until a signal or an exit request
}

/** What `npm start` prints for people (logs go to stderr). */
export function embeddedBanner(kubeconfigPath: string, cwd = process.cwd()): string {
  // The demo finds the default data dir's kubeconfig by itself.
  const demoArgs = kubeconfigPath === resolve(cwd, DEFAULT_DATA_DIR, 'kubeconfig') ? '' : ` -- --kubeconfig ${kubeconfigPath}`;
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
      process.exit(1);
    },
  );
}
