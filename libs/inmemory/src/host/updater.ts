// The reference in-place updater (apps/inplace-updater) wired to the in-memory host backend: same hooks and answers,
// plus the InMemoryMachine(Template) fields it can change, and the host actually changes when UpdateMachine completes.
import type { UpdateMachineRequest } from '@capi/api';
import { createExtensionServer } from '@capi/runtime-client';
import {
  HANDLER_NAMES,
  InPlaceUpdaterHandlers,
  type AcceptedChanges,
  type InPlaceUpdaterOptions,
  type RunningInPlaceUpdater,
  type StartInPlaceUpdaterOptions,
} from '@capi/inplace-updater';
import type { InMemoryHostBackend } from './backend';

/** InMemoryMachine fields an updater can change in place (`spec.image` deliberately is not one). */
export const INMEMORY_ACCEPTED_CHANGES: AcceptedChanges = {
  InMemoryMachine: ['spec.resources', 'spec.backend.inMemory.vmBootstrapTimeout'],
  InMemoryMachineTemplate: ['spec.template.spec.resources', 'spec.template.spec.backend.inMemory.vmBootstrapTimeout'],
};

/** Updater options with the in-memory kinds added (explicit `acceptedChanges` entries win per kind). */
export const withInMemoryAcceptedChanges = <T extends InPlaceUpdaterOptions>(
  opts: T,
): T & { acceptedChanges: AcceptedChanges } => ({
  ...opts,
  acceptedChanges: { ...INMEMORY_ACCEPTED_CHANGES, ...opts.acceptedChanges },
});

type UpdateMachineAnswer = ReturnType<InPlaceUpdaterHandlers['updateMachine']>;

/**
 * UpdateMachine through the reference handlers, then on the host: beginUpdate while in progress, applyUpdate once
 * completed. A backend error becomes the hook's Failure (the Machine controller retries with backoff; the handlers
 * keep answering "completed" for the same desired state, so the host update is retried).
 */
export async function updateMachineOnHost(
  handlers: InPlaceUpdaterHandlers,
  backend: InMemoryHostBackend,
  req: UpdateMachineRequest,
): Promise<UpdateMachineAnswer> {
  const answer = handlers.updateMachine(req);
  if (answer.status !== 'Success') return answer;
  const { machine } = req.desired;
  if (answer.retryAfterSeconds === 0) await backend.applyUpdate(machine, req.desired);
  else await backend.beginUpdate?.(machine, req.desired);
  return answer;
}

export interface StartInMemoryInPlaceUpdaterOptions extends StartInPlaceUpdaterOptions {
  backend: InMemoryHostBackend;
}

/** Starts the reference updater over HTTPS with the in-memory backend; register it with an ExtensionConfig. */
export async function startInMemoryInPlaceUpdater(
  opts: StartInMemoryInPlaceUpdaterOptions,
): Promise<RunningInPlaceUpdater> {
  const { backend, ...rest } = opts;
  const handlers = new InPlaceUpdaterHandlers(withInMemoryAcceptedChanges(rest));
  const server = await createExtensionServer({
    host: rest.host,
    port: rest.port,
    tls: rest.tls ?? 'generate',
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
      {
        hook: 'UpdateMachine',
        name: HANDLER_NAMES.UpdateMachine,
        handle: (req) => updateMachineOnHost(handlers, backend, req),
      },
    ],
  });
  return { url: server.url, caBundle: server.caBundle, stop: () => server.close() };
}
