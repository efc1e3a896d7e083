// MachineDeployment controller: snapshot → rollout planner → MachineSet applies → status. Decisions live in the
// planner (../rollout) and the pure helpers next to this file.
import { Inject, Optional } from '@nestjs/common';
import { realClock, type PassiveClock, jsonEqual, type KubeObject } from '@capi/apimachinery';
import { controlledBy, indexMachineSets, indexMachines } from '@capi/index';
import {
  CLUSTER_API_VERSION,
  MACHINE_DEPLOYMENT_FINALIZER,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  REVISION_ANNOTATION,
  type Cluster,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import {
  ApiEventRecorder,
  CACHE,
  CACHED_CLIENT,
  FEATURE_GATES,
  FeatureGates,
  KUBE_CLIENT,
  ReconcilerFor,
  isConflict,
  isNotFound,
  refOf,
  type Client,
  type EventRecorder,
  type InformerCache,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import {
  blocksReplacements,
  rolloutBlockedCondition,
  rolloutPolicyOf,
  type CoverageRuntimeClient,
  type RolloutBlockedConditionInput,
} from '@capi/inplace';
import { ContractVersionResolver } from '@capi/external';
import { RUNTIME_CLIENT } from '@capi/runtime-client';
import { ServerSideApplier } from '@capi/ssa';
import type { RolloutPlan } from '../rollout';
import { byName, deferUntilCached, deleteIgnoreNotFound, SECONDARY_EVENT_COALESCING } from '../shared/writes';
import { addFinalizerPatch, patchFinalizers, planChildDeletion, removeFinalizerPatch } from '../shared/finalizers';
import { MachineSetInPlaceChecker } from './can-update';
import { computeDesiredMachineSet } from './desired-ms';
import { clusterOwnershipPatch } from './cluster-ownership';
import {
  machineSetApplyFailedEvent,
  machineSetAppliedEvent,
  machineSetDeletedEvent,
  type MachineDeploymentEvent,
} from './events';
import { drainedOldMachineSets, machineSetWrites } from './plan-writes';
import { planMachineDeploymentRollout } from './plan-rollout';
import { assessInPlaceOnly } from './rollout-policy';
import { computeMachineDeploymentStatus } from './status';

export const MACHINEDEPLOYMENT_FIELD_MANAGER = 'capi-machinedeployment';
export const MACHINEDEPLOYMENT_CLOCK = Symbol.for('capi.machinedeployment.Clock');
/** Optional options object: `{ canUpdateCacheTtlMs }`. */
export const MACHINEDEPLOYMENT_OPTIONS = Symbol.for('capi.machinedeployment.Options');

export interface MachineDeploymentControllerOptions {
  canUpdateCacheTtlMs?: number;
  inPlaceOnlyRecheckMs?: number;
}

/** Default of MachineSetControllersOptions.inPlaceOnlyRecheckMs. */
export const DEFAULT_IN_PLACE_ONLY_RECHECK_MS = 60_000;

const MD = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment' };

const machineDeploymentForLabel = (obj: KubeObject): Request[] => {
  const name = obj.metadata.labels?.[MACHINE_DEPLOYMENT_NAME_LABEL];
  return name ? [{ namespace: obj.metadata.namespace, name }] : [];
};

@ReconcilerFor({
  name: 'machinedeployment',
  for: MD,
  owns: [{ apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet' }],
  // The planner reads Machine markers (pending-acknowledge-move, update-in-progress).
  watches: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Machine', map: machineDeploymentForLabel }],
  maxConcurrentReconciles: 4,
  // Each reconcile reads every Machine of the owner: coalesce their events so large sets do not spin (see the bench).
  coalesceSecondaryEvents: SECONDARY_EVENT_COALESCING,
})
export class MachineDeploymentReconciler implements Reconciler {
  private readonly clock: PassiveClock;
  private readonly gates: FeatureGates;
  /** Exposed for tests and metrics: how MachineSet pairs are checked for in-place updates. */
  readonly inPlaceChecker: MachineSetInPlaceChecker;
  private readonly events: EventRecorder;
  private readonly inPlaceOnlyRecheckMs: number;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(KUBE_CLIENT) directClient: Client,
    @Inject(ServerSideApplier) private readonly applier: ServerSideApplier,
    @Optional() @Inject(FEATURE_GATES) gates?: FeatureGates,
    @Optional() @Inject(RUNTIME_CLIENT) runtimeClient?: CoverageRuntimeClient,
    @Optional() @Inject(CACHE) cache?: InformerCache,
    @Optional() @Inject(MACHINEDEPLOYMENT_CLOCK) clock?: PassiveClock,
    @Optional() @Inject(MACHINEDEPLOYMENT_OPTIONS) options?: MachineDeploymentControllerOptions,
  ) {
    this.gates = gates ?? FeatureGates.defaults();
    this.clock = clock ?? realClock;
    this.inPlaceOnlyRecheckMs = options?.inPlaceOnlyRecheckMs ?? DEFAULT_IN_PLACE_ONLY_RECHECK_MS;
    this.events = new ApiEventRecorder(directClient, 'machinedeployment-controller', () => new Date(this.clock.now()));
    if (cache) {
      indexMachineSets(cache);
      indexMachines(cache);
    }
    this.inPlaceChecker = new MachineSetInPlaceChecker({
      client,
      resolver: new ContractVersionResolver(directClient),
      runtimeClient,
      now: () => this.clock.now(),
      ttlMs: options?.canUpdateCacheTtlMs,
    });
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    let md = await this.client.tryGet<MachineDeployment>({ ...MD, ...req });
    if (!md) return ctx.controller?.clearConsistencyStore(req);
    // The finalizer first, so an MD deleted right after its creation still deletes its MachineSets (upstream
    // Reconcile, finalizers.EnsureFinalizer): ownerReference garbage collection is not relied upon.
    const add = addFinalizerPatch(md, MACHINE_DEPLOYMENT_FINALIZER);
    if (add) md = await patchFinalizers(this.client, ctx, md, add);
    if (md.spec.paused) return;
    if (!md.metadata.deletionTimestamp) md = await this.ensureClusterOwnership(ctx, md);
    const { machineSets, machines } = await this.snapshot(md);
    if (md.metadata.deletionTimestamp) return this.reconcileDelete(ctx, md, machineSets);

    let plan: RolloutPlan | undefined;
    let failure: Error | undefined;
    let rolloutBlocked: RolloutBlockedConditionInput | undefined;
    try {
      const blocked = await this.assessRolloutPolicy(ctx, md, machineSets);
      rolloutBlocked = blocked.condition;
      plan = await this.plan(ctx, md, machineSets, machines, blocked.names);
      await this.apply(ctx, md, plan, machineSets);
      await this.syncRevision(ctx, md, plan);
      for (const ms of drainedOldMachineSets(plan, machineSets, machines)) {
        try {
          const deleted = await deleteIgnoreNotFound(this.client, {
            apiVersion: CLUSTER_API_VERSION,
            kind: 'MachineSet',
            namespace: ms.metadata.namespace,
            name: ms.metadata.name ?? '',
          });
          deferUntilCached(ctx, md, deleted); // upstream cleanupDeployment: until the cache shows it deleting
        } catch (e) {
          await this.record(md, machineSetDeletedEvent(ms, e as Error));
          throw e;
        }
        ctx.log.log(`deleted drained old MachineSet ${ms.metadata.name}`);
        await this.record(md, machineSetDeletedEvent(ms));
      }
    } catch (e) {
      failure = e as Error;
    }
    const error = failure
      ? { reason: (failure as { reason?: string }).reason ?? 'InternalError', message: failure.message }
      : undefined;
    const status = computeMachineDeploymentStatus({ md, machineSets, machines, error, rolloutBlocked }, this.clock);
    if (!jsonEqual(status, md.status ?? {})) {
      deferUntilCached(ctx, md, await this.client.updateStatus<MachineDeployment>({ ...md, status }));
    }
    if (failure) throw failure;
    // An updater can change its answer without an event here: ask again while the policy holds something back.
    if (rolloutBlocked?.status === 'True') return { requeueAfterMs: this.inPlaceOnlyRecheckMs };
  }

  /**
   * The InPlaceOnly rollout policy (this project's extension): old MachineSets the updaters do not cover, for the
   * planner to hold back, and the RolloutBlocked condition (undefined without the annotation: then it is removed).
   * OnDelete rollouts are the user's deletions, never the controller's replacements: not held back.
   */
  private async assessRolloutPolicy(
    ctx: ReconcileContext,
    md: MachineDeployment,
    machineSets: MachineSet[],
  ): Promise<{ names?: ReadonlySet<string>; condition?: RolloutBlockedConditionInput }> {
    const policy = rolloutPolicyOf(md);
    if (!blocksReplacements(policy) || md.spec.rollout?.strategy?.type === 'OnDelete')
      return { condition: rolloutBlockedCondition(policy, []) };
    const taken = new Set(machineSets.map((ms) => ms.metadata.name ?? ''));
    const inPlace = this.gates.enabled('InPlaceUpdates');
    const assessment = await assessInPlaceOnly({
      md,
      machineSets,
      now: new Date(this.clock.now()),
      desiredNewMS: (current) => computeDesiredMachineSet(md, current, taken),
      coverage: inPlace
        ? (oldMS, newMS) => this.inPlaceChecker.coverage(oldMS, newMS, ctx.log, { refreshNo: true })
        : undefined,
    });
    return { names: assessment.names, condition: rolloutBlockedCondition(policy, assessment.blocked) };
  }

  /**
   * The cluster-name label and the Cluster ownerReference (the Cluster's deletion deletes what it owns). Upstream fails
   * the reconcile while the Cluster does not exist; this one goes on without the reference and adds it once the Cluster
   * is there (a later reconcile), so a rollout does not wait for it.
   */
  private async ensureClusterOwnership(ctx: ReconcileContext, md: MachineDeployment): Promise<MachineDeployment> {
    const cluster = await this.client.tryGet<Cluster>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Cluster',
      namespace: md.metadata.namespace,
      name: md.spec.clusterName,
    });
    if (!cluster) {
      ctx.log.log(`Cluster ${md.metadata.namespace}/${md.spec.clusterName} not found: no ownerReference to it yet`);
      return md;
    }
    const patch = clusterOwnershipPatch(md, cluster);
    if (!patch) return md;
    const written = await this.client.patch<MachineDeployment>(refOf(md), 'merge', patch);
    deferUntilCached(ctx, md, written);
    return written;
  }

  /**
   * Upstream reconcileDelete: deletes the MD's MachineSets that are not deleting yet (they delete their Machines) and
   * waits for them (the owns watch brings it back as each goes); with none left, the finalizer goes.
   */
  private async reconcileDelete(
    ctx: ReconcileContext,
    md: MachineDeployment,
    machineSets: MachineSet[],
  ): Promise<void> {
    const plan = planChildDeletion(machineSets);
    if (plan.removeFinalizer) {
      ctx.controller?.clearConsistencyStore(
        { namespace: md.metadata.namespace, name: md.metadata.name! },
        md.metadata.uid,
      );
      const remove = removeFinalizerPatch(md, MACHINE_DEPLOYMENT_FINALIZER);
      if (remove) await patchFinalizers(this.client, ctx, md, remove);
      return;
    }
    for (const ms of plan.toDelete) {
      try {
        await deleteIgnoreNotFound(this.client, refOf(ms));
      } catch (e) {
        throw new Error(
          `failed to delete MachineSet ${ms.metadata.name} (MachineDeployment deleting): ${(e as Error).message}`,
        );
      }
      ctx.log.log(`MachineSet ${ms.metadata.name} deleting (MachineDeployment deleting)`);
    }
    ctx.log.log(`Waiting for MachineSets to be deleted: ${machineSets.map((ms) => ms.metadata.name).join(', ')}`);
  }

  /** MachineSets controlled by the MD, and the Machines controlled by those (from the controller-owner indexes). */
  private async snapshot(md: MachineDeployment): Promise<{ machineSets: MachineSet[]; machines: Machine[] }> {
    const ns = md.metadata.namespace;
    const owned = (
      await this.client.list<MachineSet>(
        CLUSTER_API_VERSION,
        'MachineSet',
        controlledBy(ns, 'MachineDeployment', md.metadata.name ?? ''),
      )
    ).items;
    const machineSets = owned.filter((ms) =>
      ms.metadata.ownerReferences?.some((r) => r.controller === true && (!r.uid || r.uid === md.metadata.uid)),
    );
    const perMachineSet = await Promise.all(
      // Read only (the cache's frozen objects, not copies): the planner and the status only read Machines.
      machineSets.map(
        async (ms) =>
          (
            await this.client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
              ...controlledBy(ns, 'MachineSet', ms.metadata.name ?? ''),
              readOnly: true,
            })
          ).items,
      ),
    );
    return { machineSets, machines: perMachineSet.flat().sort(byName) };
  }

  private plan(
    ctx: ReconcileContext,
    md: MachineDeployment,
    machineSets: MachineSet[],
    machines: Machine[],
    replacementsBlockedFor?: ReadonlySet<string>,
  ): Promise<RolloutPlan> | RolloutPlan {
    return planMachineDeploymentRollout({
      md,
      machineSets,
      machines,
      inPlaceUpdatesEnabled: this.gates.enabled('InPlaceUpdates'),
      canUpdateMachineSetInPlace: (oldMS, newMS) => this.inPlaceChecker.canUpdate(oldMS, newMS, ctx.log),
      now: () => new Date(this.clock.now()),
      replacementsBlockedFor,
    });
  }

  /**
   * Surfaces the current MachineSet's revision on the MD (upstream createOrUpdateMachineSetsAndSyncMachineDeploymentRevision):
   * the MachineSet controller remediates only on the current revision.
   */
  private async syncRevision(ctx: ReconcileContext, md: MachineDeployment, plan: RolloutPlan): Promise<void> {
    const revision = plan.newMS?.metadata.annotations?.[REVISION_ANNOTATION];
    if (revision === undefined || md.metadata.annotations?.[REVISION_ANNOTATION] === revision) return;
    const patched = await this.client.patch<MachineDeployment>(
      { ...MD, namespace: md.metadata.namespace, name: md.metadata.name ?? '' },
      'merge',
      { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } },
    );
    deferUntilCached(ctx, md, patched);
    // The status write below is an update: it needs the new resourceVersion.
    md.metadata.annotations = patched.metadata.annotations;
    md.metadata.resourceVersion = patched.metadata.resourceVersion;
  }

  private async apply(
    ctx: ReconcileContext,
    md: MachineDeployment,
    plan: RolloutPlan,
    machineSets: MachineSet[],
  ): Promise<void> {
    const current = new Map(machineSets.map((ms) => [ms.metadata.name ?? '', ms]));
    const accepted = (oldMS: MachineSet, newMS: MachineSet) => this.inPlaceChecker.acceptedUpdaters(oldMS, newMS);
    for (const { intent, original } of machineSetWrites(plan, current, accepted)) {
      const diff = plan.diffs.get(intent.metadata.name ?? '');
      try {
        await this.applier.patch(this.client, intent, { fieldOwner: MACHINEDEPLOYMENT_FIELD_MANAGER, original });
      } catch (e) {
        // Upstream stays silent when the MachineSet it updates is being deleted (the apply then conflicts or 404s).
        const gone = original?.metadata.deletionTimestamp && (isConflict(e) || isNotFound(e));
        if (!gone) await this.record(md, machineSetApplyFailedEvent(intent, !original, e as Error));
        throw e;
      }
      // Upstream defers after creates and after updates that changed the MachineSet; an apply the SSA cache proved a
      // no-op keeps the version the cache already has, so deferring on it does not wait.
      deferUntilCached(ctx, md, intent);
      ctx.log.log(
        `MachineSet ${intent.metadata.name}: ${diff?.summary ?? ''} ${diff?.otherChanges ?? ''} (${diff?.reason ?? ''})`,
      );
      if (diff) await this.record(md, machineSetAppliedEvent(intent, !original, diff));
    }
  }

  private async record(md: MachineDeployment, e: MachineDeploymentEvent | undefined): Promise<void> {
    if (e) await this.events.event(md, e.type, e.reason, e.message);
  }
}
