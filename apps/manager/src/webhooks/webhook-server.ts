// The manager's webhook server: serves the WEBHOOK_REGISTRATIONS as upstream's manager serves its webhooks
// (core/main.go: webhook.NewServer with --webhook-port/--webhook-cert-dir/--webhook-cert-name/--webhook-key-name,
// "webhook" readyz and healthz checks from StartedChecker). It starts while the providers are resolved, before any
// controller or leader election, as controller-runtime starts webhook servers before the other runnables (serving
// needs no leadership), and in the embedded default it registers its configurations with the embedded API server.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import { isNotFound, NoKindMatchError } from '@capi/controller-runtime';
import {
  MUTATING_WEBHOOK_CONFIGURATION,
  VALIDATING_WEBHOOK_CONFIGURATION,
  webhookConfigurations,
  WebhookServer,
  type WebhookConfiguration,
  type WebhookRegistration,
} from '@capi/webhooks';
import type { ManagerConfig } from '../config/config';
import { ensureEmbeddedWebhookCerts, WEBHOOK_CERT_NAME, WEBHOOK_KEY_NAME } from '../embedded/webhook-certs';
import type { CheckRegistry } from '../health/health';
import type { JsonLogger } from '../logging/logger';

/** Token of the running webhook server (`RunningWebhookServer`). */
export const WEBHOOK_SERVER = Symbol.for('capi.WebhookServer');

export interface RunningWebhookServer {
  /** Undefined when none runs: --webhook-port=0, or no webhook registered. */
  server?: WebhookServer;
  /** Embedded default: the URL the configurations point at and the CA (base64 PEM) that verifies the server. */
  url?: string;
  caBundle?: string;
  stop(): Promise<void>;
}

/** Field manager of what the embedded default registers (as updater-registration.ts). */
const FIELD_MANAGER = 'capi-embedded';

/**
 * Applies both webhook configurations (server-side apply, forced: a restart moves the port and may renew the CA),
 * pointing at `url` and trusting `caBundle`. Returns the applied objects.
 */
export async function registerWebhookConfigurations(
  client: Client,
  registrations: readonly WebhookRegistration[],
  url: string,
  caBundle: string,
  fieldManager = FIELD_MANAGER,
): Promise<WebhookConfiguration[]> {
  const { mutating, validating } = webhookConfigurations(registrations, { url, caBundle });
  const applied: WebhookConfiguration[] = [];
  for (const c of [mutating, validating])
    applied.push(
      (await client.apply(c as unknown as KubeObject, {
        fieldManager,
        force: true,
      })) as unknown as WebhookConfiguration,
    );
  return applied;
}

/**
 * Deletes both configurations (absent ones, or an API server without the kinds, are fine). For the embedded default
 * started without its webhook server: its data dir keeps what a previous run registered, and with failurePolicy Fail
 * a configuration pointing at a server that no longer runs refuses every write of its kinds.
 */
export async function unregisterWebhookConfigurations(client: Client): Promise<void> {
  for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
    const name = kind.startsWith('Mutating') ? MUTATING_WEBHOOK_CONFIGURATION : VALIDATING_WEBHOOK_CONFIGURATION;
    try {
      await client.delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind, name });
    } catch (e) {
      if (!(e instanceof NoKindMatchError) && !isNotFound(e)) throw e;
    }
  }
}

export interface StartWebhookServerDeps {
  config: ManagerConfig;
  registrations: readonly WebhookRegistration[];
  client: Client;
  log: JsonLogger;
  health: CheckRegistry;
  readiness: CheckRegistry;
}

