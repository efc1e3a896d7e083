// metadata.generation per served kind, as kube's registry strategies set it: custom resources and CRDs start at 1 and
// bump on spec changes; the other built-ins never carry one (kube's BeforeUpdate also keeps clients from changing it).
import type { KubeObject } from '@capi/apimachinery';
import { builtinResources } from '../src/server/registry';
import { startTestServer, type TestServer } from './support/server';
import type { TestClient } from './support/test-client';

let ts: TestServer;
let c: TestClient;
beforeAll(async () => {
  ts = await startTestServer();
  c = ts.clients[0];
});
afterAll(async () => {
  await ts?.stop();
});

const ref = (o: KubeObject) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name!,
  namespace: o.metadata.namespace,
});

/** One object per built-in kind, and a change of its non-metadata content. */
const WITHOUT_GENERATION: [string, KubeObject, Record<string, unknown>][] = [
  [
    'Namespace',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gen-ns' } },
    { spec: { finalizers: ['kubernetes', 'example.com/x'] } },
  ],
  [
    'Secret',
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gen-s', namespace: 'default' }, data: { a: 'MQ==' } },
    { data: { a: 'Mg==' } },
  ],
  [
    'ConfigMap',
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gen-cm', namespace: 'default' }, data: { a: '1' } },
    { data: { a: '2' } },
  ],
  [
    'ServiceAccount',
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gen-sa', namespace: 'default' } } as KubeObject,
    { automountServiceAccountToken: false },
  ],
  [
    'Event',
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'gen-ev', namespace: 'default' },
      involvedObject: { kind: 'ConfigMap', name: 'x' },
      reason: 'A',
    },
    { reason: 'B' },
  ],
  [
    'events.k8s.io Event',
    {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'gen-ev2', namespace: 'default' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'c',
      reportingInstance: 'c-1',
      action: 'A',
      reason: 'A',
      type: 'Normal',
    },
    { series: { count: 2, lastObservedTime: '2026-01-01T00:00:05.000000Z' } },
  ], // kube's ValidateEventUpdate: note, reason... are immutable
  ['Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gen-node' } }, { spec: { unschedulable: true } }],
  [
    'Lease',
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'gen-l', namespace: 'default' },
      spec: { holderIdentity: 'a' },
    },
    { spec: { holderIdentity: 'b' } },
  ],
  [
    'PersistentVolume',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'gen-pv' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/gen' } },
    },
    { spec: { capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/gen' } } },
  ],
  [
    'PersistentVolumeClaim', // spec is immutable once created (kube's ValidatePersistentVolumeClaimUpdate)
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'gen-pvc', namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
    {},
  ],
  [
    'Service',
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gen-svc', namespace: 'default' },
      spec: { ports: [{ port: 80 }] },
    },
    { spec: { ports: [{ port: 81 }] } },
  ],
  [
    'VolumeAttachment', // spec is immutable (kube's ValidateVolumeAttachmentUpdate)
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'gen-va' },
      spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } },
    },
    {},
  ],
  ...(['Role', 'ClusterRole'] as const).map((kind): [string, KubeObject, Record<string, unknown>] => [
    kind,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name: `gen-${kind.toLowerCase()}`, ...(kind === 'Role' ? { namespace: 'default' } : {}) },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
    } as KubeObject,
    { rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }] },
  ]),
  ...(['RoleBinding', 'ClusterRoleBinding'] as const).map((kind): [string, KubeObject, Record<string, unknown>] => [
    kind,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name: `gen-${kind.toLowerCase()}`, ...(kind === 'RoleBinding' ? { namespace: 'default' } : {}) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'a' }],
    } as KubeObject,
    { subjects: [{ kind: 'User', name: 'b' }] },
  ]),
];

