// Machine reconciler: reads state, lets the pure functions (status.ts, inplace-decision.ts) decide, writes changes.
import { Inject, Optional } from '@nestjs/common';
import { createMergePatch, realClock, type PassiveClock, cloneJson, type KubeObject } from '@capi/apimachinery';
import { CLUSTER_NAME_FIELD, indexMachines } from '@capi/index';
import { ClusterGVK, MACHINE_FINALIZER, MachineGVK, PAUSED_ANNOTATION, isTrue, type Condition } from '@capi/api';
import {
  ApiEventRecorder,
  type EventRecorder,
  CACHE,
  CACHED_CLIENT,
  FEATURE_GATES,
  FeatureGates,
  KUBE_CLIENT,
  MANAGER,
  ReconcilerFor,
  anyOf,
  indexByFieldPath,
  isNotFound,
  type Client,
  type InformerCache,
  type Manager,
  type ObjectRef,
  type ReconcileContext,
  type ReconcileLogger,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { HookRetryCache } from '@capi/inplace';
import { clusterControlPlaneInitialized, clusterPausedTransitions } from '@capi/predicates';
import { RUNTIME_CLIENT, type RuntimeClient } from '@capi/runtime-client';
import { ServerSideApplier } from '@capi/ssa';
import { ContractVersionResolver, ExternalObjectTracker } from '@capi/external';
import { InPlacePhase, type InPlaceResult } from './inplace-phase';
import { MachineDeletion } from './machine-deletion';
import {
  desiredExternalMetadataPatch,
  machineRequestsFor,
  observeBootstrap,
  observeInfrastructure,
  type ExternalRead,
} from './machine-external';
import { patchStatus } from '@capi/patch';
import { lookupNode } from './machine-node';
import { readUpToDateOwners, watchMachineOwners } from './machine-owners';
import {
  MACHINE_CONTROLLER_NAME,
  MACHINE_CONTROLLER_OPTIONS,
  MACHINE_FIELD_MANAGER,
  type MachineControllerOptions,
} from './options';
import { computeMachineStatus, type NodeObservation } from './status';
import type { MachineObject } from './types';
import {
  WORKLOAD_CLUSTER_CACHE,
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  type ClusterKey,
  type WorkloadClusterCache,
  type WorkloadClusterClientProvider,
} from '@capi/clustercache';

/** How long a reconcile waits for the cache to observe its own Machine write before reading on. */
const CACHE_WAIT_MS = 5000;
/** Node poll period while the workload cluster's Node informer is down (upstream: no poll; Nodes are always watched). */
const DEFAULT_NODE_POLL_INTERVAL_MS = 10_000;

/** Machine field index by spec.providerID (upstream index.MachineProviderIDField): workload Node → Machine. */
const MACHINE_PROVIDER_ID_FIELD = 'spec.providerID';
/** Upstream's reason, spaces included (core/reconcilers/machine/machine_controller_noderef.go). */
const NODE_READ_FAILED_EVENT = 'Failed to retrieve Node by ProviderID';
/** Annotation upstream's Machine controller sets on a Node: the name of its Machine (in the Cluster's namespace). */
const NODE_MACHINE_ANNOTATION = 'cluster.x-k8s.io/machine';

const clusterKeyOf = (c: KubeObject): ClusterKey => ({ namespace: c.metadata.namespace!, name: c.metadata.name! });

const machineRef = (m: { metadata: { name?: string; namespace?: string } }): ObjectRef => ({
  apiVersion: MachineGVK.apiVersion,
  kind: 'Machine',
  name: m.metadata.name!,
  namespace: m.metadata.namespace,
});

@ReconcilerFor({
  name: MACHINE_CONTROLLER_NAME,
  for: { apiVersion: MachineGVK.apiVersion, kind: 'Machine' },
  maxConcurrentReconciles: 10,
})
export class MachineReconciler implements Reconciler {
  private readonly resolver: ContractVersionResolver;
  private readonly tracker: ExternalObjectTracker;
  private readonly inPlace: InPlacePhase;
  private readonly deletion: MachineDeletion;
  private readonly ssa: ServerSideApplier;
  private readonly clock: PassiveClock;
  private readonly gates: FeatureGates;
  private watching = false;
  private readonly events: EventRecorder;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(KUBE_CLIENT) directClient: Client,
    @Inject(CACHE) private readonly cache: InformerCache,
    @Inject(MANAGER) private readonly manager: Manager,
    @Inject(WORKLOAD_CLUSTER_CLIENT_PROVIDER) private readonly workloadClients: WorkloadClusterClientProvider,
    @Inject(WORKLOAD_CLUSTER_CACHE) private readonly workloadNodes: WorkloadClusterCache,
    @Inject(MACHINE_CONTROLLER_OPTIONS) private readonly options: MachineControllerOptions,
    @Optional() @Inject(FEATURE_GATES) gates?: FeatureGates,
    @Optional() @Inject(RUNTIME_CLIENT) runtimeClient?: RuntimeClient,
    @Optional() ssa?: ServerSideApplier,
  ) {
    this.clock = options.clock ?? realClock;
    this.gates = gates ?? FeatureGates.defaults();
    this.ssa = ssa ?? new ServerSideApplier({ clock: this.clock });
    this.resolver = new ContractVersionResolver(directClient);
    this.events = new ApiEventRecorder(this.client, 'machine-controller', () => new Date(this.clock.now()));
    indexMachines(cache);
    indexByFieldPath(cache, MachineGVK.apiVersion, 'Machine', MACHINE_PROVIDER_ID_FIELD);
    this.tracker = new ExternalObjectTracker(cache, machineRequestsFor, (req) => this.enqueue(req));
    this.inPlace = new InPlacePhase(this.client, runtimeClient, new HookRetryCache(this.clock));
    this.deletion = new MachineDeletion({
      client: this.client,
      cache,
      resolver: this.resolver,
      workloadClients: this.workloadClients,
      workloadNodes: this.workloadNodes,
      events: this.events,
      clock: this.clock,
      nodeDeletionRetryTimeoutMs: options.nodeDeletionRetryTimeoutMs,
      considerVolumeAttachments: this.gates.enabled('MachineWaitForVolumeDetachConsiderVolumeAttachments'),
    });
  }

  /** The hook retry cache (exposed for tests and diagnostics). */
  get hookRetryCache(): HookRetryCache {
    return this.inPlace.retryCache;
  }

  private enqueue(req: Request): void {
    this.manager.controller(MACHINE_CONTROLLER_NAME)?.queue.add(req);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    this.ensureWatches();
    const machine = await this.client.tryGet<MachineObject>({ ...machineRef({ metadata: req }) });
    if (!machine) return;
    // Read only (the cache's frozen object, no copy): the reconcile never changes the Cluster.
    const cluster = await this.cache.tryGet<KubeObject>(
      {
        apiVersion: ClusterGVK.apiVersion,
        kind: 'Cluster',
        namespace: machine.metadata.namespace,
        name: machine.spec.clusterName,
      },
      { readOnly: true },
    );
    if (
      PAUSED_ANNOTATION in (machine.metadata.annotations ?? {}) ||
      (cluster?.spec as { paused?: boolean } | undefined)?.paused
    ) {
      ctx.log.debug('paused, skipping');
      return;
    }
    const bootstrap = await this.readExternal(ctx.log, machine, machine.spec.bootstrap?.configRef);
    const infra = await this.readExternal(ctx.log, machine, machine.spec.infrastructureRef);
    if (machine.metadata.deletionTimestamp) return this.reconcileDelete(ctx, machine, cluster, bootstrap, infra);

    if (!machine.metadata.finalizers?.includes(MACHINE_FINALIZER)) {
      await this.patchMachine(ctx, machine, {
        metadata: {
          finalizers: [...(machine.metadata.finalizers ?? []), MACHINE_FINALIZER],
          resourceVersion: machine.metadata.resourceVersion,
        },
      });
    }
    if (!cluster) throw new Error(`Cluster ${machine.metadata.namespace}/${machine.spec.clusterName} not found`);
    for (const ext of [bootstrap, infra]) if (ext.object) await this.adoptExternal(machine, ext.object);

    // Only the status is compared (writeStatus); copying it alone spares a copy of the whole Machine per reconcile.
    const statusBefore = cloneJson(machine.status);
    const boot = observeBootstrap(machine, bootstrap);
    const inf = observeInfrastructure(machine, infra);
    await this.applySpec(ctx, machine, { dataSecretName: boot.dataSecretName, providerID: inf.providerID });
    const initialization = {
      ...(machine.status?.initialization ?? {}),
      ...(boot.dataSecretCreated ? { bootstrapDataSecretCreated: true } : {}),
      ...(inf.provisioned ? { infrastructureProvisioned: true } : {}),
    };
    machine.status = {
      ...(machine.status ?? {}),
      ...(Object.keys(initialization).length ? { initialization } : {}),
      ...(inf.addresses ? { addresses: inf.addresses } : {}),
    };
    const node = await this.observeNode(ctx.log, machine, cluster);

    let inPlace: InPlaceResult;
    try {
      inPlace = await this.inPlace.run({
        machine,
        infraMachine: infra.object,
        bootstrapConfig: bootstrap.object,
        bootstrapConfigUnreadable: !!bootstrap.error,
        gateEnabled: this.gates.enabled('InPlaceUpdates'),
        log: ctx.log,
      });
    } catch (e) {
      // A failed completion write: markers stay (pending-hooks last), the next reconcile repeats the completion.
      inPlace = { action: { type: 'CleanupOrphan' }, error: e as Error };
    }

    const statusResult = computeMachineStatus({
      machine,
      bootstrap: { object: bootstrap.object, notFound: bootstrap.notFound },
      infra: { object: infra.object, notFound: infra.notFound },
      node,
      updating: inPlace.updating,
      owners: await readUpToDateOwners(this.cache, machine),
      clock: this.clock,
    });
    await this.writeStatus(ctx, machine, statusBefore, statusResult.status);
    if (inPlace.error) throw inPlace.error;
    if (bootstrap.error) throw bootstrap.error;
    if (infra.error) throw infra.error;
    return this.result([inPlace.requeueAfterMs, statusResult.requeueAfterMs, this.nodePollMs(machine, cluster, node)]);
  }

  private async reconcileDelete(
    ctx: ReconcileContext,
    machine: MachineObject,
    cluster: KubeObject | undefined,
    bootstrap: ExternalRead,
    infra: ExternalRead,
  ): Promise<Result | void> {
    if (!machine.metadata.finalizers?.includes(MACHINE_FINALIZER)) return;
    const original = structuredClone(machine.status);
    const step = await this.deletion.run({ machine, cluster, bootstrap, infra, log: ctx.log, signal: ctx.signal });
    if (step.done) {
      await this.patchMachine(ctx, machine, {
        metadata: {
          finalizers: machine.metadata.finalizers.filter((f) => f !== MACHINE_FINALIZER),
          resourceVersion: machine.metadata.resourceVersion,
        },
      });
      return;
    }
    const status = computeMachineStatus({
      machine,
      bootstrap: { object: bootstrap.object, notFound: bootstrap.notFound },
      infra: { object: infra.object, notFound: infra.notFound },
      node: { notInspected: step.deleting.reason === 'DeletingNode' ? undefined : 'Machine is deleting' },
      deleting: step.deleting,
      clock: this.clock,
    });
    await this.writeStatus(ctx, machine, original, status.status);
    if (step.error) throw step.error;
    return step.requeueAfterMs ? { requeueAfterMs: step.requeueAfterMs } : undefined;
  }

  private result(delays: (number | undefined)[]): Result | void {
    const positive = delays.filter((d): d is number => d !== undefined && d > 0);
    return positive.length ? { requeueAfterMs: Math.min(...positive) } : undefined;
  }

  private nodePollMs(machine: MachineObject, cluster: KubeObject, node: NodeObservation): number | undefined {
    // Node events come from the workload cluster's Node informer (see ensureWatches); poll only while there is none
    // (the cluster could not be reached), as the only way to notice the Node then.
    if (!machine.spec.providerID) return undefined;
    if (node.notInspected) return undefined;
    if (this.workloadNodes.isWatching(clusterKeyOf(cluster))) return undefined;
    return this.options.nodePollIntervalMs ?? DEFAULT_NODE_POLL_INTERVAL_MS;
  }

  private ensureWatches(): void {
    if (this.watching) return;
    this.watching = true;
    watchMachineOwners(this.cache, (req) => this.enqueue(req));
    // Of a Cluster's updates only the control plane becoming initialized concerns its Machines (upstream's Cluster
    // watch with predicates.ClusterControlPlaneInitialized in core/reconcilers/machine/machine_controller.go), so the
    // Cluster's own status writes don't re-reconcile every Machine. Also a pause flip: upstream's Machines resume on
    // their next event after an unpause, these at once.
    const concerned = anyOf(clusterControlPlaneInitialized, clusterPausedTransitions);
    const forward = (c: KubeObject) => {
      const machines = this.cache.listStored(MachineGVK.apiVersion, 'Machine', {
        namespace: c.metadata.namespace,
        matchingFields: { [CLUSTER_NAME_FIELD]: c.metadata.name ?? '' },
      });
      for (const m of machines) this.enqueue({ namespace: m.metadata.namespace, name: m.metadata.name! });
    };
    this.cache.informerFor(ClusterGVK.apiVersion, 'Cluster').addEventHandler({
      onUpdate: (o, n) => concerned.update!(o, n) && forward(n),
      // The workload cluster goes with it: stop its Node informer (upstream ClusterCache disconnects).
      onDelete: (c) => this.workloadNodes.close(clusterKeyOf(c)),
    });
    // A workload Node appearing or changing concerns its Machine (upstream nodeToMachine): by the Machine annotation
    // on the Node, else by spec.providerID among the cluster's Machines.
    this.workloadNodes.watchNodes((cluster, node) => {
      const named = node.metadata.annotations?.[NODE_MACHINE_ANNOTATION];
      if (named) this.enqueue({ namespace: cluster.namespace, name: named });
      const providerID = (node.spec as { providerID?: unknown } | undefined)?.providerID;
      if (typeof providerID !== 'string' || !providerID) return;
      const machines = this.cache.listStored<MachineObject>(MachineGVK.apiVersion, 'Machine', {
        namespace: cluster.namespace,
        matchingFields: { [MACHINE_PROVIDER_ID_FIELD]: providerID },
      });
      for (const m of machines)
        if (m.spec.clusterName === cluster.name)
          this.enqueue({ namespace: m.metadata.namespace, name: m.metadata.name! });
    });
  }

  private async readExternal(
    log: ReconcileLogger,
    machine: MachineObject,
    ref: { apiGroup: string; kind: string; name: string } | undefined,
  ): Promise<ExternalRead> {
    if (!ref) return { notFound: false, absentRef: true };
    try {
      const objectRef = await this.resolver.objectRef(ref, machine.metadata.namespace);
      this.tracker.watch(objectRef.apiVersion, objectRef.kind);
      // The cache's frozen object with its own metadata: the reconcile changes only metadata (adoption, the in-place
      // completion's annotation removal), so spec and status are shared instead of copied.
      const cached = await this.cache.tryGet<KubeObject>(objectRef, { readOnly: true });
      const object = cached && { ...cached, metadata: { ...cached.metadata } };
      return { object, notFound: !object, ref: objectRef };
    } catch (e) {
      if (isNotFound(e)) return { notFound: true };
      log.error(`reading ${ref.kind} ${ref.name}: ${(e as Error).message}`);
      return { notFound: false, error: e as Error };
    }
  }

  /** Owner reference (controller when there is none) and cluster-name label on a bootstrap config / infra machine. */
  private async adoptExternal(machine: MachineObject, obj: KubeObject): Promise<void> {
    const patch = desiredExternalMetadataPatch(machine, obj);
    if (!patch) return;
    const updated = await this.client.patch<KubeObject>(
      { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name!, namespace: obj.metadata.namespace },
      'merge',
      patch,
    );
    Object.assign(obj, updated);
  }

  /**
   * spec.bootstrap.dataSecretName and spec.providerID, applied together as capi-machine (SSA removes fields a
   * manager stops sending, so the intent always carries every field this controller owns).
   */
  private async applySpec(
    ctx: ReconcileContext,
    machine: MachineObject,
    want: { dataSecretName?: string; providerID?: string },
  ): Promise<void> {
    const dataSecretName = want.dataSecretName ?? machine.spec.bootstrap?.dataSecretName;
    const providerID = want.providerID ?? machine.spec.providerID;
    if (machine.spec.bootstrap?.dataSecretName === dataSecretName && machine.spec.providerID === providerID) return;
    const spec: Record<string, unknown> = {};
    if (dataSecretName) spec.bootstrap = { dataSecretName };
    if (providerID) spec.providerID = providerID;
    const intent: KubeObject = {
      apiVersion: MachineGVK.apiVersion,
      kind: 'Machine',
      metadata: { name: machine.metadata.name, namespace: machine.metadata.namespace, uid: machine.metadata.uid },
      spec,
    };
    await this.ssa.patch(this.client, intent, {
      fieldOwner: MACHINE_FIELD_MANAGER,
      original: machine,
      controllerName: MACHINE_CONTROLLER_NAME,
    });
    const status = machine.status;
    Object.assign(machine, intent, { status });
    await this.waitForCache(ctx, machine.metadata.resourceVersion!, machine);
  }

  private async patchMachine(ctx: ReconcileContext, machine: MachineObject, patch: unknown): Promise<void> {
    const updated = await this.client.patch<MachineObject>(machineRef(machine), 'merge', patch);
    Object.assign(machine, { metadata: updated.metadata, spec: updated.spec });
    // Until the cache shows it (gone, when this removed the last finalizer), so the next reconcile does not redo it.
    await this.cache.waitForWrite(updated, CACHE_WAIT_MS, ctx.signal);
  }

  /** Until the cache has this reconcile's own write (or the controller stops). */
  private async waitForCache(ctx: ReconcileContext, resourceVersion: string, machine: MachineObject): Promise<void> {
    await this.cache.waitForResourceVersion(machineRef(machine), resourceVersion, CACHE_WAIT_MS, ctx.signal);
  }

  /**
   * Status subresource merge patch of what changed; no request when nothing did. The conditions list is shared with KCP
   * (control plane UpToDate) and MHC: ours are rebased onto the latest list under its resourceVersion, and a conflict is
   * retried on the then latest copy (upstream's patch helper) rather than failing the reconcile.
   */
  private async writeStatus(
    ctx: ReconcileContext,
    machine: MachineObject,
    before: MachineObject['status'],
    after: MachineObject['status'],
  ): Promise<void> {
    if (createMergePatch(before ?? {}, after ?? {}) === undefined) return;
    // The rebase reads the cache: let it catch up with this reconcile's own writes first (the in-place completion's
    // marker patches and markAsDone), or the guarded patch carries an older resourceVersion and is refused.
    await this.waitForCache(ctx, machine.metadata.resourceVersion!, machine);
    const updated = await patchStatus<MachineObject>(this.client, machineRef(machine), before, after);
    if (!updated) return;
    machine.status = updated.status;
    machine.metadata.resourceVersion = updated.metadata.resourceVersion;
    await this.waitForCache(ctx, updated.metadata.resourceVersion!, machine);
  }

  private async observeNode(
    log: ReconcileLogger,
    machine: MachineObject,
    cluster: KubeObject,
  ): Promise<NodeObservation> {
    const cs = (cluster.status ?? {}) as {
      initialization?: { infrastructureProvisioned?: boolean; controlPlaneInitialized?: boolean };
      conditions?: Condition[];
    };
    if (!cs.initialization?.infrastructureProvisioned)
      return { notInspected: 'Waiting for Cluster status.initialization.infrastructureProvisioned to be true' };
    if (!cs.initialization?.controlPlaneInitialized && !isTrue(cs.conditions, 'ControlPlaneInitialized')) {
      return { notInspected: 'Waiting for Cluster control plane to be initialized' };
    }
    if (!machine.spec.providerID) return {};
    const found = await lookupNode(
      this.workloadNodes,
      { namespace: machine.metadata.namespace!, name: machine.spec.clusterName },
      machine.spec.providerID,
    );
    if (found.error) {
      log.error(`reading Node: ${found.error}`);
      // Upstream records this for a failed Node read, not for a cluster it cannot connect to (machine_controller_noderef.go).
      if (!found.connectionError) await this.events.event(machine, 'Warning', NODE_READ_FAILED_EVENT, found.error);
      return { error: found.error };
    }
    if (found.node) {
      const nodeName = found.node.metadata.name!;
      if (!machine.status?.nodeRef?.name) await this.events.event(machine, 'Normal', 'SuccessfulSetNodeRef', nodeName);
      machine.status = { ...(machine.status ?? {}), nodeRef: { name: nodeName } };
      const nodeInfo = (found.node.status as { nodeInfo?: unknown } | undefined)?.nodeInfo;
      // The cached Node is read-only; the Machine's status is ours to change.
      if (nodeInfo) machine.status.nodeInfo = cloneJson(nodeInfo) as never;
    }
    return { node: found.node };
  }
}
