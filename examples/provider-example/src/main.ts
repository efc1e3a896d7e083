// The example provider's manager: the @capi controllers it wants plus its own module, built with buildManagerModule.
//   node dist/main.js [manager flags]     (default --controllers=cluster,machineset,machine,extensionconfig)
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { buildManagerModule, ConfigError, JsonLogger, LOGGER, loadManagerConfig, usage } from '@capi/manager';
import { ExampleProviderModule } from './provider.module';

/**
 * No KubeadmControlPlane or MachineHealthCheck in this provider; the Cluster controller marks the infrastructure
 * provisioned (Machines wait for it); extensionconfig keeps HTTPS extensions possible.
 */
const DEFAULT_CONTROLLERS = '--controllers=cluster,machineset,machine,extensionconfig';

async function main(argv: string[]): Promise<void> {
  const args = argv.some((a) => a.startsWith('--controllers')) ? argv : [DEFAULT_CONTROLLERS, ...argv];
  let loaded;
  try {
    loaded = loadManagerConfig(args, process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (loaded.help) {
    process.stdout.write(usage());
    return;
  }
  const root = buildManagerModule(loaded.config, {
    modules: [ExampleProviderModule],
    // The embedded default's in-memory provider runs the workload clusters and bootstrap; its reference updater is
    // not wanted here: in-place updates go through the example's in-process updater only.
    embeddedProvider: { provisioningDelayMs: 0, updater: false },
  });
  const app = await NestFactory.createApplicationContext(root, { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get<JsonLogger>(LOGGER));
  app.enableShutdownHooks();
  await app.init();
  app.get<JsonLogger>(LOGGER).info('example provider started', { logger: 'example' });
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
