// managedFields helpers against a real API server (envtest, either target): the in-place metadata hand-over scenario.
import { countingClientFor, startEnvtest, type Envtest } from '@capi/envtest';
import type { KubeObject } from '@capi/apimachinery';
import type { CountingClientMetrics, KubeClient } from '@capi/controller-runtime';
import {
  migrateManagedFields,
  mitigateManagedFieldsIssue,
  patch,
  removeManagedFieldsForLabelsAndAnnotations,
} from '@capi/ssa';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'devmachines.mf.test.capi.io' },
  spec: {
    group: 'mf.test.capi.io',
    scope: 'Namespaced',
    names: { kind: 'DevMachine', plural: 'devmachines', singular: 'devmachine', listKind: 'DevMachineList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};
const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
const devMachine = (name: string, labels?: Record<string, string>, spec?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'mf.test.capi.io/v1',
  kind: 'DevMachine',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  ...(spec ? { spec } : {}),
});
const ref = (name: string) => ({ apiVersion: 'mf.test.capi.io/v1', kind: 'DevMachine', namespace: 'default', name });

describe('managedFields helpers against an API server (envtest)', () => {
  let env: Envtest;
  let requests: CountingClientMetrics;
  let client: KubeClient;

  beforeAll(async () => {
    env = await startEnvtest({ installProjectCrds: false, crds: [crd] });
    ({ client, requests } = countingClientFor(env));
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });

  /** MachineSet creates the object owning everything, then the metadata manager takes labels over and drops "a". */
  async function handOver(name: string, dropOwnership: boolean): Promise<Record<string, string> | undefined> {
    const created = devMachine(name, { [CLUSTER_NAME]: 'c1', a: '1' }, { size: 1 });
    await patch(client, created, { fieldOwner: 'capi-machineset' });
    if (dropOwnership)
      expect(await removeManagedFieldsForLabelsAndAnnotations(client, created, 'capi-machineset')).toBe(true);
    await patch(client, devMachine(name, { [CLUSTER_NAME]: 'c1', a: '1' }), { fieldOwner: 'capi-machineset-metadata' });
    await patch(client, devMachine(name, { [CLUSTER_NAME]: 'c1' }), { fieldOwner: 'capi-machineset-metadata' });
    return (await client.get(ref(name))).metadata.labels;
  }

  it('after dropping ownership, the metadata manager alone owns labels and can remove one', async () => {
    expect(await handOver('m-drop', true)).toEqual({ [CLUSTER_NAME]: 'c1' });
    const obj = await client.get(ref('m-drop'));
    const ms = obj.metadata.managedFields!.find((e) => e.manager === 'capi-machineset')!;
    expect(JSON.stringify(ms.fieldsV1)).not.toContain('f:labels');
    expect(JSON.stringify(ms.fieldsV1)).toContain('f:spec');
    // Nothing left to drop: no write.
    requests.reset();
    expect(await removeManagedFieldsForLabelsAndAnnotations(client, obj, 'capi-machineset')).toBe(false);
    expect(requests.count('patch')).toBe(0);
  });

  it('control: without dropping ownership the label stays (co-owned by capi-machineset)', async () => {
    expect(await handOver('m-keep', false)).toEqual({ [CLUSTER_NAME]: 'c1', a: '1' });
  });

  it('retries with a fresh read when the passed object is stale', async () => {
    const stale = devMachine('m-stale', { [CLUSTER_NAME]: 'c1' }, { size: 1 });
    await patch(client, stale, { fieldOwner: 'capi-machineset' });
    await client.patch(
      ref('m-stale'),
      'merge',
      { metadata: { annotations: { bump: '1' } } },
      { fieldManager: 'other' },
    );
    expect(await removeManagedFieldsForLabelsAndAnnotations(client, stale, 'capi-machineset')).toBe(true);
    const fresh = await client.get(ref('m-stale'));
    expect(fresh.metadata.resourceVersion).toBe(stale.metadata.resourceVersion);
    expect(
      JSON.stringify(fresh.metadata.managedFields!.find((e) => e.manager === 'capi-machineset')!.fieldsV1),
    ).not.toContain('f:labels');
  });

  it('migrateManagedFields replaces the old owner with a seed entry for the metadata manager (once)', async () => {
    const obj = devMachine('m-migrate', { [CLUSTER_NAME]: 'c1', a: '1' }, { size: 1 });
    await patch(client, obj, { fieldOwner: 'capi-machineset' });
    expect(await migrateManagedFields(client, obj, 'capi-machineset', 'capi-machineset-metadata')).toBe(true);
    const after = await client.get(ref('m-migrate'));
    expect(after.metadata.managedFields!.map((e) => e.manager)).toEqual(['capi-machineset-metadata']);
    expect(await migrateManagedFields(client, after, 'capi-machineset', 'capi-machineset-metadata')).toBe(false);
    // The metadata manager now solely owns what it applies next and can drop "a".
    await patch(client, devMachine('m-migrate', { [CLUSTER_NAME]: 'c1', a: '1' }), {
      fieldOwner: 'capi-machineset-metadata',
    });
    await patch(client, devMachine('m-migrate', { [CLUSTER_NAME]: 'c1' }), { fieldOwner: 'capi-machineset-metadata' });
    expect((await client.get(ref('m-migrate'))).metadata.labels).toEqual({ [CLUSTER_NAME]: 'c1' });
  });

  it('mitigateManagedFieldsIssue seeds an entry for the manager when managedFields were wiped', async () => {
    const obj = devMachine('m-wiped', { a: '1' }, { size: 1 });
    await patch(client, obj, { fieldOwner: 'capi-kubeadmcontrolplane' });
    // The server bug leaves an object without entries (or with only before-first-apply); model it on a fresh read.
    const wiped = await client.get(ref('m-wiped'));
    wiped.metadata.managedFields = [];
    expect(await mitigateManagedFieldsIssue(client, wiped, 'capi-kubeadmcontrolplane')).toBe(true);
    const after = await client.get(ref('m-wiped'));
    expect(
      after.metadata.managedFields!.some((e) => e.manager === 'capi-kubeadmcontrolplane' && e.operation === 'Apply'),
    ).toBe(true);
    expect(await mitigateManagedFieldsIssue(client, after, 'capi-kubeadmcontrolplane')).toBe(false);
  });
});
