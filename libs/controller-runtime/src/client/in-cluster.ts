// In-cluster configuration, as client-go's rest.InClusterConfig (used by controller-runtime's config.GetConfig): the
// API server from KUBERNETES_SERVICE_HOST/PORT, the pod's service-account token and CA from the projected volume.
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';

/** Where the kubelet mounts the service account's token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  /** Environment to read KUBERNETES_SERVICE_HOST/PORT from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Directory holding `token`, `ca.crt` and `namespace` (default SERVICE_ACCOUNT_DIR). */
  serviceAccountDir?: string;
}

/** Not running in a pod (client-go's ErrNotInCluster), with what is missing. */
export class NotInClusterError extends Error {
  constructor(reason: string) {
    super(`unable to load in-cluster configuration: ${reason}`);
    this.name = 'NotInClusterError';
  }
}

/** Undefined when in-cluster configuration is available, else why not (missing env, missing token file). */
export function inClusterUnavailableReason(opts: InClusterOptions = {}): string | undefined {
  const env = opts.env ?? process.env;
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT)
    return 'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined';
  const token = join(opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, 'token');
  if (!existsSync(token)) return `service account token ${token} does not exist`;
  return undefined;
}

/**
 * The in-cluster kubeconfig (JSON, which is YAML). The token is referenced through client-node's `tokenFile` auth
 * provider, which re-reads it every 60 s (like client-go), so rotated projected tokens keep working; the CA by path.
 * Throws NotInClusterError outside a pod.
 */
export function inClusterKubeconfig(opts: InClusterOptions = {}): string {
  const reason = inClusterUnavailableReason(opts);
  if (reason) throw new NotInClusterError(reason);
  const env = opts.env ?? process.env;
  const dir = opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST!;
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT}`;
  const ca = join(dir, 'ca.crt');
  const namespace = inClusterNamespace(opts);
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'in-cluster', cluster: { server, ...(existsSync(ca) ? { 'certificate-authority': ca } : {}) } }],
    users: [
      {
        name: 'in-cluster',
        user: { 'auth-provider': { name: 'tokenFile', config: { tokenFile: join(dir, 'token') } } },
      },
    ],
    contexts: [
      {
        name: 'in-cluster',
        context: { cluster: 'in-cluster', user: 'in-cluster', ...(namespace ? { namespace } : {}) },
      },
    ],
    'current-context': 'in-cluster',
  });
}

/** The pod's namespace from the service-account volume; undefined when the file is absent. */
export function inClusterNamespace(opts: Pick<InClusterOptions, 'serviceAccountDir'> = {}): string | undefined {
  const file = join(opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, 'namespace');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}
