// The shared fixtures against a real envtest server.
import { isNotFound } from '@capi/controller-runtime';
import {
  clientFor,
  type Envtest,
  extensionConfigFor,
  kubeConfigFor,
  startEnvtest,
  TEST_INFRA_API_VERSION,
  TEST_MACHINE_KIND,
  testMachineCrd,
} from '@capi/envtest';
import { type KubeObject } from '@capi/apimachinery';

let env: Envtest;
beforeAll(async () => {
  env = await startEnvtest({ installProjectCrds: false, crds: [testMachineCrd()] });
});
afterAll(async () => {
  await env?.stop();
});

describe('clientFor / kubeConfigFor', () => {
  it('connect to the envtest server from the Envtest or its kubeconfig text', async () => {
    expect(kubeConfigFor(env).getCurrentCluster()?.server).toBe(env.url);
    for (const client of [clientFor(env), clientFor(env.kubeconfig)]) {
      try {
        const ns = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' });
        expect(ns.metadata.name).toBe('default');
      } finally {
        client.close();
      }
    }
  });
});

describe('testMachineCrd', () => {
  it('serves TestMachine with free-form spec and a status subresource', async () => {
    const client = clientFor(env);
    try {
      const ref = { apiVersion: TEST_INFRA_API_VERSION, kind: TEST_MACHINE_KIND, namespace: 'default', name: 'tm' };
      await client.create({
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: 'tm', namespace: 'default' },
        spec: { providerID: 'test://tm', any: { thing: 1 } },
        status: { ignored: true },
      });
      await client.patch(
        ref,
        'merge',
        { status: { initialization: { provisioned: true } } },
        { subresource: 'status' },
      );
      const got = await client.get<KubeObject>(ref);
      expect(got.spec).toEqual({ providerID: 'test://tm', any: { thing: 1 } });
      expect(got.status).toEqual({ initialization: { provisioned: true } });
      expect(isNotFound(await client.get({ ...ref, name: 'missing' }).catch((e: unknown) => e))).toBe(true);
    } finally {
      client.close();
    }
    expect(testMachineCrd()).not.toBe(testMachineCrd());
  });
});

describe('extensionConfigFor', () => {
  it('points an ExtensionConfig at the endpoint, with a resourceVersion only when asked', () => {
    expect(extensionConfigFor('x', { url: 'https://127.0.0.1:1', caBundle: 'Q0E=' })).toEqual({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'x' },
      spec: { clientConfig: { url: 'https://127.0.0.1:1', caBundle: 'Q0E=' } },
    });
    expect(extensionConfigFor('x', { url: 'u', caBundle: 'c' }, { resourceVersion: '1' }).metadata).toEqual({
      name: 'x',
      resourceVersion: '1',
    });
  });
});
