// KCP in-place update: CanUpdateMachine against the registered updaters (upstream
// controlplane/kubeadm/reconcilers/kubeadmcontrolplane/inplace_canupdatemachine.go) and the race-free trigger write
// order (inplace_trigger.go). Decisions about *whether* to try are in decide.ts; this file does the I/O.
import { Logger } from '@nestjs/common';
import {
  BOOTSTRAP_API_VERSION,
  CLUSTER_API_VERSION,
  HOOKS_API_VERSION,
  SUCCESSFUL_START_IN_PLACE_UPDATE_EVENT_REASON,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  reduceObjectForHook,
  type CanUpdateMachineRequest,
  type HookObject,
  type KubeadmConfig,
  type KubeadmConfigSpec,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  isForbidden,
  isInvalid,
  type Client,
  refOf,
  type ControllerHandle,
  type EventRecorder,
  type ReconcileLogger,
} from '@capi/controller-runtime';
import {
  canExtensionsUpdate,
  markAsPending,
  updatersAnnotation,
  type CoverageRuntimeClient,
  type UncoveredFields,
} from '@capi/inplace';
import type { ServerSideApplier } from '@capi/ssa';
import { KCP_MANAGER_NAME, SUCCESSFUL_START_IN_PLACE_UPDATE_MESSAGE } from './constants';
import { deferUntilMachineCached } from './machines';
import { prepareKubeadmConfigSpecsForDiff } from './kubeadm-diff';
import type { NotUpToDateResult } from './uptodate';

export interface InPlaceDeps {
  client: Client;
  applier: ServerSideApplier;
  runtimeClient?: CoverageRuntimeClient;
  events: EventRecorder;
  /** The reconcile's controller (ReconcileContext.controller); absent when a test calls the I/O directly. */
  controller?: ControllerHandle;
}

export class InPlaceTriggerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InPlaceTriggerError';
  }
}

export interface CanUpdateResult {
  canUpdate: boolean;
  reasons: string[];
  /** ExtensionConfigs whose patches make up the accepted change (recorded on the Machine for UpdateMachine). */
  updaters?: string[];
  /** Not canUpdate: no updater to ask (gate off, no runtime client, no CanUpdateMachine handler). */
  noUpdaters?: boolean;
  /** Not canUpdate: what stays uncovered after the updaters' patches, and the handlers asked (InPlaceOnly policy). */
  uncovered?: UncoveredFields[];
  asked?: string[];
}

/** What CanUpdateMachine needs: dry-run applies and the extensions (no events, no controller). */
export type CanUpdateDeps = Pick<InPlaceDeps, 'client' | 'applier' | 'runtimeClient'>;

const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

/** SSA dry-run (server defaults and merges with what other managers own); returns the server's view. */
async function dryRunApply<T extends KubeObject>(deps: CanUpdateDeps, obj: T): Promise<T> {
  const copy = structuredClone(obj);
  await deps.applier.patch(deps.client, copy, { fieldOwner: KCP_MANAGER_NAME, dryRun: true, noCache: true });
  return copy;
}

/**
 * Builds the CanUpdateMachine request (upstream createRequest in inplace_canupdatemachine.go). Returns reasons instead
 * when the InfraMachine dry-run is rejected as Invalid/Forbidden (not an error: the change simply can't be done in
 * place).
 */
