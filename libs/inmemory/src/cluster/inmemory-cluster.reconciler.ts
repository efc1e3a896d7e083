// InMemoryCluster controller: starts the Cluster's workload API server, publishes `<cluster>-kubeconfig`, reports the
// control-plane endpoint and provisioned; on deletion stops the server.
import { Inject, Optional } from '@nestjs/common';
import { type PassiveClock, groupOf, jsonEqual } from '@capi/apimachinery';
import {
  CLUSTER_GROUP,
  CLUSTER_NAME_LABEL,
  ClusterGVK,
  NOT_READY_REASON,
  READY_CONDITION,
  READY_REASON,
  setCondition,
  type Cluster,
} from '@capi/api';
import {
  CACHED_CLIENT,
  KUBE_CLIENT,
  ReconcilerFor,
  type Client,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { clusterPausedTransitions } from '@capi/predicates';
import { ServerSideApplier } from '@capi/ssa';
import { INMEMORY_API_VERSION, type InMemoryCluster } from '../api/types';
import {
  AVAILABLE_REASON,
  INMEMORY_CLUSTER_CONTROLLER,
  INMEMORY_CLUSTER_FINALIZER,
  INMEMORY_FIELD_MANAGER,
  START_FAILED_REASON,
  WORKLOAD_API_SERVER_AVAILABLE_CONDITION,
} from '../api/constants';
import { INMEMORY_OPTIONS, WORKLOAD_CLUSTERS, type InMemoryProviderOptions } from '../options';
import {
  ensureKubeconfigSecret,
  type RunningWorkloadCluster,
  type WorkloadClusters,
} from '../workload/workload-clusters';
import { isPaused } from '../machine/decide';
import { addFinalizer, removeFinalizer } from '../util/finalizers';

const KIND = 'InMemoryCluster';
/** Requeue while the Cluster is missing or paused, or the workload API server failed to start. */
const RETRY_MS = 10_000;

/** The Cluster an InMemoryCluster belongs to: its Cluster ownerReference, else the cluster-name label. */
export function owningClusterName(infra: InMemoryCluster): string | undefined {
  const ref = infra.metadata.ownerReferences?.find(
    (r) => r.kind === 'Cluster' && groupOf(r.apiVersion) === CLUSTER_GROUP,
  );
  return ref?.name ?? infra.metadata.labels?.[CLUSTER_NAME_LABEL];
}

type InMemoryClusterStatus = NonNullable<InMemoryCluster['status']>;

/** Status after a start attempt (`running` undefined = the start failed with `error`). */
export function desiredClusterStatus(
  infra: InMemoryCluster,
  running: RunningWorkloadCluster | undefined,
  error: string | undefined,
  clock: PassiveClock,
): InMemoryClusterStatus {
  const current = infra.status ?? {};
  const generation = infra.metadata.generation;
  let conditions = setCondition(
    current.conditions,
    running
      ? {
          type: WORKLOAD_API_SERVER_AVAILABLE_CONDITION,
          status: 'True',
          reason: AVAILABLE_REASON,
          observedGeneration: generation,
        }
      : {
          type: WORKLOAD_API_SERVER_AVAILABLE_CONDITION,
          status: 'False',
          reason: START_FAILED_REASON,
          message: error,
          observedGeneration: generation,
        },
    clock,
  );
  conditions = setCondition(
    conditions,
    running
      ? { type: READY_CONDITION, status: 'True', reason: READY_REASON, observedGeneration: generation }
      : {
          type: READY_CONDITION,
          status: 'False',
          reason: NOT_READY_REASON,
          message: error,
          observedGeneration: generation,
        },
    clock,
  );
  return {
    ...current,
    conditions,
    initialization: { provisioned: !!running || current.initialization?.provisioned === true },
  };
}

@ReconcilerFor({
  name: INMEMORY_CLUSTER_CONTROLLER,
  for: { apiVersion: INMEMORY_API_VERSION, kind: KIND },
  watches: [
    {
      apiVersion: ClusterGVK.apiVersion,
      kind: ClusterGVK.kind,
      map: (c) => {
        const ref = (c as Cluster).spec?.infrastructureRef;
        return ref?.kind === KIND && c.metadata.namespace ? [{ namespace: c.metadata.namespace, name: ref.name }] : [];
      },
      // A pause flip only, not each Cluster status write (upstream's DevCluster reconciler, devcluster_reconciler.go).
      predicates: [clusterPausedTransitions],
    },
  ],
  maxConcurrentReconciles: 10,
})
export class InMemoryClusterReconciler implements Reconciler {
  private readonly applier: ServerSideApplier;
  private readonly now: () => number;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    /** Secrets are read directly (not cached). */
    @Inject(KUBE_CLIENT) private readonly direct: Client,
    @Inject(WORKLOAD_CLUSTERS) private readonly workloads: WorkloadClusters,
    @Inject(INMEMORY_OPTIONS) options: InMemoryProviderOptions,
    @Optional() applier?: ServerSideApplier,
  ) {
    this.applier = applier ?? new ServerSideApplier();
    this.now = options.now ?? Date.now;
  }

  async reconcile(req: Request): Promise<Result | void> {
    const infra = await this.client.tryGet<InMemoryCluster>({
      apiVersion: INMEMORY_API_VERSION,
      kind: KIND,
      namespace: req.namespace,
      name: req.name,
    });
    if (!infra) return;
    const clusterName = owningClusterName(infra);
    if (infra.metadata.deletionTimestamp) {
      if (clusterName) await this.workloads.stop({ namespace: req.namespace!, name: clusterName });
      if (infra.metadata.finalizers?.includes(INMEMORY_CLUSTER_FINALIZER))
        await removeFinalizer(this.client, infra, INMEMORY_CLUSTER_FINALIZER);
      return;
    }
    if (!clusterName) return; // waiting for the Cluster ownerReference or label
    const cluster = await this.client.tryGet<Cluster>({
      apiVersion: ClusterGVK.apiVersion,
      kind: 'Cluster',
      namespace: req.namespace,
      name: clusterName,
    });
    if (!cluster) return { requeueAfterMs: RETRY_MS };
    if (isPaused(cluster, infra)) return { requeueAfterMs: RETRY_MS };
    if (!infra.metadata.finalizers?.includes(INMEMORY_CLUSTER_FINALIZER))
      await addFinalizer(this.client, infra, INMEMORY_CLUSTER_FINALIZER);

    const identity = { namespace: req.namespace!, name: clusterName, uid: cluster.metadata.uid! };
    let running: RunningWorkloadCluster | undefined;
    let error: string | undefined;
    try {
      running = await this.workloads.ensure(
        identity,
        infra.spec.controlPlaneEndpoint?.port ?? cluster.spec.controlPlaneEndpoint?.port,
      );
      // Keeps the Secret current (someone may have deleted it, or the server restarted on another port).
      await ensureKubeconfigSecret(this.direct, identity, running.kubeconfig);
    } catch (e) {
      error = `workload API server: ${(e as Error).message}`;
    }
    if (running) await this.ensureEndpoint(infra, running);
    const status = desiredClusterStatus(infra, running, error, { now: this.now });
    if (!jsonEqual(infra.status ?? {}, status)) {
      await this.client.apply(
        {
          apiVersion: INMEMORY_API_VERSION,
          kind: KIND,
          metadata: { name: infra.metadata.name, namespace: infra.metadata.namespace },
          status,
        },
        { fieldManager: INMEMORY_FIELD_MANAGER, subresource: 'status', force: true },
      );
    }
    if (error) return { requeueAfterMs: RETRY_MS };
  }

  private async ensureEndpoint(infra: InMemoryCluster, running: RunningWorkloadCluster): Promise<void> {
    const want = { host: running.host, port: running.port };
    if (jsonEqual(infra.spec.controlPlaneEndpoint, want)) return;
    const intent = {
      apiVersion: INMEMORY_API_VERSION,
      kind: KIND,
      metadata: { name: infra.metadata.name, namespace: infra.metadata.namespace },
      spec: { controlPlaneEndpoint: want },
    };
    await this.applier.patch(this.client, intent, { fieldOwner: INMEMORY_FIELD_MANAGER, original: infra });
  }
}
