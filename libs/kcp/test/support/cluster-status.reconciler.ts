// Test stand-in for the Cluster controller (not part of this project yet): mirrors InMemoryCluster provisioned and
// KCP controlPlaneInitialized into Cluster status.initialization, which the Machine controller waits for.
import { Inject } from '@nestjs/common';
import {
  CLUSTER_NAME_LABEL,
  ClusterGVK,
  CONTROLPLANE_API_VERSION,
  type Cluster,
  type KubeadmControlPlane,
} from '@capi/api';
import { CACHED_CLIENT, ReconcilerFor, type Client, type Reconciler, type Request } from '@capi/controller-runtime';
import { INMEMORY_API_VERSION, type InMemoryCluster } from '@capi/inmemory';

const toCluster = (o: { metadata: { namespace?: string; labels?: Record<string, string> } }) => {
  const name = o.metadata.labels?.[CLUSTER_NAME_LABEL];
  return name && o.metadata.namespace ? [{ namespace: o.metadata.namespace, name }] : [];
};

@ReconcilerFor({
  name: 'test-cluster-status',
  for: { apiVersion: ClusterGVK.apiVersion, kind: 'Cluster' },
  watches: [
    { apiVersion: CONTROLPLANE_API_VERSION, kind: 'KubeadmControlPlane', map: toCluster },
    { apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryCluster', map: toCluster },
  ],
})
export class ClusterStatusMirror implements Reconciler {
  constructor(@Inject(CACHED_CLIENT) private readonly client: Client) {}

  async reconcile(req: Request): Promise<void> {
    const cluster = await this.client.tryGet<Cluster>({ apiVersion: ClusterGVK.apiVersion, kind: 'Cluster', ...req });
    if (!cluster?.spec) return;
    const infraRef = cluster.spec.infrastructureRef;
    const cpRef = cluster.spec.controlPlaneRef;
    const infra =
      infraRef &&
      (await this.client.tryGet<InMemoryCluster>({
        apiVersion: INMEMORY_API_VERSION,
        kind: 'InMemoryCluster',
        namespace: req.namespace,
        name: infraRef.name,
      }));
    const kcp =
      cpRef &&
      (await this.client.tryGet<KubeadmControlPlane>({
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'KubeadmControlPlane',
        namespace: req.namespace,
        name: cpRef.name,
      }));
    const initialization = {
      infrastructureProvisioned: infra?.status?.initialization?.provisioned === true,
      controlPlaneInitialized: kcp?.status?.initialization?.controlPlaneInitialized === true,
    };
    const now = cluster.status?.initialization ?? {};
    if (
      now.infrastructureProvisioned === initialization.infrastructureProvisioned &&
      now.controlPlaneInitialized === initialization.controlPlaneInitialized
    )
      return;
    await this.client.patch(
      { apiVersion: ClusterGVK.apiVersion, kind: 'Cluster', namespace: req.namespace, name: req.name! },
      'merge',
      { status: { initialization } },
      { subresource: 'status' },
    );
  }
}
