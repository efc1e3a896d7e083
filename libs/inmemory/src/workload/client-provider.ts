// Clients for workload clusters, built from the `<cluster>-kubeconfig` Secret like upstream's ClusterCache does.
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, KubeClient, type Client, type KubeClientOptions, type KubeObject } from '@capi/controller-runtime';
import { SECRET_VALUE_KEY, kubeconfigSecretName } from '../api/constants';
import type { ClusterKey } from './workload-clusters';

/**
 * Gives controllers a client for a Cluster's workload API server.
 * (No shared token existed in @capi/machine when this was written; it is defined here.)
 */
export interface WorkloadClusterClientProvider {
  /** Throws ApiError 404 when the kubeconfig Secret does not exist (yet). */
  getClient(cluster: ClusterKey): Promise<Client>;
}

export const WORKLOAD_CLUSTER_CLIENT_PROVIDER = Symbol('WORKLOAD_CLUSTER_CLIENT_PROVIDER');

/** The kubeconfig YAML of a Secret, or an Error saying what is wrong with it. */
export function kubeconfigFromSecret(secret: KubeObject): string | Error {
  const value = (secret.data as Record<string, string> | undefined)?.[SECRET_VALUE_KEY];
  if (typeof value !== 'string' || value === '') return new Error(`Secret ${secret.metadata.namespace}/${secret.metadata.name} has no "${SECRET_VALUE_KEY}" key`);
  return Buffer.from(value, 'base64').toString('utf8');
}

/**
 * Reads the kubeconfig Secret through `secrets` (pass the cached client so a read costs no request) and keeps one
 * KubeClient per cluster until the Secret's resourceVersion changes (e.g. the workload server moved).
 */
export class KubeconfigSecretClientProvider implements WorkloadClusterClientProvider {
  private readonly clients = new Map<string, { resourceVersion: string; client: KubeClient }>();

  constructor(
    private readonly secrets: Client,
    private readonly clientOptions: KubeClientOptions = {},
  ) {}

  async getClient(cluster: ClusterKey): Promise<Client> {
    const name = kubeconfigSecretName(cluster.name);
    const secret = await this.secrets.get({ apiVersion: 'v1', kind: 'Secret', namespace: cluster.namespace, name });
    const key = `${cluster.namespace}/${cluster.name}`;
    const rv = secret.metadata.resourceVersion ?? '';
    const cached = this.clients.get(key);
    if (cached && cached.resourceVersion === rv) return cached.client;
    const yaml = kubeconfigFromSecret(secret);
    if (yaml instanceof Error) {
      throw new ApiError(422, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message: yaml.message });
    }
    const kc = new KubeConfig();
    try {
      kc.loadFromString(yaml);
    } catch (e) {
      throw new ApiError(422, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message: `Secret ${cluster.namespace}/${name}: invalid kubeconfig: ${(e as Error).message}` });
    }
    cached?.client.close();
    const client = new KubeClient(kc, this.clientOptions);
    this.clients.set(key, { resourceVersion: rv, client });
    return client;
  }

  /** Drops the client of one cluster (e.g. after the Cluster is deleted). */
  forget(cluster: ClusterKey): void {
    const key = `${cluster.namespace}/${cluster.name}`;
    this.clients.get(key)?.client.close();
    this.clients.delete(key);
  }

  close(): void {
    for (const { client } of this.clients.values()) client.close();
    this.clients.clear();
  }
}