export async function startWebhookServer(d: StartWebhookServerDeps): Promise<RunningWebhookServer> {
  const { config, registrations, log } = d;
  const none = { stop: async () => undefined };
  if (config.webhook.port === 0) {
    log.info('webhook server disabled (--webhook-port=0)', { logger: 'webhook' });
    return none;
  }
  // controller-runtime adds its webhook server to the manager only when a webhook registers on it.
  if (registrations.length === 0) return none;
  const embedded = config.apiServer.mode === 'embedded';
  const certFile = join(config.webhook.certDir, config.webhook.certName);
  if (!embedded && !config.webhook.portGiven && !existsSync(certFile)) {
    // Ours: upstream's manager fails here. Without a --webhook-port asking for the server, a manager run outside a
    // pod that mounts a certificate (a developer's --kubeconfig, a test) starts without webhooks and says so.
    log.warn(
      `webhook server not started: no certificate at ${certFile} (mount one as deploy/ does, or pass --webhook-port)`,
      {
        logger: 'webhook',
      },
    );
    return none;
  }
  const certs = embedded ? await ensureEmbeddedWebhookCerts(config.dataDir) : undefined;
  const logger = {
    info: (m: string, f?: Record<string, unknown>) => log.info(m, { logger: 'webhook', ...f }),
    error: (m: string, f?: Record<string, unknown>) => log.error(m, { logger: 'webhook', ...f }),
  };
  const make = (port: number) =>
    new WebhookServer({
      registrations,
      port,
      // The embedded default stays on loopback, as its API server and endpoints do.
      host: embedded ? '127.0.0.1' : undefined,
      certDir: certs?.certDir ?? config.webhook.certDir,
      certName: certs ? WEBHOOK_CERT_NAME : config.webhook.certName,
      keyName: certs ? WEBHOOK_KEY_NAME : config.webhook.keyName,
      logger,
    });
  let server = make(config.webhook.port);
  try {
    await server.start();
  } catch (e) {
    // Only the embedded default may move: its configurations are registered with whatever port it gets.
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !embedded || config.webhook.portGiven) {
      certs?.cleanup();
      throw new Error(`webhook server: cannot listen on port ${config.webhook.port}: ${(e as Error).message}`);
    }
    log.warn(`webhook port ${config.webhook.port} is in use: listening on a free port`, { logger: 'webhook' });
    server = make(0);
    await server.start();
  }
  d.readiness.add('webhook', server.startedChecker());
  d.health.add('webhook', server.startedChecker());
  const running: RunningWebhookServer = {
    server,
    stop: async () => {
      await server.stop();
      certs?.cleanup();
    },
  };
  if (!certs) return running;
  running.url = `https://127.0.0.1:${server.port}`;
  running.caBundle = certs.caBundle;
  const url = running.url;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  // Registered in the background until it succeeds: an API server not answering yet must not stop the start-up.
  const register = async (): Promise<void> => {
    try {
      await registerWebhookConfigurations(d.client, registrations, url, certs.caBundle);
      log.info('webhook configurations registered', { logger: 'webhook', url });
    } catch (e) {
      // An embedded API server without admissionregistration.k8s.io cannot call webhooks: the server still serves.
      if (e instanceof NoKindMatchError || isNotFound(e)) {
        log.warn('the embedded API server does not serve admissionregistration.k8s.io/v1: webhooks not registered', {
          logger: 'webhook',
        });
        return;
      }
      log.warn(
        `webhook configurations not registered yet, retrying in ${REGISTER_RETRY_MS} ms: ${(e as Error).message}`,
        {
          logger: 'webhook',
        },
      );
      if (!stopped) retry = setTimeout(() => void register(), REGISTER_RETRY_MS).unref();
    }
  };
  await register();
  const stop = running.stop;
  running.stop = async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await stop();
  };
  return running;
}

/** How long to wait before registering the configurations again after a failure. */
const REGISTER_RETRY_MS = 2000;

/** Stops the webhook server on shutdown. */
@Injectable()
export class WebhookServerShutdown implements OnApplicationShutdown {
  constructor(@Inject(WEBHOOK_SERVER) private readonly running: RunningWebhookServer) {}

  async onApplicationShutdown(): Promise<void> {
    await this.running.stop();
  }
}
