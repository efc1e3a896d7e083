// Minimal Cluster controller for the embedded default (see cluster-status.ts for what it does and why).
import { Inject } from '@nestjs/common';
import { ClusterGVK, type Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  CACHED_CLIENT,
  ReconcilerFor,
  type Client,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { ContractVersionResolver, getReferenced, type ContractVersionedRef } from '@capi/external';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import { KubeadmControlPlaneGVK } from '@capi/api';
import { decideClusterWrites } from './cluster-status';

export const CLUSTER_FIELD_MANAGER = 'capi-cluster';
/** Requeue until infrastructure is provisioned and the control plane initialized. */
const RETRY_MS = 5_000;

/** Requests for the Cluster an object belongs to (its Cluster ownerReference). */
const toOwningCluster = (o: KubeObject) =>
  (o.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === 'Cluster' && r.apiVersion.startsWith(`${ClusterGVK.group}/`))
    .map((r) => ({ namespace: o.metadata.namespace, name: r.name }));

@ReconcilerFor({
  name: 'cluster',
  for: { apiVersion: ClusterGVK.apiVersion, kind: 'Cluster' },
  watches: [
    { apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryCluster', map: toOwningCluster },
    { apiVersion: KubeadmControlPlaneGVK.apiVersion, kind: 'KubeadmControlPlane', map: toOwningCluster },
  ],
  maxConcurrentReconciles: 5,
})
export class ClusterStatusReconciler implements Reconciler {
  private readonly versions: ContractVersionResolver;

  constructor(@Inject(CACHED_CLIENT) private readonly client: Client) {
    this.versions = new ContractVersionResolver(client);
  }

  async reconcile(req: Request): Promise<Result | void> {
    const cluster = await this.client.tryGet<Cluster>({
      apiVersion: ClusterGVK.apiVersion,
      kind: 'Cluster',
      namespace: req.namespace,
      name: req.name,
    });
    if (!cluster || cluster.metadata.deletionTimestamp) return;
    const [infraCluster, controlPlane] = await Promise.all([
      this.referenced(cluster.spec?.infrastructureRef, req.namespace),
      this.referenced(cluster.spec?.controlPlaneRef, req.namespace),
    ]);
    const writes = decideClusterWrites({ cluster, infraCluster, controlPlane });
    const meta = { name: cluster.metadata.name, namespace: cluster.metadata.namespace };
    if (writes.controlPlaneEndpoint) {
      await this.client.apply(
        {
          apiVersion: ClusterGVK.apiVersion,
          kind: 'Cluster',
          metadata: meta,
          spec: { controlPlaneEndpoint: writes.controlPlaneEndpoint },
        },
        { fieldManager: CLUSTER_FIELD_MANAGER, force: true },
      );
    }
    if (writes.initialization) {
      await this.client.apply(
        {
          apiVersion: ClusterGVK.apiVersion,
          kind: 'Cluster',
          metadata: meta,
          status: { initialization: writes.initialization },
        },
        { fieldManager: CLUSTER_FIELD_MANAGER, subresource: 'status', force: true },
      );
    }
    const init = { ...cluster.status?.initialization, ...writes.initialization };
    if (!init.infrastructureProvisioned || !init.controlPlaneInitialized) return { requeueAfterMs: RETRY_MS };
  }

  private async referenced(
    ref: ContractVersionedRef | undefined,
    namespace: string | undefined,
  ): Promise<KubeObject | undefined> {
    if (!ref) return undefined;
    try {
      return await getReferenced(this.client, this.versions, ref, namespace);
    } catch {
      return undefined; // CRD not installed yet: retried
    }
  }
}
