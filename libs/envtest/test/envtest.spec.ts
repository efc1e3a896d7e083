import { readFileSync, existsSync, statSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { crdRegistry } from '@capi/api';
import { type Envtest, startEnvtest } from '@capi/envtest';

let env: Envtest;
beforeAll(async () => {
  env = await startEnvtest();
});
afterAll(async () => {
  await env?.stop();
});

describe('envtest', () => {
  it('serves every project CRD and writes a 0600 kubeconfig', async () => {
    expect(statSync(env.kubeconfigPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(env.kubeconfigPath, 'utf8')).toBe(env.kubeconfig);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(env.kubeconfigPath);
    const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
    const list = await api.listCustomResourceDefinition();
    const names = list.items.map((c) => c.metadata!.name).sort();
    expect(names).toEqual(
      crdRegistry
        .crds()
        .map((c) => c.metadata.name)
        .sort(),
    );
    for (const crd of list.items)
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
  });

  it('stop() shuts the server down and removes the kubeconfig', async () => {
    const other = await startEnvtest({ installProjectCrds: false });
    await other.stop();
    expect(existsSync(other.kubeconfigPath)).toBe(false);
  });
});
