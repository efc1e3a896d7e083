// Starts the embedded manager in-process (what `npm start` runs): API server with CRDs, controllers, in-memory
// provider, reference updater and its ExtensionConfig. Used by `npm run demo -- --embedded` and the e2e test.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type Client } from '@capi/controller-runtime';
import {
  JsonLogger,
  KUBECONFIG,
  LOGGER,
  buildManagerModule,
  loadManagerConfig,
  type EmbeddedProviderOptions,
} from '@capi/manager';

export interface EmbeddedManager {
  app: INestApplicationContext;
  /** The embedded API server's kubeconfig (YAML). */
  kubeconfig: string;
  /** A client of its own (not the manager's), as an outside user would have. */
  client: Client;
  stop(): Promise<void>;
}

/** Short delays (VMs boot at once, an update completes on the second UpdateMachine call a second later). */
export const FAST_TIMINGS: EmbeddedProviderOptions = {
  provisioningDelayMs: 0,
  updater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 },
};

export interface StartEmbeddedOptions {
  /** Extra manager flags (e.g. --controllers); --data-dir= and disabled endpoints are always set. */
  flags?: string[];
  provider?: EmbeddedProviderOptions;
  /** Where manager logs go (default: discarded). */
  logDestination?: { write(s: string): void };
}

export async function startEmbeddedManager(opts: StartEmbeddedOptions = {}): Promise<EmbeddedManager> {
  const loaded = loadManagerConfig(
    ['--data-dir=', '--metrics-bind-address=0', '--health-probe-bind-address=0', ...(opts.flags ?? [])],
    {},
  );
  if (loaded.help) throw new Error('unexpected --help');
  const logger = JsonLogger.create({ level: 'info', destination: opts.logDestination ?? { write: () => undefined } });
  const root = buildManagerModule(loaded.config, {
    embeddedProvider: opts.provider,
    providers: [{ provide: LOGGER, useValue: logger }],
  });
  const app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  app.useLogger(logger);
  try {
    await app.init();
  } catch (e) {
    await app.close().catch(() => undefined);
    throw e;
  }
  const kubeconfig = app.get<string>(KUBECONFIG);
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const client = new KubeClient(kc);
  return {
    app,
    kubeconfig,
    client,
    stop: async () => {
      client.close();
      await app.close();
    },
  };
}
