import { startEnvtest, kubeConfigFor, testMachineCrd, TEST_INFRA_API_VERSION, TEST_MACHINE_KIND } from '@capi/envtest';
import { KubeClient } from '@capi/controller-runtime';
(async () => {
  const env = await startEnvtest({ target: process.env.T as any, installProjectCrds: false, crds: [testMachineCrd()] });
  const client = new KubeClient(kubeConfigFor(env));
  const c = (type: string, status: string) => ({ type, status, reason: `${type}${status}`, lastTransitionTime: '2026-01-01T00:00:00Z' });
  const ref = { apiVersion: TEST_INFRA_API_VERSION, kind: TEST_MACHINE_KIND, namespace: 'default', name: 'x' };
  await client.create({ apiVersion: TEST_INFRA_API_VERSION, kind: TEST_MACHINE_KIND, metadata: { name: 'x', namespace: 'default' }, spec: {} });
  const s1: any = await client.patch(ref, 'merge', { status: { phase: 'Pending', conditions: [c('A', 'True'), c('B', 'True')] } }, { subresource: 'status' });
  console.log('s1', s1.metadata.resourceVersion, JSON.stringify(s1.status));
  const s2: any = await client.patch(ref, 'merge', { metadata: { labels: { other: 'writer' } } });
  console.log('s2', s2.metadata.resourceVersion, JSON.stringify(s2.status));
  const s3: any = await client.patch(ref, 'merge', { status: { conditions: [c('A', 'True'), c('B', 'False')] } }, { subresource: 'status' });
  console.log('s3', s3.metadata.resourceVersion, JSON.stringify(s3.status));
  try { await client.patch(ref, 'merge', { metadata: { resourceVersion: s1.metadata.resourceVersion }, status: { phase: 'Running', conditions: [c('A', 'False'), c('B', 'True')] } }, { subresource: 'status' }); console.log('stale patch accepted!'); } catch (e: any) { console.log('stale patch', e.code); }
  const g: any = await client.get(ref);
  console.log('get', g.metadata.resourceVersion, JSON.stringify(g.status));
  client.close(); await env.stop();
})().catch((e) => { console.error('error:', e.message); process.exit(1); });
