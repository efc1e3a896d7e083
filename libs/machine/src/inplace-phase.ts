// Executes the in-place phase decided by decideInPlaceStep (upstream
// core/reconcilers/machine/machine_controller_inplace_update.go): calls UpdateMachine on the updaters the change
// belongs to through the runtime client, honours retryAfterSeconds with the hook retry cache, completes in order.
import {
  HOOKS_API_VERSION,
  MachineGVK,
  UPDATE_IN_PROGRESS_ANNOTATION,
  annotationsMergePatch,
  isPending,
  reduceObjectForHook,
  type HookObject,
  type UpdateMachineRequest,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client, ReconcileLogger } from '@capi/controller-runtime';
import { HookRetryCache, IN_PLACE_UPDATERS_ANNOTATION, markAsDone, selectUpdateMachineHandlers } from '@capi/inplace';
import { aggregateResponses, type RuntimeClient } from '@capi/runtime-client';
import {
  decideAfterUpdateMachine,
  decideInPlaceStep,
  updatingReportFor,
  type InPlaceAction,
  type UpdateMachineOutcome,
  type UpdatingReport,
} from './inplace-decision';
import type { MachineObject } from './types';

export const UPDATE_MACHINE_HOOK = 'UpdateMachine';

export interface InPlaceContext {
  machine: MachineObject;
  /** undefined when not found. */
  infraMachine?: KubeObject;
  /** undefined when not referenced or not found. */
  bootstrapConfig?: KubeObject;
  /** Reading the referenced BootstrapConfig failed (other than NotFound): whether it exists is unknown. */
  bootstrapConfigUnreadable?: boolean;
  gateEnabled: boolean;
  /** The reconcile's logger (bound to the Machine). */
  log: ReconcileLogger;
}

export interface InPlaceResult {
  action: InPlaceAction;
  outcome?: UpdateMachineOutcome;
  updating?: UpdatingReport;
  requeueAfterMs?: number;
  /** Set when the reconcile must fail (rate-limited retry); the status is still written first. */
  error?: Error;
}

/** Inputs of decideInPlaceStep from the observed objects. */
export function inPlaceStateOf(ctx: InPlaceContext, retry: HookRetryCache): Parameters<typeof decideInPlaceStep>[0] {
  const m = ctx.machine;
  const marked = (o?: KubeObject) => !!o && UPDATE_IN_PROGRESS_ANNOTATION in (o.metadata.annotations ?? {});
  return {
    gateEnabled: ctx.gateEnabled,
    inProgress: marked(m),
    pending: isPending(UPDATE_MACHINE_HOOK, m),
    infrastructureProvisioned: m.status?.initialization?.infrastructureProvisioned === true,
    bootstrapDataSecretCreated: m.status?.initialization?.bootstrapDataSecretCreated === true,
    hasNodeRef: !!m.status?.nodeRef?.name,
    infraMachineFound: !!ctx.infraMachine,
    infraMachineMarked: marked(ctx.infraMachine),
    // Upstream isBootstrapConfigReadyForUpdate looks at the object, not the reference: a referenced BootstrapConfig
    // that is gone has nothing to mark, and the update goes on without it (as the request and the completion do).
    // One that could not be read is waited for: the update must not run on a desired state missing a part.
    hasBootstrapConfig: !!ctx.bootstrapConfig || !!ctx.bootstrapConfigUnreadable,
    bootstrapConfigMarked: marked(ctx.bootstrapConfig),
    retry: retry.get(m, UPDATE_MACHINE_HOOK),
  };
}

/** The UpdateMachine request: desired = the objects as stored now, reduced (upstream callUpdateMachineHook). */
export function buildUpdateMachineRequest(ctx: InPlaceContext): UpdateMachineRequest {
  if (!ctx.infraMachine) throw new Error('buildUpdateMachineRequest: InfraMachine is required');
  const desired: UpdateMachineRequest['desired'] = {
    machine: reduceObjectForHook(ctx.machine, { apiVersion: MachineGVK.apiVersion, kind: 'Machine' }) as HookObject,
    infrastructureMachine: reduceObjectForHook(ctx.infraMachine) as HookObject,
  };
  if (ctx.bootstrapConfig) desired.bootstrapConfig = reduceObjectForHook(ctx.bootstrapConfig) as HookObject;
  return { apiVersion: HOOKS_API_VERSION, kind: 'UpdateMachineRequest', desired };
}

/** Removes update-in-progress with a merge patch (no call when absent); returns the server's object. */
export async function removeUpdateInProgress(client: Client, obj: KubeObject): Promise<void> {
  const annotations = obj.metadata.annotations ?? {};
  if (!(UPDATE_IN_PROGRESS_ANNOTATION in annotations)) return;
  const next = { ...annotations };
  delete next[UPDATE_IN_PROGRESS_ANNOTATION];
  // The record of which updaters the update belongs to ends with it.
  delete next[IN_PLACE_UPDATERS_ANNOTATION];
  const patch = annotationsMergePatch(annotations, next);
  const { name, namespace } = obj.metadata;
  const updated = await client.patch<KubeObject>(
    { apiVersion: obj.apiVersion, kind: obj.kind, name: name!, namespace },
    'merge',
    patch,
  );
  obj.metadata.annotations = updated.metadata.annotations;
  obj.metadata.resourceVersion = updated.metadata.resourceVersion;
}

