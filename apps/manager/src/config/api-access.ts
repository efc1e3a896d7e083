// The manager's first request, as upstream's main makes it when it sets up its field indexes (controller-runtime
// resolves the Machine kind through discovery): credentials the API server refuses stop the start-up with one error
// line, instead of informers retrying forever behind a failing /readyz.
import { isApiError, type KubeClient } from '@capi/controller-runtime';

export const API_ACCESS_CHECKED = Symbol('API_ACCESS_CHECKED');

export class ApiAccessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiAccessError';
  }
}

/**
 * Discovers the Machine kind. 401/403 → ApiAccessError naming the server and what to check; other failures (the
 * server not up yet, CRDs not installed yet) are left to the informers' retries.
 */
export async function checkApiAccess(client: Pick<KubeClient, 'mapper'>, server: string): Promise<true> {
  try {
    await client.mapper.mapping('cluster.x-k8s.io/v1beta2', 'Machine');
  } catch (e) {
    if (isApiError(e) && (e.code === 401 || e.code === 403)) {
      const what = e.code === 401 ? 'did not accept the credentials' : 'refused discovery to the user';
      const detail = [e.reason, e.message !== e.reason ? e.message : undefined].filter(Boolean).join(': ');
      throw new ApiAccessError(
        `the API server ${server} ${what} of the kubeconfig (HTTP ${e.code}${detail ? ` ${detail}` : ''}): ` +
          'check its token, token file or client certificate',
      );
    }
  }
  return true;
}
