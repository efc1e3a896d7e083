import { ApiError } from '@capi/controller-runtime';
import { ApiAccessError, checkApiAccess } from './api-access';

const failingWith = (e: unknown) => ({ mapper: { mapping: () => Promise.reject(e) } }) as never;
const status = (code: number, reason: string, message: string) =>
  new ApiError(code, { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message });

describe('checkApiAccess', () => {
  it('passes when discovery answers', async () => {
    await expect(checkApiAccess({ mapper: { mapping: async () => ({}) } } as never, 'https://x')).resolves.toBe(true);
  });

  it('401: the credentials were not accepted', async () => {
    await expect(checkApiAccess(failingWith(status(401, 'Unauthorized', 'Unauthorized')), 'https://x')).rejects.toThrow(
      new ApiAccessError(
        'the API server https://x did not accept the credentials of the kubeconfig (HTTP 401 Unauthorized): ' +
          'check its token, token file or client certificate',
      ),
    );
  });

  it('403 (anonymous on kube-apiserver): discovery refused to the user, with the server message', async () => {
    const forbidden = status(403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/apis"');
    await expect(checkApiAccess(failingWith(forbidden), 'https://x')).rejects.toThrow(
      'the API server https://x refused discovery to the user of the kubeconfig (HTTP 403 Forbidden: forbidden: ' +
        'User "system:anonymous" cannot get path "/apis"): check its token, token file or client certificate',
    );
  });

  it('leaves other failures (server not up, CRDs not installed) to the informers: no start-up failure', async () => {
    await expect(checkApiAccess(failingWith(new Error('connect ECONNREFUSED')), 'https://x')).resolves.toBe(true);
    await expect(checkApiAccess(failingWith(status(503, 'ServiceUnavailable', 'x')), 'https://x')).resolves.toBe(true);
  });
});
