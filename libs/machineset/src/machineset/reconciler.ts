// MachineSet controller (upstream internal/controllers/machineset): thin I/O around the pure decisions in this folder.
import { Inject, Optional } from '@nestjs/common';
import { labelSelectorAsSelector, realClock, type PassiveClock, jsonEqual, type KubeObject } from '@capi/apimachinery';
import { controlledBy, indexMachineSets, indexMachines } from '@capi/index';
import {
  CLUSTER_API_VERSION,
  DISABLE_MACHINE_CREATE_ANNOTATION,
  MACHINE_SET_FINALIZER,
  OWNER_REMEDIATED_CONDITION,
  REMEDIATING_CONDITION,
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  getCondition,
  setCondition,
  type Cluster,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import {
  CACHE,
  CACHED_CLIENT,
  FEATURE_GATES,
  FeatureGates,
  KUBE_CLIENT,
  NO_CONTROLLER_OWNER,
  OWNER_CONTROLLER_FIELD,
  ReconcilerFor,
  refOf,
  type Client,
  type InformerCache,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { ServerSideApplier } from '@capi/ssa';
import { ContractVersionResolver, getReferenced } from '@capi/external';
import { patchStatus } from '@capi/patch';
import { ApiEventRecorder, type EventRecorder } from '@capi/controller-runtime';
import { byName, deferUntilCached, deleteIgnoreNotFound, SECONDARY_EVENT_COALESCING } from '../shared/writes';
import { addFinalizerPatch, patchFinalizers, planChildDeletion, removeFinalizerPatch } from '../shared/finalizers';
import { deletePriorityFunc } from './deletion-order';
import { machineEvents } from './events';
import { aggregateErrors, MachineCreationError, ScaleDownError } from './errors';
import {
  computeDesiredMachine,
  generateMachineName,
  machineSetOwnerRef,
  objectFromTemplate,
  selectorProblem,
  TemplateError,
} from './desired';
import { MACHINESET_FIELD_MANAGER, startInPlaceUpdate } from './inplace-start';
import { giveUpLabelsAndAnnotations } from './metadata-sync';
import { syncMachines } from './sync-machines';
import {
  checkMoveHandshake,
  machinesToStartInPlaceUpdate,
  MoveError,
  movePatch,
  moveTargetProblem,
  planDeletions,
  planMoves,
  replicaDelta,
} from './moves';
import { clusterPausedTransitions } from '@capi/predicates';
import { planRemediation, type OwnerRemediatedUpdate } from './remediation';
import { computeMachineSetStatus } from './status';
import {
  machineSetRequestsForCluster,
  machineSetRequestsForMachineDeployment,
  machineSetRequestsForOrphanMachine,
} from './watch-map';

export const MACHINESET_CLOCK = Symbol.for('capi.machineset.Clock');
/** Field manager of the OwnerRemediated condition: separate from capi-machineset, whose status applies carry only UpToDate. */
export const MACHINESET_REMEDIATION_FIELD_MANAGER = 'capi-machineset-remediation';

const MS = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet' };
const MACHINE = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine' };

const controllerOf = (obj: KubeObject) => obj.metadata.ownerReferences?.find((r) => r.controller === true);

@ReconcilerFor({
  name: 'machineset',
  for: MS,
  owns: [MACHINE],
  watches: [
    { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', map: machineSetRequestsForMachineDeployment },
    { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', map: machineSetRequestsForOrphanMachine },
    {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Cluster',
      map: machineSetRequestsForCluster,
      predicates: [clusterPausedTransitions],
    },
  ],
  maxConcurrentReconciles: 4,
  // Each reconcile reads every Machine of the owner: coalesce their events so large sets do not spin (see the bench).
  coalesceSecondaryEvents: SECONDARY_EVENT_COALESCING,
})
export class MachineSetReconciler implements Reconciler {
  private readonly resolver: ContractVersionResolver;
  private readonly clock: PassiveClock;
  private readonly gates: FeatureGates;
  private readonly events: EventRecorder;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(KUBE_CLIENT) private readonly directClient: Client,
    @Optional() @Inject(FEATURE_GATES) gates: FeatureGates | undefined,
    @Inject(ServerSideApplier) private readonly applier: ServerSideApplier,
    @Optional() @Inject(CACHE) private readonly cache?: InformerCache,
    @Optional() @Inject(MACHINESET_CLOCK) clock?: PassiveClock,
  ) {
    this.resolver = new ContractVersionResolver(directClient);
    this.clock = clock ?? realClock;
    this.gates = gates ?? FeatureGates.defaults();
    this.events = new ApiEventRecorder(directClient, 'machineset-controller', () => new Date(this.clock.now()));
    if (cache) {
      indexMachines(cache);
      indexMachineSets(cache);
    }
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    let ms = await this.client.tryGet<MachineSet>({ ...MS, ...req });
    if (!ms) return ctx.controller?.clearConsistencyStore(req);
    // The finalizer first, so a MachineSet deleted right after its creation still deletes its Machines (upstream
    // Reconcile, finalizers.EnsureFinalizer): ownerReference garbage collection is not relied upon.
    const add = addFinalizerPatch(ms, MACHINE_SET_FINALIZER);
    if (add) ms = await patchFinalizers(this.client, ctx, ms, add);
    if (ms.metadata.deletionTimestamp) return this.reconcileDelete(ctx, ms);
    const md = await this.owningMachineDeployment(ms);
    let machines: Machine[];
    try {
      machines = await this.getAndAdoptMachines(ctx, ms);
    } catch (e) {
      if (e instanceof TemplateError) await this.reportError(ms, e);
      throw e;
    }
    // Every Machine the MS controls takes part, moved ones still pending acknowledgement too (upstream): they are
    // remediated, synced and counted in status.replicas; only the scale-down leaves them out while the MS receives.
    // Remediated Machines are deleting from here on (as read back after the delete); the scale up replaces them once gone.
    let remediationError: Error | undefined;
    let remediated = new Map<string, Machine | undefined>();
    try {
      remediated = await this.reconcileUnhealthyMachines(ctx, ms, md, machines);
    } catch (e) {
      remediationError = e as Error; // reported on Remediating; syncing and scaling still go on
    }
    let current = machines.flatMap((m) =>
      remediated.has(m.metadata.name ?? '') ? (remediated.get(m.metadata.name ?? '') ?? []) : [m],
    );

    // Like upstream doReconcile, a failing phase does not skip the later ones: one bad Machine must not stop the
    // others' moves, in-place starts, scaling or status. The errors are returned together at the end.
    const syncError = await syncMachines(
      { client: this.client, cache: this.cache, resolver: this.resolver, applier: this.applier },
      ms,
      current,
    );
    let startError: Error | undefined;
    if (this.gates.enabled('InPlaceUpdates'))
      ({ machines: current, error: startError } = await this.triggerInPlaceUpdates(ctx, ms, current));

    let scaleError: Error | undefined;
    try {
      current = await this.syncReplicas(ctx, ms, current);
    } catch (e) {
      scaleError = e as Error;
    }
    let statusError: Error | undefined;
    try {
      await this.updateStatus(ctx, ms, current, scaleError, remediationError);
    } catch (e) {
      statusError = new Error(`failed to update status: ${(e as Error).message}`);
    }
    const error = aggregateErrors([remediationError, syncError, startError, scaleError, statusError]);
    if (error) throw error;
  }

  /**
   * Upstream reconcileDelete: deletes the Machines of the MS (adopted orphans too) that are not deleting yet and waits
   * for them (the owns watch brings it back as each goes); with none left, the finalizer goes. Machines are neither
   * synced, moved nor remediated meanwhile.
   */
  private async reconcileDelete(ctx: ReconcileContext, ms: MachineSet): Promise<void> {
    const machines = await this.getAndAdoptMachines(ctx, ms, true);
    const plan = planChildDeletion(machines);
    if (plan.removeFinalizer) {
      ctx.controller?.clearConsistencyStore(
        { namespace: ms.metadata.namespace, name: ms.metadata.name! },
        ms.metadata.uid,
      );
      const remove = removeFinalizerPatch(ms, MACHINE_SET_FINALIZER);
      if (remove) await patchFinalizers(this.client, ctx, ms, remove);
      return;
    }
    const errors: string[] = [];
    for (const m of plan.toDelete) {
      try {
        await deleteIgnoreNotFound(this.client, refOf(m));
        ctx.log.log(`Deleting Machine ${m.metadata.name} (MachineSet deleted)`);
      } catch (e) {
        errors.push(`failed to delete Machine ${m.metadata.name}: ${(e as Error).message}`);
      }
    }
    ctx.log.log(`Waiting for Machines to be deleted: ${machines.map((m) => m.metadata.name).join(', ')}`);
    // The counters go down as the Machines go (upstream's deferred status update runs on deletion too).
    const status = computeMachineSetStatus(ms, machines, this.clock);
    deferUntilCached(ctx, ms, await patchStatus<MachineSet>(this.client, refOf(ms), ms.status, status));
    if (errors.length > 0) throw new Error(errors.join('; '));
  }

  private async owningMachineDeployment(ms: MachineSet): Promise<MachineDeployment | undefined> {
    const ref = controllerOf(ms);
    if (!ref || ref.kind !== 'MachineDeployment') return undefined;
    return this.client.tryGet<MachineDeployment>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      namespace: ms.metadata.namespace,
      name: ref.name,
    });
  }

  /**
   * Deletes the Machines MHC asked this MS to remediate (planRemediation decides which, within maxInFlight), after
   * writing OwnerRemediated on each, so a failed delete is retried with the condition already in place. Returns the
   * Machines deleted, by name, as read after the delete (undefined when already gone).
   */
  private async reconcileUnhealthyMachines(
    ctx: ReconcileContext,
    ms: MachineSet,
    md: MachineDeployment | undefined,
    machines: Machine[],
  ): Promise<Map<string, Machine | undefined>> {
    const cluster = ms.spec.clusterName
      ? await this.client.tryGet<Cluster>({
          apiVersion: CLUSTER_API_VERSION,
          kind: 'Cluster',
          namespace: ms.metadata.namespace,
          name: ms.spec.clusterName,
        })
      : undefined;
    const plan = planRemediation({ ms, md, cluster, machines });
    const deleted = new Map<string, Machine | undefined>();
    if (plan.skipped) return deleted;
    for (const m of plan.cleanup) await this.writeOwnerRemediated(ctx, ms, m, undefined);
    for (const update of plan.conditions) await this.writeOwnerRemediated(ctx, ms, update.machine, update);
    for (const m of plan.toDelete) {
      const after = (await deleteIgnoreNotFound(this.client, refOf(m))) as Machine | undefined;
      // The next reconcile counts it as in flight against maxInFlight once the cache shows the deletion.
      deferUntilCached(ctx, ms, after);
      deleted.set(m.metadata.name ?? '', after);
      ctx.log.log(
        `deleting Machine ${m.metadata.name} of MachineSet ${ms.metadata.name} (remediating unhealthy Machine, maxInFlight ${plan.maxInFlight})`,
      );
    }
    return deleted;
  }

  /**
   * OwnerRemediated=False with the update's reason/message (SSA on status with our own field manager, forced: the MS
   * takes the entry over from MHC); `undefined` gives our entry up. No request when nothing changes.
   */
  private async writeOwnerRemediated(
    ctx: ReconcileContext,
    ms: MachineSet,
    m: Machine,
    update: Pick<OwnerRemediatedUpdate, 'reason' | 'message'> | undefined,
  ): Promise<void> {
    const existing = getCondition(m, OWNER_REMEDIATED_CONDITION);
    let conditions: ReturnType<typeof setCondition> = [];
    if (update) {
      if (
        existing?.status === 'False' &&
        existing.reason === update.reason &&
        (existing.message ?? '') === update.message
      )
        return;
      conditions = setCondition(
        existing ? [existing] : [],
        { type: OWNER_REMEDIATED_CONDITION, status: 'False', ...update, observedGeneration: m.metadata.generation },
        this.clock,
      );
    } else if (!existing) return;
    const written = await this.client.apply<Machine>(
      {
        apiVersion: m.apiVersion,
        kind: m.kind,
        metadata: { name: m.metadata.name, namespace: m.metadata.namespace, uid: m.metadata.uid },
        status: { conditions },
      },
      { fieldManager: MACHINESET_REMEDIATION_FIELD_MANAGER, force: true, subresource: 'status' },
    );
    deferUntilCached(ctx, ms, written);
  }

  /**
   * Machines matching the selector that are ours or orphans (adopted); ours that stopped matching are released.
   * `deleting`: the MS is going away; with a refused selector it still gets the Machines it controls (no adoption, no
   * release), so a bad selector cannot keep it from being deleted.
   */
  private async getAndAdoptMachines(ctx: ReconcileContext, ms: MachineSet, deleting = false): Promise<Machine[]> {
    const selector = labelSelectorAsSelector(ms.spec.selector);
    // An empty selector would select (or, inverted, release) everything; a selector not matching the template would
    // create Machines forever. Both are refused before any write.
    const problem = selectorProblem(ms, selector);
    if (problem && !deleting) throw new TemplateError(problem, 'InvalidSelector');
    const isOurs = (m: Machine) => {
      const owner = controllerOf(m);
      return (
        owner?.kind === 'MachineSet' && owner.name === ms.metadata.name && (!owner.uid || owner.uid === ms.metadata.uid)
      );
    };
    // Ours, or orphans we may adopt, from the controller-owner index; Machines of other owners are never looked at.
    // Read only (the cache's frozen objects, not copies): the reconcile reads its Machines and writes patches.
    const ns = ms.metadata.namespace;
    const [controlled, orphans] = await Promise.all([
      this.client.list<Machine>(MACHINE.apiVersion, MACHINE.kind, {
        ...controlledBy(ns, 'MachineSet', ms.metadata.name ?? ''),
        readOnly: true,
      }),
      this.client.list<Machine>(MACHINE.apiVersion, MACHINE.kind, {
        namespace: ns,
        matchingFields: { [OWNER_CONTROLLER_FIELD]: NO_CONTROLLER_OWNER },
        readOnly: true,
      }),
    ]);
    if (problem) return controlled.items.filter(isOurs).sort(byName);
    const all = [...controlled.items.filter(isOurs), ...orphans.items].sort(byName);
    const out: Machine[] = [];
    for (const m of all) {
      const owner = controllerOf(m);
      const ours = isOurs(m);
      const matches = !selector.empty && selector.matches(m.metadata.labels);
      if (ours && !matches) {
        const ownerReferences = (m.metadata.ownerReferences ?? []).filter((r) => r !== owner);
        await this.client.patch(refOf(m), 'merge', { metadata: { ownerReferences } });
        ctx.log.log(`released Machine ${m.metadata.name} from MachineSet ${ms.metadata.name}: labels no longer match`);
        continue;
      }
      if (!matches || (owner && !ours)) continue;
      if (!owner) {
        if (m.metadata.deletionTimestamp) continue;
        const ownerReferences = [...(m.metadata.ownerReferences ?? []), machineSetOwnerRef(ms, true)];
        let adopted: Machine;
        try {
          adopted = await this.client.patch<Machine>(refOf(m), 'merge', { metadata: { ownerReferences } });
        } catch (e) {
          await this.events.event(ms, 'Warning', 'FailedAdopt', machineEvents.failedAdopt(m, e as Error));
          throw e;
        }
        ctx.log.log(`adopted Machine ${m.metadata.name} into MachineSet ${ms.metadata.name}`);
        await this.events.event(ms, 'Normal', 'SuccessfulAdopt', machineEvents.adopted(m));
        out.push(adopted);
        continue;
      }
      out.push(m);
    }
    return out;
  }

  /**
   * Starts the in-place update of the Machines shouldStartInPlaceUpdate picks (moved here and acknowledged, or moved
   * here while this MS no longer receives Machines). A failure does not stop the others; the Machines come back with
   * the started ones as written, and the failures as one error.
   */
  private async triggerInPlaceUpdates(
    ctx: ReconcileContext,
    ms: MachineSet,
    machines: Machine[],
  ): Promise<{ machines: Machine[]; error?: Error }> {
    const started = new Map<string, Machine>();
    const errors: string[] = [];
    for (const m of machinesToStartInPlaceUpdate(ms, machines)) {
      try {
        const done = await startInPlaceUpdate(
          { client: this.client, applier: this.applier, resolver: this.resolver, events: this.events },
          ms,
          m,
        );
        deferUntilCached(ctx, ms, done);
        started.set(m.metadata.name ?? '', done);
        ctx.log.log(`started in-place update of Machine ${m.metadata.name} of MachineSet ${ms.metadata.name}`);
      } catch (e) {
        errors.push(`failed to start in-place update of Machine ${m.metadata.name}: ${(e as Error).message}`);
      }
    }
    return {
      machines: machines.map((m) => started.get(m.metadata.name ?? '') ?? m),
      ...(errors.length > 0 ? { error: new MoveError(errors.join('; '), 'InPlaceUpdateStartFailed') } : {}),
    };
  }

  /**
   * Creates or removes (deletes, or moves to the MS named in move-machines-to-machineset) Machines towards
   * spec.replicas. Returns the Machines as they are afterwards; moved ones stay in the list like upstream's scope,
   * so this reconcile's status still counts them (the next one no longer lists them).
   */
  private async syncReplicas(ctx: ReconcileContext, ms: MachineSet, machines: Machine[]): Promise<Machine[]> {
    if (ms.spec.replicas === undefined)
      throw new TemplateError(`spec.replicas of MachineSet ${ms.metadata.name} is not set`, 'InvalidReplicas');
    const delta = replicaDelta(ms, machines);
    if (delta > 0) {
      if (ms.metadata.annotations?.[DISABLE_MACHINE_CREATE_ANNOTATION] === 'true') return machines;
      for (let i = 0; i < delta; i++) await this.createMachine(ctx, ms);
      return machines;
    }
    if (delta === 0) return machines;

    const priority = deletePriorityFunc(ms.spec.deletion?.order, () => new Date(this.clock.now()));
    const targetName = ms.metadata.annotations?.[MOVE_MACHINES_TO_MACHINESET_ANNOTATION];
    if (!targetName || !this.gates.enabled('InPlaceUpdates')) {
      // A Machine that cannot be deleted does not keep the others (upstream deleteMachines).
      const errors: string[] = [];
      for (const m of planDeletions(machines, -delta, priority)) {
        try {
          deferUntilCached(ctx, ms, await deleteIgnoreNotFound(this.client, refOf(m)));
          ctx.log.log(`deleting Machine ${m.metadata.name} of MachineSet ${ms.metadata.name} (scale down)`);
          await this.events.event(ms, 'Normal', 'SuccessfulDelete', machineEvents.deleted(m)); // not deleting yet
        } catch (e) {
          errors.push(`failed to delete Machine ${m.metadata.name}: ${(e as Error).message}`);
        }
      }
      if (errors.length > 0) throw new ScaleDownError(errors.join('; '));
      return machines;
    }
    // A failed handshake means the MachineDeployment has not written both sides yet (or changed its mind): wait.
    const target = await this.client.tryGet<MachineSet>({ ...MS, namespace: ms.metadata.namespace, name: targetName });
    const handshake = checkMoveHandshake(ms, target);
    if (!handshake.ok)
      throw new MoveError(
        `cannot move Machines of MachineSet ${ms.metadata.name}: ${handshake.reason}`,
        'MoveHandshakeFailed',
      );
    const plan = planMoves(machines, -delta, priority);
    const written = new Map<string, Machine>();
    const errors: string[] = [];
    for (const m of plan.toDelete) {
      try {
        deferUntilCached(ctx, ms, await deleteIgnoreNotFound(this.client, refOf(m)));
        ctx.log.log(
          `deleting Machine ${m.metadata.name} of MachineSet ${ms.metadata.name} instead of moving it to ${targetName}: it is marked for remediation`,
        );
        await this.events.event(ms, 'Normal', 'SuccessfulDelete', machineEvents.deleted(m));
      } catch (e) {
        errors.push(
          `failed to delete Machine ${m.metadata.name} (marked for remediation, not moved to ${targetName}): ${(e as Error).message}`,
        );
      }
    }
    // Moved Machines take the target's machine-template-hash label: a target without one is refused (the Machines
    // chosen for deletion above are deleted all the same).
    const targetProblem = plan.toMove.length > 0 ? moveTargetProblem(handshake.target) : undefined;
    if (targetProblem) errors.push(`cannot move Machines to MachineSet ${targetName}: ${targetProblem}`);
    for (const m of targetProblem ? [] : plan.toMove) {
      try {
        const moved = await this.client.patch<Machine>(refOf(m), 'merge', movePatch(m, ms, handshake.target));
        deferUntilCached(ctx, ms, moved);
        written.set(m.metadata.name ?? '', moved);
        ctx.log.log(`moved Machine ${m.metadata.name} from MachineSet ${ms.metadata.name} to ${targetName}`);
      } catch (e) {
        errors.push(`failed to move Machine ${m.metadata.name} to MachineSet ${targetName}: ${(e as Error).message}`);
      }
    }
    if (errors.length > 0) throw new MoveError(errors.join('; '), 'MoveFailed');
    return machines.map((m) => written.get(m.metadata.name ?? '') ?? m);
  }

  /** Creates one Machine with its bootstrap config and InfraMachine; returns it as the server answered. */
  private async createMachine(ctx: ReconcileContext, ms: MachineSet): Promise<Machine> {
    const namespace = ms.metadata.namespace;
    const name = generateMachineName(ms);
    const machine = computeDesiredMachine(ms, undefined, name);
    const opts = { fieldOwner: MACHINESET_FIELD_MANAGER };
    const created: KubeObject[] = [];
    let stage: MachineCreationError['reason'] = 'BootstrapTemplateCloningFailed';
    try {
      const bootstrapRef = ms.spec.template.spec.bootstrap?.configRef;
      if (bootstrapRef) {
        const config = await this.cloneTemplate(ms, bootstrapRef, name, machine);
        await this.applier.patch(this.client, config, opts);
        created.push(config);
        deferUntilCached(ctx, ms, config);
        await giveUpLabelsAndAnnotations(this.directClient, config);
        machine.spec.bootstrap = {
          ...machine.spec.bootstrap,
          configRef: { apiGroup: bootstrapRef.apiGroup, kind: config.kind, name },
        };
      }
      stage = 'InfrastructureTemplateCloningFailed';
      const infraRef = ms.spec.template.spec.infrastructureRef;
      const infra = await this.cloneTemplate(ms, infraRef, name, machine);
      await this.applier.patch(this.client, infra, opts);
      created.push(infra);
      deferUntilCached(ctx, ms, infra);
      await giveUpLabelsAndAnnotations(this.directClient, infra);
      machine.spec.infrastructureRef = { apiGroup: infraRef.apiGroup, kind: infra.kind, name };
      stage = 'MachineCreationFailed';
      await this.applier.patch(this.client, machine, opts);
      // The next reconcile must count this Machine: until the cache shows it, that reconcile waits (upstream
      // createMachines defers it after each of the three creates).
      deferUntilCached(ctx, ms, machine);
    } catch (e) {
      // Do not leave orphaned infra/bootstrap objects behind a Machine that was never created (upstream createMachines).
      const messages = [(e as Error).message];
      for (const obj of created) {
        try {
          await deleteIgnoreNotFound(this.client, refOf(obj));
        } catch (cleanup) {
          messages.push(`failed to clean up ${obj.kind} ${namespace}/${name}: ${(cleanup as Error).message}`);
        }
      }
      if (e instanceof TemplateError) throw messages.length > 1 ? new TemplateError(messages.join('; '), e.reason) : e;
      throw new MachineCreationError(`failed to create Machine ${namespace}/${name}: ${messages.join('; ')}`, stage);
    }
    ctx.log.log(`created Machine ${namespace}/${name} for MachineSet ${ms.metadata.name}`);
    await this.events.event(ms, 'Normal', 'SuccessfulCreate', machineEvents.created(machine));
    return machine;
  }

  private async cloneTemplate(
    ms: MachineSet,
    ref: { apiGroup: string; kind: string; name: string },
    name: string,
    machine: Machine,
  ): Promise<KubeObject> {
    const template = await getReferenced(this.client, this.resolver, ref, ms.metadata.namespace);
    if (!template)
      throw new TemplateError(
        `failed to clone ${ref.kind} ${ms.metadata.namespace}/${ref.name}: not found`,
        'TemplateNotFound',
      );
    return objectFromTemplate({
      template,
      name,
      namespace: ms.metadata.namespace,
      clusterName: ms.spec.clusterName,
      labels: machine.metadata.labels,
      annotations: machine.metadata.annotations,
      ownerRef: machineSetOwnerRef(ms, false),
    });
  }

  /** Shows an input error on the MS (ScalingUp False with the error's reason) without touching the counters. */
  private async reportError(ms: MachineSet, e: TemplateError): Promise<void> {
    const conditions = setCondition(
      ms.status?.conditions,
      {
        type: 'ScalingUp',
        status: 'False',
        reason: e.reason,
        message: e.message,
        observedGeneration: ms.metadata.generation,
      },
      this.clock,
    );
    if (jsonEqual(conditions, ms.status?.conditions ?? [])) return;
    await patchStatus(this.client, refOf(ms), ms.status, { ...(ms.status ?? {}), conditions });
  }

  private async updateStatus(
    ctx: ReconcileContext,
    ms: MachineSet,
    machines: Machine[],
    scaleError: Error | undefined,
    remediationError?: Error,
  ): Promise<void> {
    const status = computeMachineSetStatus(ms, machines, this.clock);
    if (remediationError) {
      const reason = (remediationError as { reason?: string }).reason ?? 'InternalError';
      status.conditions = setCondition(
        status.conditions,
        {
          type: REMEDIATING_CONDITION,
          status: 'Unknown',
          reason,
          message: remediationError.message,
          observedGeneration: ms.metadata.generation,
        },
        this.clock,
      );
    }
    if (scaleError) {
      const reason = (scaleError as { reason?: string }).reason ?? 'InternalError';
      status.conditions = setCondition(
        status.conditions,
        {
          type: (ms.spec.replicas ?? 0) >= machines.length ? 'ScalingUp' : 'ScalingDown',
          status: 'False',
          reason,
          message: scaleError.message,
          observedGeneration: ms.metadata.generation,
        },
        this.clock,
      );
    }
    // A merge patch of what changed (upstream's patch helper): only a conditions change carries the resourceVersion, so
    // the MachineDeployment writing the MS meanwhile does not make a replicas update fail.
    deferUntilCached(ctx, ms, await patchStatus<MachineSet>(this.client, refOf(ms), ms.status, status));
  }
}