/** apps/v1 kinds: 1 on create, bumped by spec changes (kube's deployment/daemonset strategies). */
const WITH_GENERATION: KubeObject[] = (['Deployment', 'DaemonSet', 'ReplicaSet'] as const).map(
  (kind) =>
    ({
      apiVersion: 'apps/v1',
      kind,
      metadata: { name: `gen-${kind.toLowerCase()}`, namespace: 'default', generation: 5 },
      spec: {
        selector: { matchLabels: { app: 'gen' } },
        template: { metadata: { labels: { app: 'gen' } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    }) as KubeObject,
);

describe('metadata.generation', () => {
  it('covers every served built-in kind', () => {
    const tested = [
      ...WITHOUT_GENERATION.map(([, o]) => `${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}/${o.kind}`),
      ...WITH_GENERATION.map((o) => `apps/${o.kind}`),
      'apiextensions.k8s.io/CustomResourceDefinition',
      '/Pod',
      'policy/PodDisruptionBudget',
      'admissionregistration.k8s.io/MutatingWebhookConfiguration',
      'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
    ];
    expect(tested.sort()).toEqual(
      builtinResources()
        .filter((r) => !r.review) // answered, never stored
        .map((r) => `${r.group}/${r.kind}`)
        .sort(),
    );
  });

  it.each(WITHOUT_GENERATION)(
    '%s: none on create, update, merge patch and apply; a client cannot set it on update',
    async (_name, obj, change) => {
      const created = await c.create(obj);
      expect(created.metadata.generation).toBeUndefined();
      const updated = await c.update({
        ...created,
        ...change,
        metadata: { ...created.metadata, generation: 7 },
      } as KubeObject);
      expect(updated.metadata.generation).toBeUndefined();
      const patched = await c.patch(ref(created), 'merge', { metadata: { labels: { l: 'v' } } });
      expect(patched.metadata.generation).toBeUndefined();
      const applied = await c.apply(
        {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, annotations: { a: 'b' } },
        } as KubeObject,
        'gen-test',
      );
      expect(applied.metadata.generation).toBeUndefined();
    },
  );

  it('Pod: 1 on create, bumped by spec changes, not by metadata or status', async () => {
    const pod = await c.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'gen-pod', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
    } as KubeObject);
    expect(pod.metadata.generation).toBe(1);
    const labelled = await c.patch(ref(pod), 'merge', { metadata: { labels: { l: 'v' } } });
    expect(labelled.metadata.generation).toBe(1);
    const status = await c.patch(ref(pod), 'merge', { status: { phase: 'Running' } }, { subresource: 'status' });
    expect(status.metadata.generation).toBe(1);
    const image = await c.patch(ref(pod), 'merge', { spec: { activeDeadlineSeconds: 30 } });
    expect(image.metadata.generation).toBe(2);
  });

  it.each(WITH_GENERATION.map((o) => [o.kind, o] as const))(
    '%s: 1 on create even when the client sends another, bumped by spec changes only; a zero status on create',
    async (_kind, obj) => {
      const created = await c.create(obj);
      expect(created.metadata.generation).toBe(1);
      // The zero status as kube serialises it (DaemonSetStatus has four counters without omitempty).
      expect(created.status).toEqual(
        obj.kind === 'DaemonSet'
          ? { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }
          : obj.kind === 'ReplicaSet'
            ? { replicas: 0 }
            : {},
      );
      const labelled = await c.patch(ref(created), 'merge', { metadata: { labels: { l: 'v' } } });
      expect(labelled.metadata.generation).toBe(1);
      const changed = await c.patch(ref(created), 'merge', { spec: { minReadySeconds: 5 } });
      expect(changed.metadata.generation).toBe(2);
    },
  );

  it.each(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])(
    '%s: 1 on create, bumped when the webhooks change only',
    async (kind) => {
      const hook = (timeoutSeconds: number) => ({
        name: 'gen.example.com',
        clientConfig: { url: 'https://127.0.0.1:9/hook' },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['nothings'] }],
        timeoutSeconds,
      });
      const created = await c.create({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name: `gen-${kind.toLowerCase()}`, generation: 5 },
        webhooks: [hook(5)],
      } as KubeObject);
      expect(created.metadata.generation).toBe(1);
      const labelled = await c.patch(ref(created), 'merge', { metadata: { labels: { l: 'v' } } });
      expect(labelled.metadata.generation).toBe(1);
      const changed = await c.patch(ref(created), 'merge', { webhooks: [hook(6)] });
      expect(changed.metadata.generation).toBe(2);
    },
  );

  it('PodDisruptionBudget: 1 on create, bumped by spec changes only; a zero status on create', async () => {
    const created = await c.create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'gen-pdb', namespace: 'default', generation: 5 },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'gen-pdb' } } },
      status: { disruptionsAllowed: 9 },
    } as KubeObject);
    expect(created.metadata.generation).toBe(1);
    // PodDisruptionBudgetStatus' counters have no omitempty.
    expect(created.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const labelled = await c.patch(ref(created), 'merge', { metadata: { labels: { l: 'v' } } });
    expect(labelled.metadata.generation).toBe(1);
    const changed = await c.patch(ref(created), 'merge', { spec: { minAvailable: 2 } });
    expect(changed.metadata.generation).toBe(2);
  });

  it('CustomResourceDefinition: 1 on create, bumped by spec changes only', async () => {
    const crd = await c.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gens.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Gen', plural: 'gens' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    } as KubeObject);
    expect(crd.metadata.generation).toBe(1);
    // kube's SetDefaults_CustomResourceDefinitionSpec.
    expect(crd.spec).toMatchObject({
      names: { kind: 'Gen', plural: 'gens', singular: 'gen', listKind: 'GenList' },
      conversion: { strategy: 'None' },
    });
    const labelled = await c.patch(ref(crd), 'merge', { metadata: { labels: { l: 'v' } } });
    expect(labelled.metadata.generation).toBe(1);
    const renamed = await c.patch(ref(crd), 'merge', { spec: { names: { shortNames: ['gn'] } } });
    expect(renamed.metadata.generation).toBe(2);
  });

  it('custom resources: 1 on create even when the client sends another, bumped by spec changes', async () => {
    const w = await c.create({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'gen-w', namespace: 'default', generation: 5 },
      spec: { size: 1 },
    } as KubeObject);
    expect(w.metadata.generation).toBe(1);
    expect((await c.patch(ref(w), 'merge', { spec: { size: 2 } })).metadata.generation).toBe(2);
  });
});
