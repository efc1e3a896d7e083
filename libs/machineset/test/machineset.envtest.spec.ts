// The MachineSet controller alone on envtest (no Machine controller): creation from templates, adoption, deletion
// order and disable-machine-create (moves: moves.envtest.spec.ts).
import { CLUSTER_API_VERSION, type Machine, type MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { isConflict, isNotFound } from '@capi/controller-runtime';
import { settle } from '@capi/envtest';
import { ServerSideApplier, syncLabelsAndAnnotations } from '@capi/ssa';
import { MACHINESET_METADATA_FIELD_MANAGER } from '../src/machineset/metadata-sync';
import { eventually, INFRA_API_VERSION, INFRA_GROUP, machinesOf, startHarness, type Harness } from './support/harness';
import { computeDesiredMachine } from '../src/machineset/desired';
import { MACHINESET_FIELD_MANAGER } from '../src/machineset/inplace-start';

jest.setTimeout(60_000);

function machineSet(
  ns: string,
  name: string,
  replicas: number,
  opts: { annotations?: Record<string, string>; bootstrap?: boolean; order?: 'Oldest' | 'Newest' } = {},
): MachineSet {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    metadata: { name, namespace: ns, annotations: opts.annotations ?? {} },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: name } },
      ...(opts.order ? { deletion: { order: opts.order } } : {}),
      template: {
        metadata: { labels: { pool: name } },
        spec: {
          clusterName: 'c1',
          version: 'v1.30.0',
          bootstrap: opts.bootstrap
            ? { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'kct' } }
            : { dataSecretName: 'data' },
          infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
        },
      },
    },
  };
}

