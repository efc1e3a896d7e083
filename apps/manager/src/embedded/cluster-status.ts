// The part of upstream's Cluster controller the embedded default needs (no Cluster controller exists in this project
// yet): copy the infrastructure cluster's control-plane endpoint into Cluster.spec and mirror the infrastructure
// and control-plane initialization into Cluster.status.initialization, which the Machine and KCP controllers wait for.
import type { Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';

export interface ClusterInputs {
  cluster: Cluster;
  /** The object Cluster.spec.infrastructureRef names (undefined: not found yet or no ref). */
  infraCluster?: KubeObject;
  /** The object Cluster.spec.controlPlaneRef names. */
  controlPlane?: KubeObject;
}

export interface ClusterWrites {
  /** Cluster.spec.controlPlaneEndpoint to apply, when the infrastructure reports one the Cluster lacks. */
  controlPlaneEndpoint?: { host: string; port: number };
  /** Cluster.status.initialization to apply, when it changes. */
  initialization?: { infrastructureProvisioned?: boolean; controlPlaneInitialized?: boolean };
}

type Endpoint = { host?: string; port?: number } | undefined;
const validEndpoint = (e: Endpoint): e is { host: string; port: number } => !!e?.host && !!e.port;
const field = (o: KubeObject | undefined, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (cur, k) => (cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined),
    o,
  );

/** Decides the Cluster writes. Initialization flags only ever turn on (as upstream: they record a one-time event). */
export function decideClusterWrites({ cluster, infraCluster, controlPlane }: ClusterInputs): ClusterWrites {
  const out: ClusterWrites = {};
  const infraEndpoint = field(infraCluster, 'spec', 'controlPlaneEndpoint') as Endpoint;
  if (!validEndpoint(cluster.spec?.controlPlaneEndpoint) && validEndpoint(infraEndpoint)) {
    out.controlPlaneEndpoint = { host: infraEndpoint.host, port: infraEndpoint.port };
  }
  const current = cluster.status?.initialization ?? {};
  const infrastructureProvisioned =
    current.infrastructureProvisioned === true ||
    field(infraCluster, 'status', 'initialization', 'provisioned') === true;
  const controlPlaneInitialized =
    current.controlPlaneInitialized === true ||
    field(controlPlane, 'status', 'initialization', 'controlPlaneInitialized') === true;
  if (
    infrastructureProvisioned !== (current.infrastructureProvisioned === true) ||
    controlPlaneInitialized !== (current.controlPlaneInitialized === true)
  ) {
    out.initialization = {
      ...(infrastructureProvisioned ? { infrastructureProvisioned } : {}),
      ...(controlPlaneInitialized ? { controlPlaneInitialized } : {}),
    };
  }
  return out;
}
