// Serves the reference updater over HTTPS (discovery + the three hooks), embeddable by the manager.
import { createExtensionServer, type TlsMaterial } from '@capi/runtime-client';
import { InPlaceUpdaterHandlers, type InPlaceUpdaterOptions } from './handlers';

export const HANDLER_NAMES = {
  CanUpdateMachine: 'can-update-machine',
  CanUpdateMachineSet: 'can-update-machineset',
  UpdateMachine: 'update-machine',
} as const;

export interface StartInPlaceUpdaterOptions extends InPlaceUpdaterOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Defaults to a generated self-signed certificate (returned as caBundle). */
  tls?: TlsMaterial | 'generate';
}

export interface RunningInPlaceUpdater {
  /** Put into ExtensionConfig spec.clientConfig.url. */
  url: string;
  /** base64 PEM for spec.clientConfig.caBundle. */
  caBundle: string;
  stop(): Promise<void>;
}

export async function startInPlaceUpdater(opts: StartInPlaceUpdaterOptions = {}): Promise<RunningInPlaceUpdater> {
  const handlers = new InPlaceUpdaterHandlers(opts);
  const server = await createExtensionServer({
    host: opts.host,
    port: opts.port,
    tls: opts.tls ?? 'generate',
    recordRequests: false,
    handlers: [
      {
        hook: 'CanUpdateMachine',
        name: HANDLER_NAMES.CanUpdateMachine,
        handle: (req) => handlers.canUpdateMachine(req),
      },
      {
        hook: 'CanUpdateMachineSet',
        name: HANDLER_NAMES.CanUpdateMachineSet,
        handle: (req) => handlers.canUpdateMachineSet(req),
      },
      { hook: 'UpdateMachine', name: HANDLER_NAMES.UpdateMachine, handle: (req) => handlers.updateMachine(req) },
    ],
  });
  return { url: server.url, caBundle: server.caBundle, stop: () => server.close() };
}
