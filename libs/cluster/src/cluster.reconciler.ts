// Cluster reconciler (upstream core/reconcilers/cluster/cluster_controller.go Reconcile): finalizer, Paused, the
// phases (phases.ts) over the referenced objects, the descendants (descendants.ts), the deletion (deletion.ts), then
// the status (./status) and the writes. Reads go through the informer cache; every decision is a pure function.
import { Inject, Optional } from '@nestjs/common';
import {
  CLUSTER_FINALIZER,
  CLUSTER_NAME_LABEL,
  ClusterGVK,
  MachineDeploymentGVK,
  MachineGVK,
  MachineSetGVK,
  setCondition,
  type Cluster,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import { cloneJson, createMergePatch, realClock, type KubeObject, type PassiveClock } from '@capi/apimachinery';
import {
  ApiEventRecorder,
  CACHE,
  CACHED_CLIENT,
  FEATURE_GATES,
  FeatureGates,
  KUBE_CLIENT,
  MANAGER,
  ReconcilerFor,
  isNotFound,
  type Client,
  type EventRecorder,
  type InformerCache,
  type Manager,
  type ObjectRef,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { ContractVersionResolver, ExternalObjectTracker } from '@capi/external';
import { SHARED_WORKLOAD_CLUSTER_CACHE, type WorkloadClusterCache } from '@capi/clustercache';
import { patchStatus } from '@capi/patch';
import { reconcileClusterDelete } from './deletion-io';
import { splitDescendants } from './descendants';
import { clusterRequestsFor, ensureOwnerRefAndLabel, readExternal, type FailedRead } from './external';
import {
  CLUSTER_CONTROLLER_NAME,
  CLUSTER_CONTROLLER_OPTIONS,
  CLUSTER_FIELD_MANAGER,
  DEFAULT_REMOTE_CONNECTION_GRACE_PERIOD_MS,
  type ClusterControllerOptions,
} from './options';
import { decidePaused } from './paused';
import { reconcileControlPlanePhase, reconcileInfrastructurePhase, type PhaseResult } from './phases';
import type { ClusterScope } from './scope';
import { emptyDescendants } from './scope';
import { computeClusterStatus } from './status';
import { controlPlaneMachineToCluster, machineDeploymentToCluster } from './watch-map';

const clusterRef = (namespace: string | undefined, name: string): ObjectRef => ({
  apiVersion: ClusterGVK.apiVersion,
  kind: 'Cluster',
  namespace,
  name,
});
/** How long a reconcile waits for the cache to show its own write before it ends anyway. */
const OWN_WRITE_WAIT_MS = 5000;

/** The lowest positive requeue (upstream util.LowestNonZeroResult). */
const lowest = (delays: (number | undefined)[]): Result | void => {
  const positive = delays.filter((d): d is number => d !== undefined && d > 0);
  return positive.length ? { requeueAfterMs: Math.min(...positive) } : undefined;
};

@ReconcilerFor({
  name: CLUSTER_CONTROLLER_NAME,
  for: { apiVersion: ClusterGVK.apiVersion, kind: 'Cluster' },
  watches: [
    { apiVersion: MachineGVK.apiVersion, kind: 'Machine', map: controlPlaneMachineToCluster },
    { apiVersion: MachineDeploymentGVK.apiVersion, kind: 'MachineDeployment', map: machineDeploymentToCluster },
  ],
  maxConcurrentReconciles: 10,
})
export class ClusterReconciler implements Reconciler {
  private readonly clock: PassiveClock;
  private readonly resolver: ContractVersionResolver;
  private readonly tracker: ExternalObjectTracker;
  private readonly events: EventRecorder;
  private readonly gates: FeatureGates;
  private readonly fieldManager: string;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    @Inject(KUBE_CLIENT) directClient: Client,
    @Inject(CACHE) private readonly cache: InformerCache,
    @Inject(MANAGER) private readonly manager: Manager,
    @Inject(CLUSTER_CONTROLLER_OPTIONS) private readonly options: ClusterControllerOptions,
    @Optional() @Inject(SHARED_WORKLOAD_CLUSTER_CACHE) private readonly clusterCache?: WorkloadClusterCache,
    @Optional() @Inject(FEATURE_GATES) gates?: FeatureGates,
  ) {
    this.clock = options.clock ?? realClock;
    this.gates = gates ?? FeatureGates.defaults();
    this.fieldManager = options.fieldManager ?? CLUSTER_FIELD_MANAGER;
    this.resolver = new ContractVersionResolver(directClient);
    this.events = new ApiEventRecorder(this.client, 'cluster-controller', () => new Date(this.clock.now()));
    this.tracker = new ExternalObjectTracker(cache, clusterRequestsFor, (req) =>
      this.manager.controller(CLUSTER_CONTROLLER_NAME)?.queue.add(req),
    );
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const cluster = await this.client.tryGet<Cluster>(clusterRef(req.namespace, req.name));
    if (!cluster) return;
    const ref = clusterRef(cluster.metadata.namespace, cluster.metadata.name!);

    // The finalizer first, to avoid a race between creation and deletion (upstream finalizers.EnsureFinalizer).
    if (!cluster.metadata.deletionTimestamp && !cluster.metadata.finalizers?.includes(CLUSTER_FINALIZER)) {
      await this.client.patch(
        ref,
        'merge',
        {
          metadata: {
            finalizers: [...(cluster.metadata.finalizers ?? []), CLUSTER_FINALIZER],
            resourceVersion: cluster.metadata.resourceVersion,
          },
        },
        { fieldManager: this.fieldManager },
      );
      return;
    }

    const original = cloneJson(cluster);
    const paused = decidePaused(cluster);
    cluster.status = {
      ...cluster.status,
      conditions: setCondition(cluster.status?.conditions, paused.condition, this.clock),
    };
    if (paused.changed || paused.paused) {
      if (paused.changed) await patchStatus(this.client, ref, original.status, cluster.status);
      return;
    }

    const scope: ClusterScope = {
      cluster,
      infraClusterIsNotFound: false,
      controlPlaneIsNotFound: false,
      descendants: emptyDescendants(),
      getDescendantsSucceeded: false,
    };
    const errors: Error[] = [];
    const delays: (number | undefined)[] = [];
    try {
      const phase = (r: PhaseResult) => {
        for (const line of r.logs) ctx.log.log(line);
        for (const e of r.events) void this.events.event(cluster, e.type, e.reason, e.message);
        if (r.error) errors.push(r.error);
        delays.push(r.requeueAfterMs);
      };
      // A read error (other than NotFound) fails that phase only; the others still run (upstream doReconcile).
      const infra = await this.readRef(scope, 'infrastructureRef');
      scope.infraCluster = infra?.error ? undefined : infra?.object;
      scope.infraClusterIsNotFound = !!infra?.notFound;
      if (infra?.error) errors.push(infra.error);
      else phase(reconcileInfrastructurePhase(cluster, infra));
      const cp = await this.readRef(scope, 'controlPlaneRef');
      scope.controlPlane = cp?.error ? undefined : cp?.object;
      scope.controlPlaneIsNotFound = !!cp?.notFound;
      if (cp?.error) errors.push(cp.error);
      else phase(reconcileControlPlanePhase(cluster, cp));
      await this.getDescendants(scope).catch((e: Error) => errors.push(e));
      if (cluster.metadata.deletionTimestamp) {
        const gated = this.gates.enabled('RuntimeSDK') && this.gates.enabled('ClusterTopology');
        const del = await reconcileClusterDelete(
          scope,
          { client: this.client, events: this.events, log: ctx.log },
          gated,
        );
        if (del.error) errors.push(del.error);
        delays.push(del.requeueAfterMs);
      }
      // reconcileKubeconfig: only for Clusters without a control plane object; not ported (see README).
    } finally {
      await this.writeCluster(scope, original, errors.length === 0, ctx.signal);
    }
    if (errors.length)
      throw errors.length === 1 ? errors[0] : new AggregateError(errors, errors.map((e) => e.message).join('; '));
    return lowest(delays);
  }

  private async readRef(
    scope: ClusterScope,
    which: 'infrastructureRef' | 'controlPlaneRef',
  ): Promise<FailedRead | undefined> {
    const ref = scope.cluster.spec?.[which];
    if (!ref) return undefined;
    const read = await readExternal(this.cache, this.resolver, this.tracker, ref, scope.cluster.metadata.namespace);
    if (!read.object) return read;
    try {
      await ensureOwnerRefAndLabel(this.client, read.object, scope.cluster, this.fieldManager);
    } catch (e) {
      return { ...read, error: e as Error };
    }
    return read;
  }

  /** upstream getDescendants: the MachineDeployments, MachineSets and Machines with the Cluster's name label. */
  private async getDescendants(scope: ClusterScope): Promise<void> {
    const c = scope.cluster;
    const opts = { namespace: c.metadata.namespace, labelSelector: `${CLUSTER_NAME_LABEL}=${c.metadata.name}` };
    const list = async <T extends KubeObject>(apiVersion: string, kind: string): Promise<T[]> => {
      try {
        return (await this.client.list<T>(apiVersion, kind, { ...opts, readOnly: true })).items;
      } catch (e) {
        throw new Error(
          `failed to list ${kind}s for cluster ${c.metadata.namespace}/${c.metadata.name}: ${(e as Error).message}`,
        );
      }
    };
    const [machineDeployments, machineSets, machines] = await Promise.all([
      list<MachineDeployment>(MachineDeploymentGVK.apiVersion, 'MachineDeployment'),
      list<MachineSet>(MachineSetGVK.apiVersion, 'MachineSet'),
      list<Machine>(MachineGVK.apiVersion, 'Machine'),
    ]);
    scope.descendants = splitDescendants(c, { machineDeployments, machineSets, machines });
    scope.getDescendantsSucceeded = true;
  }

  /** The status (./status), then the changed spec, metadata and status fields (upstream's deferred patchCluster). */
  private async writeCluster(
    scope: ClusterScope,
    original: Cluster,
    succeeded: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    const cluster = scope.cluster;
    const controlPlaneContractVersion = scope.controlPlane ? 'v1beta2' : '';
    const key = { namespace: cluster.metadata.namespace!, name: cluster.metadata.name! };
    const { status, phaseChanged } = computeClusterStatus(scope, {
      controlPlaneContractVersion,
      healthCheckingState: this.clusterCache?.healthCheckingState(key),
      remoteConnectionGracePeriodMs:
        this.options.remoteConnectionGracePeriodMs ?? DEFAULT_REMOTE_CONNECTION_GRACE_PERIOD_MS,
      now: new Date(this.clock.now()),
    });
    if (phaseChanged)
      void this.events.event(cluster, 'Normal', status.phase!, `Cluster ${cluster.metadata.name} is ${status.phase}`);
    const ref = clusterRef(cluster.metadata.namespace, cluster.metadata.name!);
    const specPatch = createMergePatch(original.spec ?? {}, cluster.spec ?? {});
    const finalizers = cluster.metadata.finalizers ?? [];
    const finalizersChanged = finalizers.length !== (original.metadata.finalizers ?? []).length;
    let generation = cluster.metadata.generation;
    // As upstream's patch helper: metadata and spec first (a merge patch of what changed, not guarded by
    // resourceVersion), then the status, observing the generation the spec write produced.
    if (specPatch !== undefined || finalizersChanged) {
      const written = await this.client.patch<Cluster>(
        ref,
        'merge',
        {
          ...(finalizersChanged ? { metadata: { finalizers } } : {}),
          ...(specPatch !== undefined ? { spec: specPatch } : {}),
        },
        { fieldManager: this.fieldManager },
      );
      // The last finalizer gone: the Cluster is deleted, there is no status to write.
      if (finalizersChanged && !written) return;
      generation = written?.metadata.generation ?? generation;
      if (written) await this.observeOwnWrite(ref, written, signal);
    }
    if (succeeded && generation) status.observedGeneration = generation;
    try {
      const written = await patchStatus<Cluster>(this.client, ref, original.status, status);
      if (written) await this.observeOwnWrite(ref, written, signal);
    } catch (e) {
      if (!(finalizersChanged && isNotFound(e))) throw e;
    }
  }

  /**
   * Until the cache has this reconcile's own write. The conditions patch reads the Cluster from the cache and is guarded
   * by its resourceVersion (upstream's patch helper); the next reconcile often starts at once (a MachineDeployment
   * changed meanwhile), and from a cache still behind, its patch would be refused and retried 100 ms later.
   */
  private async observeOwnWrite(ref: ObjectRef, written: Cluster, signal: AbortSignal): Promise<void> {
    await this.cache.waitForResourceVersion(ref, written.metadata.resourceVersion!, OWN_WRITE_WAIT_MS, signal);
  }
}
