// Upstream's warm-up runnable returns an error after 60 s without a fully discovered registry, and the manager exits
// with it. Here: when ExtensionConfigModule reports the warm-up gave up, log one line naming the ExtensionConfigs and
// ask main() to stop the process with a non-zero code — except in the embedded default, whose API server would stop
// with the process (see RegistryWarmUpExit).
import { Inject, Injectable, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { ExtensionConfigController, WarmUpTimeoutError } from '@capi/runtime-client';
import { LOGGER, type JsonLogger } from '../logging/logger';

/** Exit code of a manager that gave up on its ExtensionConfig registry warm-up (upstream: os.Exit(1)). */
export const WARM_UP_FAILED_EXIT_CODE = 1;

/**
 * Token of the process exit request: `request(code)`; main() closes the app and exits with the first code requested.
 * Override it in tests to observe the request instead of ending the process.
 */
export const MANAGER_EXIT = Symbol.for('capi.ManagerExit');

export interface ManagerExit {
  request(code: number, reason: string): void;
}

/** The default: keeps the first request until main() subscribes (a request may come before main() is ready). */
export class DeferredManagerExit implements ManagerExit {
  private pending?: { code: number; reason: string };
  private handler?: (code: number, reason: string) => void;

  request(code: number, reason: string): void {
    if (this.pending) return;
    this.pending = { code, reason };
    this.handler?.(code, reason);
  }

  onRequest(handler: (code: number, reason: string) => void): void {
    this.handler = handler;
    if (this.pending) handler(this.pending.code, this.pending.reason);
  }
}

/** Token of where the API server runs, for the warm-up failure: the embedded one dies with the process. */
export const WARM_UP_API_SERVER = Symbol.for('capi.WarmUpApiServer');

export interface WarmUpApiServer {
  embedded: boolean;
  /** The embedded API server's kubeconfig file, for the line saying how to fix the ExtensionConfig. */
  kubeconfigPath?: string;
}

@Injectable()
export class RegistryWarmUpExit implements OnApplicationBootstrap {
  constructor(
    @Inject(LOGGER) private readonly log: JsonLogger,
    @Inject(MANAGER_EXIT) private readonly exit: ManagerExit,
    // Absent when the extensionconfig controller does not run (RuntimeSDK off or not in --controllers).
    @Optional() private readonly extensionConfigs?: ExtensionConfigController,
    @Optional() @Inject(WARM_UP_API_SERVER) private readonly apiServer?: WarmUpApiServer,
  ) {}

  onApplicationBootstrap(): void {
    this.extensionConfigs?.onWarmUpFailure((error) => {
      const names = error instanceof WarmUpTimeoutError ? error.extensionConfigs : [];
      const what = names.length
        ? `could not discover ExtensionConfig(s) ${names.join(', ')}`
        : 'could not list ExtensionConfigs';
      const fields = { logger: 'manager', extensionConfigs: names, error: error.message };
      if (this.apiServer?.embedded) {
        // Exiting would take the embedded API server down with the process, and with it the only way to fix the
        // object: the next start would fail the same way. The ExtensionConfigs stay Discovered=False instead, and the
        // warm-up is retried, so hooks work again once they are fixed.
        this.log.error(
          `ExtensionConfig registry warm-up failed: ${what}; ${embeddedFix(names, this.apiServer)}`,
          fields,
        );
        void this.extensionConfigs!.keepWarmingUp();
        return;
      }
      const message = `ExtensionConfig registry warm-up failed: ${what}; exiting`;
      this.log.error(message, fields);
      this.exit.request(WARM_UP_FAILED_EXIT_CODE, message);
    });
  }
}

/** What to do about undiscovered ExtensionConfigs on the embedded API server. */
function embeddedFix(names: string[], apiServer: WarmUpApiServer): string {
  const kubectl = `kubectl${apiServer.kubeconfigPath ? ` --kubeconfig ${apiServer.kubeconfigPath}` : ''}`;
  const target = names.length ? names.map((n) => `extensionconfig/${n}`).join(' ') : 'extensionconfig/<name>';
  return (
    'the embedded API server keeps running, the warm-up is retried and hooks fail until then: fix their ' +
    `spec.clientConfig (${kubectl} edit ${target}) or delete them (${kubectl} delete ${target})`
  );
}