describe('MachineSet controller', () => {
  let h: Harness;
  const ns = 'ms';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true, machineLifecycle: false });
    await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await h.client.create({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachineTemplate',
      metadata: { name: 'tmpl', namespace: ns },
      spec: { template: { metadata: { labels: { from: 'tmpl' } }, spec: { image: 'v1' } } },
    });
    await h.client.create({
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfigTemplate',
      metadata: { name: 'kct', namespace: ns },
      spec: { template: { spec: { files: [{ path: '/etc/a', content: 'a' }] } } },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const owned = async (msName: string) =>
    (await machinesOf(h.client, ns)).filter((m) =>
      m.metadata.ownerReferences?.some((r) => r.controller && r.name === msName),
    );
  /** The one Machine a 1-replica MachineSet owns, once it exists. */
  const onlyMachine = async (msName: string) =>
    (
      await eventually(async () => {
        const list = await owned(msName);
        return list.length === 1 && list;
      }, '1 Machine')
    )[0];
  const getMS = (name: string) =>
    h.client.get<MachineSet>({ apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name });

  it('creates Machines with InfraMachines and BootstrapConfigs cloned from the templates', async () => {
    await h.env.resetRequests();
    const ms = await h.client.create(machineSet(ns, 'create', 2, { bootstrap: true }));
    const machines = await eventually(async () => {
      const list = await owned('create');
      return list.length === 2 && list;
    }, '2 Machines');
    for (const m of machines) {
      const name = m.metadata.name!;
      expect(name).toMatch(/^create-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(m.metadata.labels).toMatchObject({ pool: 'create', 'cluster.x-k8s.io/set-name': 'create' });
      expect(m.spec.infrastructureRef).toEqual({ apiGroup: INFRA_GROUP, kind: 'TestMachine', name });
      expect(m.spec.bootstrap.configRef).toEqual({
        apiGroup: 'bootstrap.cluster.x-k8s.io',
        kind: 'KubeadmConfig',
        name,
      });
      const infra = await h.client.get<KubeObject>({
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachine',
        namespace: ns,
        name,
      });
      expect(infra.metadata.annotations).toMatchObject({
        'cluster.x-k8s.io/cloned-from-name': 'tmpl',
        'cluster.x-k8s.io/cloned-from-groupkind': `TestMachineTemplate.${INFRA_GROUP}`,
      });
      expect(infra.metadata.labels).toMatchObject({
        from: 'tmpl',
        pool: 'create',
        'cluster.x-k8s.io/cluster-name': 'c1',
      });
      expect(infra.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'MachineSet', name: 'create', uid: ms.metadata.uid }),
      ]);
      expect(infra.spec).toEqual({ image: 'v1' });
      const config = await h.client.get<KubeObject>({
        apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmConfig',
        namespace: ns,
        name,
      });
      expect(config.spec).toEqual({ files: [{ path: '/etc/a', content: 'a' }] });
      expect(m.metadata.managedFields?.some((f) => f.manager === 'capi-machineset' && f.operation === 'Apply')).toBe(
        true,
      );
    }
    await eventually(async () => (await getMS('create')).status?.replicas === 2, 'status.replicas 2');
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'create' },
      'merge',
      { metadata: { annotations: { poke: '1' } } },
    );
    await settle(h.manager, ['machineset']);
    // One apply per Machine (its creation): syncMachines' intent for an existing Machine is that one, found in place.
    const counts = await h.env.countRequests();
    expect(counts.writesByManager['apply cluster.x-k8s.io/machines capi-machineset']).toBe(2);
    // Status as upstream's patch helper writes it: merge patches (a resourceVersion only with a conditions change), no
    // update with the cached copy's resourceVersion that a concurrent MachineDeployment write would make fail.
    const statusWrites = Object.entries(counts.writesByManager).filter(([k]) =>
      k.includes(' cluster.x-k8s.io/machinesets/status '),
    );
    expect(statusWrites.length).toBeGreaterThan(0);
    expect(statusWrites.map(([k]) => k.split(' ')[0])).toEqual(statusWrites.map(() => 'patch'));
  });

  it('defers its next reconcile until the cache shows what it created or deleted, and forgets that once the MachineSet is gone', async () => {
    const handle = h.manager.controller('machineset')!.handle;
    const deferred = jest.spyOn(handle, 'deferNextReconcileUntilCacheUpToDate');
    const cleared = jest.spyOn(handle, 'clearConsistencyStore');
    try {
      const ms = await h.client.create(machineSet(ns, 'deferred', 2, { bootstrap: true }));
      await eventually(async () => (await owned('deferred')).length === 2, '2 Machines');
      const writes = () =>
        deferred.mock.calls
          .filter(([reconciled]) => reconciled.metadata.name === 'deferred')
          .map(([, written, rv]) => ({ kind: written.kind, rv: Number(rv) }));
      const created = writes();
      const count = (kind: string, list = created) => list.filter((w) => w.kind === kind).length;
      // Upstream createMachines: after each bootstrap config, InfraMachine and Machine it creates.
      expect([count('KubeadmConfig'), count('TestMachine'), count('Machine')]).toEqual([2, 2, 2]);
      expect(created.every((w) => w.rv > 0)).toBe(true);
      await h.client.patch(
        { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'deferred' },
        'merge',
        { spec: { replicas: 0 } },
      );
      // Scale down: the delete answers with the Machine, deleting (the Machine finalizer), at its new version.
      await eventually(() => count('Machine', writes()) >= 4, 'deferrals on the deleted Machines');
      await h.client.delete({ apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'deferred' });
      await eventually(
        () => cleared.mock.calls.some(([req, uid]) => req.name === 'deferred' && uid === ms.metadata.uid),
        'cleared when the finalizer goes',
      );
    } finally {
      deferred.mockRestore();
      cleared.mockRestore();
    }
  });

  it('propagates template labels and annotations to InfraMachines and BootstrapConfigs, owned by capi-machineset-metadata', async () => {
    await h.client.create(machineSet(ns, 'meta', 1, { bootstrap: true }));
    const m = await onlyMachine('meta');
    const name = m.metadata.name!;
    const infraRef = { apiVersion: INFRA_API_VERSION, kind: 'TestMachine', namespace: ns, name };
    const configRef = { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2', kind: 'KubeadmConfig', namespace: ns, name };
    const applyEntry = (o: KubeObject, manager: string) =>
      o.metadata.managedFields?.find((f) => f.manager === manager && f.operation === 'Apply');
    const ownedLabels = (o: KubeObject, manager: string) =>
      Object.keys(((applyEntry(o, manager)?.fieldsV1?.['f:metadata'] as any)?.['f:labels'] ?? {}) as object).sort();
    for (const ref of [infraRef, configRef]) {
      const obj = await eventually(async () => {
        const o = await h.client.get<KubeObject>(ref);
        return applyEntry(o, 'capi-machineset-metadata') && o;
      }, `${ref.kind} labels owned by capi-machineset-metadata`);
      // capi-machineset created the object and gave labels and annotations up; it still owns the rest.
      expect(ownedLabels(obj, 'capi-machineset')).toEqual([]);
      expect((applyEntry(obj, 'capi-machineset')?.fieldsV1?.['f:metadata'] as any)?.['f:annotations']).toBeUndefined();
      expect(applyEntry(obj, 'capi-machineset')?.fieldsV1?.['f:spec']).toBeDefined();
      expect(ownedLabels(obj, 'capi-machineset-metadata')).toEqual([
        'f:cluster.x-k8s.io/cluster-name',
        'f:cluster.x-k8s.io/set-name',
        'f:pool',
      ]);
    }

    // A template label and annotation added, then the label dropped again: both objects follow, in place.
    const msRef = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'meta' };
    await h.client.patch(msRef, 'merge', {
      spec: { template: { metadata: { labels: { tier: 'gold' }, annotations: { note: 'b' } } } },
    });
    for (const ref of [infraRef, configRef]) {
      await eventually(async () => {
        const o = await h.client.get<KubeObject>(ref);
        return o.metadata.labels?.tier === 'gold' && o.metadata.annotations?.note === 'b';
      }, `${ref.kind} has tier=gold and note=b`);
    }
    await h.client.patch(msRef, 'merge', { spec: { template: { metadata: { labels: { tier: null } } } } });
    for (const ref of [infraRef, configRef]) {
      await eventually(
        async () => !(await h.client.get<KubeObject>(ref)).metadata.labels?.tier,
        `${ref.kind} lost tier`,
      );
    }
    let infra = await h.client.get<KubeObject>(infraRef);
    // What no metadata apply owns stays: the infra template's own label and the cloned-from annotations.
    expect(infra.metadata.labels).toMatchObject({ from: 'tmpl', pool: 'meta', 'cluster.x-k8s.io/set-name': 'meta' });
    expect(infra.metadata.annotations).toMatchObject({ note: 'b', 'cluster.x-k8s.io/cloned-from-name': 'tmpl' });
    // The template's last annotation dropped: the metadata apply, now without annotations (as upstream's, whose
    // SetAnnotations leaves an empty map out), releases it too. (The annotations no manager owns then differ by
    // server: kube-apiserver drops the whole map, as it would under upstream; the embedded server keeps them.)
    await h.client.patch(msRef, 'merge', { spec: { template: { metadata: { annotations: { note: null } } } } });
    for (const ref of [infraRef, configRef]) {
      await eventually(
        async () => !(await h.client.get<KubeObject>(ref)).metadata.annotations?.note,
        `${ref.kind} lost note`,
      );
    }
    infra = await h.client.get<KubeObject>(infraRef);
    expect(infra.metadata.labels).toMatchObject({ from: 'tmpl', pool: 'meta', 'cluster.x-k8s.io/set-name': 'meta' });
    expect(
      (await h.client.get<Machine>({ apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: ns, name })).metadata
        .uid,
    ).toBe(m.metadata.uid);
  });

  it('migrates InfraMachines whose labels capi-machineset still owns (created the old way) to capi-machineset-metadata', async () => {
    // An InfraMachine applied whole by capi-machineset, labels included, as before the metadata manager existed.
    await h.client.apply(
      {
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachine',
        metadata: {
          name: 'old',
          namespace: ns,
          labels: { pool: 'migrate', stale: 'x', 'cluster.x-k8s.io/cluster-name': 'c1' },
        },
        spec: { image: 'v1' },
      },
      { fieldManager: 'capi-machineset', force: true },
    );
    await h.client.create<Machine>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Machine',
      metadata: { name: 'old', namespace: ns, labels: { pool: 'migrate' } },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: 'data' },
        infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachine', name: 'old' },
      },
    });
    await h.client.create(machineSet(ns, 'migrate', 1)); // adopts the orphan: it is the one replica
    const infra = await eventually(async () => {
      const o = await h.client.get<KubeObject>({
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachine',
        namespace: ns,
        name: 'old',
      });
      return o.metadata.labels?.['cluster.x-k8s.io/set-name'] === 'migrate' && o;
    }, "adopted Machine's InfraMachine synced");
    const managers = infra.metadata.managedFields!.map((f) => `${f.manager}/${f.operation}`).sort();
    expect(managers).toEqual(['capi-machineset-metadata/Apply']);
    // The old owner's labels went with its entry: nobody owned "stale", so it stays; the wanted labels are owned.
    expect(infra.metadata.labels).toMatchObject({ stale: 'x', pool: 'migrate', 'cluster.x-k8s.io/cluster-name': 'c1' });
  });

  it('adopts an orphan matching the selector and scales down deleting the delete-machine annotated one first', async () => {
    await h.client.create(machineSet(ns, 'adopt', 2));
    const originals = await eventually(async () => {
      const list = await owned('adopt');
      return list.length === 2 && list;
    }, '2 Machines');
    await h.client.create<Machine>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Machine',
      metadata: {
        name: 'orphan',
        namespace: ns,
        labels: { pool: 'adopt' },
        annotations: { 'cluster.x-k8s.io/delete-machine': '' },
      },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: 'data' },
        infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachine', name: 'orphan' },
      },
    });
    await eventually(
      async () =>
        !(await h.client.tryGet({ apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: ns, name: 'orphan' })),
      'orphan adopted, then deleted first as surplus',
    );
    expect((await owned('adopt')).map((m) => m.metadata.uid).sort()).toEqual(
      originals.map((m) => m.metadata.uid).sort(),
    );
  });

  it('releases Machines that no longer match a changed selector and replaces them', async () => {
    await h.client.create(machineSet(ns, 'release', 1));
    const m = await onlyMachine('release');
    // The MS now selects other labels: its Machine no longer matches (labels the MS itself applies are re-asserted
    // by its SSA, so changing the Machine's own label would race with that).
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'release' },
      'merge',
      {
        spec: {
          selector: { matchLabels: { pool: 'release-v2' } },
          template: { metadata: { labels: { pool: 'release-v2' } } },
        },
      },
    );
    await eventually(async () => {
      const released = await h.client.get<Machine>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        namespace: ns,
        name: m.metadata.name!,
      });
      const list = await owned('release');
      return (
        !released.metadata.ownerReferences?.some((r) => r.controller) &&
        list.length === 1 &&
        list[0].metadata.labels?.pool === 'release-v2'
      );
    }, 'released and replaced');
  });

  it('does not create Machines with disable-machine-create and says so in ScalingUp', async () => {
    await h.client.create(
      machineSet(ns, 'disabled', 2, { annotations: { 'cluster.x-k8s.io/disable-machine-create': 'true' } }),
    );
    const ms = await eventually(async () => {
      const ms = await getMS('disabled');
      return ms.status?.conditions?.some((c) => c.type === 'ScalingUp' && c.status === 'True') && ms;
    }, 'ScalingUp reported');
    expect(ms.status?.conditions?.find((c) => c.type === 'ScalingUp')?.message).toContain('blocked');
    expect(await owned('disabled')).toEqual([]);
  });

  it('an intent built from a stale copy of a deleted Machine or InfraMachine is refused (409) and brings nothing back', async () => {
    // The cache can still hold a Machine the MachineSet just deleted; syncMachines' intents pin its uid for that case.
    const ms = await h.client.create(machineSet(ns, 'stale', 1, { bootstrap: true }));
    const stale = await onlyMachine('stale');
    const name = stale.metadata.name!;
    const infraRef = { apiVersion: INFRA_API_VERSION, kind: 'TestMachine', namespace: ns, name };
    const staleInfra = await h.client.get<KubeObject>(infraRef);
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: ns, name: 'stale' },
      'merge',
      { spec: { replicas: 0 } },
    );
    const machineRef = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: ns, name };
    await eventually(async () => !(await h.client.tryGet(machineRef)), 'Machine gone');
    await h.client.delete(infraRef).catch((e) => {
      if (!isNotFound(e)) throw e;
    });
    await eventually(async () => !(await h.client.tryGet(infraRef)), 'InfraMachine gone');

    const applier = new ServerSideApplier();
    const machineApply = await applier
      .patch(h.client, computeDesiredMachine(ms, stale), { fieldOwner: MACHINESET_FIELD_MANAGER, original: stale })
      .then(
        () => undefined,
        (e) => e,
      );
    expect(isConflict(machineApply)).toBe(true);
    expect((machineApply as Error).message).toContain(
      `uid mismatch: the provided object specified uid ${stale.metadata.uid}, and no existing object was found`,
    );
    const metadataApply = await syncLabelsAndAnnotations(applier, h.client, staleInfra, {
      fieldManager: MACHINESET_FIELD_MANAGER,
      metadataFieldManager: MACHINESET_METADATA_FIELD_MANAGER,
      labels: { pool: 'stale' },
      annotations: {},
      inputs: 'stale',
    }).then(
      () => undefined,
      (e) => e,
    );
    expect(isConflict(metadataApply)).toBe(true);
    for (const ref of [machineRef, infraRef]) expect(await h.client.tryGet(ref)).toBeUndefined();
  });
});
