// The example provider's manager: the @capi controllers it wants plus its own module, built with buildManagerModule.
//   node dist/main.js [manager flags]     (defaults in defaults.ts: its own data dir, metrics and health ports)
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import {
  buildManagerModule,
  ConfigError,
  EMBEDDED_STARTED,
  JsonLogger,
  LOGGER,
  loadManagerConfig,
  usage,
  type EmbeddedStarted,
} from '@capi/manager';
import { withExampleDefaults } from './defaults';
import { ExampleProviderModule } from './provider.module';

async function main(argv: string[]): Promise<void> {
  const args = withExampleDefaults(argv);
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
  const kubeconfigPath = app.get<EmbeddedStarted>(EMBEDDED_STARTED)?.kubeconfigPath;
  app.get<JsonLogger>(LOGGER).info('example provider started', { logger: 'example', kubeconfig: kubeconfigPath });
  // As `npm start` does: where the embedded API server's kubeconfig is, for kubectl and the smoke check.
  if (kubeconfigPath)
    process.stdout.write(
      `Example provider ready. kubeconfig: ${kubeconfigPath}\n  node dist/smoke.js ${kubeconfigPath}\n`,
    );
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
