import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { inClusterKubeconfig, inClusterNamespace, inClusterUnavailableReason, NotInClusterError } from './in-cluster';

describe('in-cluster configuration (client-go rest.InClusterConfig)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'));
  const pod = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' };

  it('is unavailable without the service env or the token file, saying which', () => {
    expect(inClusterUnavailableReason({ env: {}, serviceAccountDir: dir })).toBe(
      'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
    expect(inClusterUnavailableReason({ env: pod, serviceAccountDir: dir })).toBe(
      `service account token ${join(dir, 'token')} does not exist`,
    );
    expect(() => inClusterKubeconfig({ env: {}, serviceAccountDir: dir })).toThrow(NotInClusterError);
  });

  it('points at https://<service host>:<port> with the token file and CA of the service account', () => {
    writeFileSync(join(dir, 'token'), 'tok');
    writeFileSync(join(dir, 'ca.crt'), 'not a real CA');
    writeFileSync(join(dir, 'namespace'), 'capi-system\n');
    const kc = new KubeConfig();
    kc.loadFromString(inClusterKubeconfig({ env: pod, serviceAccountDir: dir }));
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://[fd00::1]:6443', caFile: join(dir, 'ca.crt') });
    expect(kc.getCurrentUser()?.authProvider).toEqual({ name: 'tokenFile', config: { tokenFile: join(dir, 'token') } });
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('capi-system');
    expect(inClusterNamespace({ serviceAccountDir: dir })).toBe('capi-system');
  });
});
