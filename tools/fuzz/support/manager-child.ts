// Child-process entry for the manager chaos test: the embedded manager (API server on SQLite in --data-dir, all
// controllers, in-memory provider, zero-latency reference updater), logging JSON lines to stdout. Prints
// {"ready":true,"kubeconfig":...} once started. Usage: node -r @swc-node/register manager-child.ts <dataDir> [flags...]
import 'reflect-metadata';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { JsonLogger, LOGGER, buildManagerModule, loadManagerConfig } from '@capi/manager';
import { ZERO_LATENCY } from '../../bench/manager-child';

async function main(dataDir: string, flags: string[]): Promise<void> {
  const loaded = loadManagerConfig(
    [`--data-dir=${dataDir}`, '--metrics-bind-address=0', '--health-probe-bind-address=0', ...flags],
    {},
  );
  if (loaded.help) throw new Error('unexpected --help');
  const logger = JsonLogger.create({ level: 'info', destination: { write: (s: string) => process.stdout.write(s) } });
  const root = buildManagerModule(loaded.config, {
    embeddedProvider: ZERO_LATENCY,
    providers: [{ provide: LOGGER, useValue: logger }],
  });
  const app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  app.useLogger(logger);
  await app.init();
  // Against an external API server (--kubeconfig) that is the kubeconfig to report; else the embedded one's.
  const kubeconfig = loaded.config.kubeconfig ?? join(dataDir, 'kubeconfig');
  process.stdout.write(`${JSON.stringify({ ready: true, kubeconfig })}\n`);
}

main(process.argv[2], process.argv.slice(3)).catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