export class InPlacePhase {
  constructor(
    private readonly client: Client,
    private readonly runtimeClient: RuntimeClient | undefined,
    readonly retryCache: HookRetryCache,
  ) {}

  async run(ctx: InPlaceContext): Promise<InPlaceResult> {
    const action = decideInPlaceStep(inPlaceStateOf(ctx, this.retryCache));
    switch (action.type) {
      case 'Nothing':
        return { action };
      case 'CleanupOrphan':
        ctx.log.log(
          `UpdateMachine pending without ${UPDATE_IN_PROGRESS_ANNOTATION}: cleaning up orphaned hook and annotations`,
        );
        await this.complete(ctx);
        return { action };
      case 'WaitForOwner':
        ctx.log.log(`waiting for owning controller to mark UpdateMachine hook as pending`);
        return { action };
      case 'WaitForPreconditions':
        ctx.log.debug(`in-place update waits for ${action.missing.join(', ')}`);
        return { action };
      case 'FailInfraMachineMissing':
        return {
          action,
          updating: updatingReportFor(action),
          error: new Error('in-place update failed: InfraMachine not found'),
        };
      case 'WaitForMarkers':
        ctx.log.log(`waiting for ${action.missing.join(' and ')} to be marked for in-place update`);
        return { action };
      case 'WaitForRetry':
        return { action, updating: updatingReportFor(action), requeueAfterMs: action.remainingMs };
      case 'CallUpdateMachine':
        return this.callUpdateMachine(ctx, action);
    }
  }

  private async callUpdateMachine(ctx: InPlaceContext, action: InPlaceAction): Promise<InPlaceResult> {
    let outcome: UpdateMachineOutcome;
    try {
      outcome = decideAfterUpdateMachine(await this.invoke(ctx));
    } catch (e) {
      outcome = decideAfterUpdateMachine({ error: e });
    }
    const updating = updatingReportFor(outcome);
    switch (outcome.type) {
      case 'Failed': {
        const msg = (outcome.error as Error)?.message ?? String(outcome.error);
        ctx.log.error(`in-place update failed: ${msg}`);
        return { action, outcome, updating, error: new Error(`in-place update failed: ${msg}`) };
      }
      case 'InProgress':
        this.retryCache.set(ctx.machine, UPDATE_MACHINE_HOOK, outcome.retryAfterSeconds, outcome.message);
        return { action, outcome, updating, requeueAfterMs: outcome.retryAfterSeconds * 1000 };
      case 'Completed':
        this.retryCache.delete(ctx.machine, UPDATE_MACHINE_HOOK);
        await this.complete(ctx);
        // Logged once the completion is written: a crash before that means the hook is called again, not completed twice.
        ctx.log.log(`UpdateMachine hook completed${outcome.message ? `: ${outcome.message}` : ''}`);
        return { action, outcome };
    }
  }

  /**
   * The UpdateMachine handlers of the updaters recorded on the Machine (all when none were recorded), in the order the
   * Can* hooks were called (@capi/inplace selectUpdateMachineHandlers), in turn; the first error stops;
   * retryAfterSeconds aggregated (lowest non-zero).
   */
  private async invoke(ctx: InPlaceContext): Promise<{ retryAfterSeconds?: number; message?: string }> {
    if (!this.runtimeClient) throw new Error('no runtime client configured: cannot call the UpdateMachine hook');
    const { handlers, missing } = selectUpdateMachineHandlers(
      await this.runtimeClient.getAllExtensions('UpdateMachine', ctx.machine),
      ctx.machine,
    );
    if (missing.length > 0) {
      throw new Error(
        `no UpdateMachine handler registered for updater(s) ${missing.join(', ')} that accepted the in-place change (${IN_PLACE_UPDATERS_ANNOTATION})`,
      );
    }
    if (handlers.length === 0) throw new Error('no extensions registered for UpdateMachine hook');
    const request = buildUpdateMachineRequest(ctx);
    const responses = [];
    for (const name of handlers)
      responses.push(await this.runtimeClient.callExtension('UpdateMachine', ctx.machine, name, request));
    return aggregateResponses('UpdateMachine', responses);
  }

  /**
   * Completion order matters (upstream completeInPlaceUpdate): Machine, InfraMachine, BootstrapConfig markers, then
   * markAsDone last.
   */
  private async complete(ctx: InPlaceContext): Promise<void> {
    await removeUpdateInProgress(this.client, ctx.machine);
    if (ctx.infraMachine) await removeUpdateInProgress(this.client, ctx.infraMachine);
    else
      ctx.log.log(
        `InfraMachine of ${ctx.machine.metadata.name} not found during in-place update completion, skipping annotation removal`,
      );
    if (ctx.bootstrapConfig) await removeUpdateInProgress(this.client, ctx.bootstrapConfig);
    await markAsDone(this.client, ctx.machine, UPDATE_MACHINE_HOOK);
  }
}