export async function buildCanUpdateMachineRequest(
  deps: CanUpdateDeps,
  r: NotUpToDateResult,
): Promise<{ request: CanUpdateMachineRequest } | { reasons: string[] }> {
  const currentMachine = structuredClone(r.currentMachine);
  const currentKubeadmConfig = structuredClone(r.currentKubeadmConfig!);
  const desiredKubeadmConfig = structuredClone(r.desiredKubeadmConfig!);
  let currentInfra = structuredClone(r.currentInfraMachine!);
  let desiredInfra = structuredClone(r.desiredInfraMachine!);
  // Metadata differences must never count: give the current copies the desired labels/annotations.
  currentKubeadmConfig.metadata.labels = { ...(desiredKubeadmConfig.metadata.labels ?? {}) };
  currentKubeadmConfig.metadata.annotations = { ...(desiredKubeadmConfig.metadata.annotations ?? {}) };
  currentInfra.metadata.labels = { ...(desiredInfra.metadata.labels ?? {}) };
  currentInfra.metadata.annotations = { ...(desiredInfra.metadata.annotations ?? {}) };

  const desiredMachine = await dryRunApply(deps, r.desiredMachine);
  for (const which of ['current', 'desired'] as const) {
    try {
      if (which === 'current') currentInfra = await dryRunApply(deps, currentInfra);
      else desiredInfra = await dryRunApply(deps, desiredInfra);
    } catch (e) {
      if (isInvalid(e) || isForbidden(e))
        return { reasons: [`server side apply dry-run for ${which} InfraMachine failed: ${(e as Error).message}`] };
      throw e;
    }
  }
  const kc = prepareKubeadmConfigSpecsForDiff(
    desiredKubeadmConfig.spec as KubeadmConfigSpec,
    currentKubeadmConfig.spec as KubeadmConfigSpec,
    true,
  );
  currentKubeadmConfig.spec = kc.current;
  desiredKubeadmConfig.spec = kc.desired;

  const machineGvk = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine' };
  const kcGvk = { apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig' };
  const request: CanUpdateMachineRequest = {
    apiVersion: HOOKS_API_VERSION,
    kind: 'CanUpdateMachineRequest',
    current: {
      machine: reduceObjectForHook(currentMachine, machineGvk) as HookObject,
      infrastructureMachine: reduceObjectForHook(currentInfra) as HookObject,
      bootstrapConfig: reduceObjectForHook(currentKubeadmConfig, kcGvk) as HookObject,
    },
    desired: {
      machine: reduceObjectForHook(desiredMachine, machineGvk) as HookObject,
      infrastructureMachine: reduceObjectForHook(desiredInfra) as HookObject,
      bootstrapConfig: reduceObjectForHook(desiredKubeadmConfig, kcGvk) as HookObject,
    },
  };
  return { request };
}

/**
 * Upstream canUpdateMachine (inplace_canupdatemachine.go): gate off, missing objects or no CanUpdateMachine extension →
 * false; otherwise the composed coverage check of @capi/inplace. Errors are wrapped "failed to determine if Machine
 * <name> can be updated in-place".
 */
export async function canUpdateMachine(
  deps: CanUpdateDeps,
  r: NotUpToDateResult,
  gateEnabled: boolean,
): Promise<CanUpdateResult> {
  if (!gateEnabled) return { canUpdate: false, reasons: ['InPlaceUpdates feature gate is disabled'], noUpdaters: true };
  const missing = (
    [
      'desiredMachine',
      'currentInfraMachine',
      'desiredInfraMachine',
      'currentKubeadmConfig',
      'desiredKubeadmConfig',
    ] as const
  ).filter((k) => !r[k]);
  if (missing.length > 0) return { canUpdate: false, reasons: [`could not compute ${missing.join(', ')}`] };
  if (!deps.runtimeClient) return { canUpdate: false, reasons: ['no runtime client configured'], noUpdaters: true };
  const machine = r.currentMachine;
  try {
    const built = await buildCanUpdateMachineRequest(deps, r);
    if ('reasons' in built) return { canUpdate: false, reasons: built.reasons };
    const result = await canExtensionsUpdate({
      hook: 'CanUpdateMachine',
      runtimeClient: deps.runtimeClient,
      forObject: machine,
      request: built.request,
    });
    if (result.canUpdate) return { canUpdate: true, reasons: result.reasons, updaters: result.contributors };
    return {
      canUpdate: false,
      reasons: result.reasons,
      updaters: result.contributors,
      noUpdaters: result.extensions.length === 0,
      uncovered: result.uncovered,
      asked: result.extensions,
    };
  } catch (e) {
    throw new InPlaceTriggerError(
      `failed to determine if Machine ${machine.metadata.name} can be updated in-place: ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/**
 * Upstream triggerInPlaceUpdate (inplace_trigger.go), in this order: Machine update-in-progress (merge patch) →
 * InfraMachine SSA (annotations exactly cloned-from-*, update-in-progress; no labels) → KubeadmConfig SSA
 * (update-in-progress) → initConfiguration removal if still there → Machine SSA (desired spec) → pending-hooks
 * UpdateMachine (merge patch) → event. After each Machine marker the next reconcile of `kcp` waits until the cache
 * shows it. Re-entrant: a repeat skips step 1 and re-applies the rest.
 */
export async function triggerInPlaceUpdate(
  deps: InPlaceDeps,
  kcp: KubeadmControlPlane,
  machine: Machine,
  r: NotUpToDateResult,
  log: Pick<ReconcileLogger, 'log'> = new Logger('KcpInPlace'),
  updaters: string[] = [],
): Promise<Machine> {
  const name = key(machine);
  const fail = (e: unknown) =>
    new InPlaceTriggerError(
      `failed to complete triggering in-place update for Machine ${name}: ${(e as Error).message}`,
      { cause: e },
    );
  log.log(`Triggering in-place update for Machine ${name}`);

  if (!(UPDATE_IN_PROGRESS_ANNOTATION in (machine.metadata.annotations ?? {}))) {
    let marked: Machine;
    try {
      // With the marker, which updaters the accepted change belongs to (the Machine controller calls only those).
      marked = await deps.client.patch<Machine>(refOf(machine), 'merge', {
        metadata: { annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '', ...updatersAnnotation(updaters) } },
      });
    } catch (e) {
      throw new InPlaceTriggerError(
        `failed to trigger in-place update for Machine ${name} by setting the ${UPDATE_IN_PROGRESS_ANNOTATION} annotation: ${(e as Error).message}`,
        { cause: e },
      );
    }
    // Every later reconcile must see the marker, or it could pick a second Machine.
    deferUntilMachineCached(deps, kcp, marked);
  }

  if (!r.desiredInfraMachine)
    throw new InPlaceTriggerError(
      `failed to complete triggering in-place update for Machine ${name}, could not compute desired InfraMachine`,
    );
  if (!r.desiredKubeadmConfig)
    throw new InPlaceTriggerError(
      `failed to complete triggering in-place update for Machine ${name}, could not compute desired KubeadmConfig`,
    );
  const opts = { fieldOwner: KCP_MANAGER_NAME };
  try {
    const infra = structuredClone(r.desiredInfraMachine);
    const annotations = infra.metadata.annotations ?? {};
    delete infra.metadata.labels;
    infra.metadata.annotations = {
      [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: annotations[TEMPLATE_CLONED_FROM_NAME_ANNOTATION] ?? '',
      [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: annotations[TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION] ?? '',
      [UPDATE_IN_PROGRESS_ANNOTATION]: '',
    };
    await deps.applier.patch(deps.client, infra, { ...opts, original: r.currentInfraMachine });

    const kc: KubeadmConfig = structuredClone(r.desiredKubeadmConfig);
    delete kc.metadata.labels;
    kc.metadata.annotations = { [UPDATE_IN_PROGRESS_ANNOTATION]: '' };
    await deps.applier.patch(deps.client, kc, { ...opts, original: r.currentKubeadmConfig });
    // SSA cannot remove an initConfiguration owned by another manager; the written object tells.
    if (kc.spec.initConfiguration !== undefined) {
      await deps.client.patch(refOf(kc), 'merge', { spec: { initConfiguration: null } });
    }

    const desiredMachine: Machine = structuredClone(r.desiredMachine);
    await deps.applier.patch(deps.client, desiredMachine, { ...opts, original: machine });
    // Last: from now on the Machine controller calls UpdateMachine.
    await markAsPending(deps.client, desiredMachine, 'UpdateMachine');
    deferUntilMachineCached(deps, kcp, desiredMachine);
    log.log(`Completed triggering in-place update for Machine ${name}`);
    await deps.events.event(
      desiredMachine,
      'Normal',
      SUCCESSFUL_START_IN_PLACE_UPDATE_EVENT_REASON,
      SUCCESSFUL_START_IN_PLACE_UPDATE_MESSAGE,
    );
    return desiredMachine;
  } catch (e) {
    if (e instanceof InPlaceTriggerError) throw e;
    throw fail(e);
  }
}
