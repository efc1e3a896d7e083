// syncMachines against the embedded API server, without controllers: what its applies keep and take over (in-place
// update markers, objects created the old way, deleting Machines).
import {
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  type KubeadmConfig,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { INMEMORY_API_VERSION, inMemoryCrds } from '@capi/inmemory';
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/inplace';
import { ContractVersionResolver } from '@capi/external';
import { ServerSideApplier } from '@capi/ssa';
import { createMachine, type MachineIo } from '../src/machines';
import { CLUSTER, infraTemplate, kcp as kcpFixture, NS } from '../src/testing/fixtures';
import { computeDesiredInfraMachine, computeDesiredKubeadmConfig, computeDesiredMachine } from '../src/desired';
import { type ControlPlaneMachineObjects, syncMachines } from '../src/sync-machines';
import { KCP_MANAGER_NAME } from '../src/constants';
import { triggerInPlaceUpdate } from '../src/inplace';
import { upToDate } from '../src/uptodate';

jest.setTimeout(30_000);

type TemplateMetadata = { labels?: Record<string, string>; annotations?: Record<string, string> };

describe('syncMachines on envtest', () => {
  let env: Envtest;
  let kube: KubeClient;
  let io: MachineIo;
  let kcp: KubeadmControlPlane;
  const template = { ...infraTemplate('tmpl-a'), apiVersion: INMEMORY_API_VERSION };

  beforeAll(async () => {
    env = await startEnvtest({ crds: inMemoryCrds() });
    kube = clientFor(env);
    io = { client: kube, applier: new ServerSideApplier(), resolver: new ContractVersionResolver(kube) };
    await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }).catch(() => undefined);
    await kube.create(template);
    // A real KCP object, so that the ownerReferences of the objects below point at something that exists.
    const fixture = kcpFixture();
    delete fixture.metadata.uid;
    kcp = await kube.create(fixture);
  });
  afterAll(async () => {
    kube?.close();
    await env?.stop();
  });

  const withTemplate = (
    base: KubeadmControlPlane,
    metadata: TemplateMetadata,
    deletion?: Record<string, number>,
  ): KubeadmControlPlane => {
    const out = structuredClone(base);
    out.spec.machineTemplate.metadata = metadata;
    if (deletion) out.spec.machineTemplate.spec.deletion = deletion;
    return out;
  };
  async function read(m: Machine): Promise<Required<ControlPlaneMachineObjects>> {
    const machine = await kube.get<Machine>({
      apiVersion: m.apiVersion,
      kind: 'Machine',
      namespace: NS,
      name: m.metadata.name!,
    });
    const infraMachine = await kube.get({
      apiVersion: INMEMORY_API_VERSION,
      kind: 'InMemoryMachine',
      namespace: NS,
      name: m.spec.infrastructureRef.name,
    });
    const kubeadmConfig = await kube.get<KubeadmConfig>({
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfig',
      namespace: NS,
      name: m.spec.bootstrap.configRef!.name,
    });
    return { machine, infraMachine, kubeadmConfig };
  }
  const managers = (o: KubeObject) =>
    (o.metadata.managedFields ?? [])
      .filter((f) => !f.subresource)
      .map((f) => `${f.manager}/${f.operation}`)
      .sort();

  it('keeps the in-place update markers of a Machine being updated in place, and its new version', async () => {
    const v1 = withTemplate(kcp, { labels: { tier: 'gold' } });
    const created = await createMachine(io, v1, CLUSTER, template, true);
    // Trigger an in-place update to v1.31.0 the way the reconciler does (markers written by merge patches).
    const bumped = { ...structuredClone(v1), spec: { ...structuredClone(v1.spec), version: 'v1.31.0' } };
    const current = await read(created);
    const result = upToDate({
      kcp: bumped,
      clusterName: CLUSTER,
      ...current,
      infraTemplate: template,
      now: new Date(),
    }).result;
    await triggerInPlaceUpdate(
      { client: kube, applier: io.applier, events: { event: async () => undefined } },
      v1,
      current.machine,
      result,
      undefined,
      ['updater-a'],
    );

    // Meanwhile the KCP moved on to v1.32.0: the Machine still keeps the version it is being updated to.
    const changed = withTemplate(
      { ...bumped, spec: { ...bumped.spec, version: 'v1.32.0' } },
      { labels: { tier: 'platinum' }, annotations: { note: 'b' } },
      { nodeDrainTimeoutSeconds: 60 },
    );
    const [synced] = await syncMachines(io, changed, CLUSTER, [await read(created)]);
    const after = await read(created);
    expect(synced.metadata.resourceVersion).toBe(after.machine.metadata.resourceVersion);
    expect(after.machine.metadata.uid).toBe(created.metadata.uid);
    expect(after.machine.spec.version).toBe('v1.31.0');
    expect(after.machine.spec.deletion).toEqual({ nodeDrainTimeoutSeconds: 60 });
    expect(after.machine.metadata.annotations).toMatchObject({
      note: 'b',
      [UPDATE_IN_PROGRESS_ANNOTATION]: '',
      [IN_PLACE_UPDATERS_ANNOTATION]: 'updater-a',
      [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine',
    });
    for (const o of [after.machine, after.infraMachine, after.kubeadmConfig])
      expect(o.metadata.labels?.tier).toBe('platinum');
    for (const o of [after.infraMachine, after.kubeadmConfig])
      expect(o.metadata.annotations).toMatchObject({ note: 'b', [UPDATE_IN_PROGRESS_ANNOTATION]: '' });
  });

  it('migrates InfraMachines and KubeadmConfigs whose labels capi-kubeadmcontrolplane still owns, then removes dropped labels', async () => {
    // Created the old way: applied whole by capi-kubeadmcontrolplane, labels included, never handed over.
    const old = withTemplate(kcp, { labels: { tier: 'gold', stale: 'x' } });
    const name = 'cp-old01';
    const infra = computeDesiredInfraMachine(old, CLUSTER, template, name);
    const config = computeDesiredKubeadmConfig(old, CLUSTER, true, name);
    for (const o of [infra, config]) await io.applier.patch(kube, o, { fieldOwner: KCP_MANAGER_NAME });
    const machine = computeDesiredMachine({
      kcp: old,
      clusterName: CLUSTER,
      name,
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name },
      bootstrapConfigRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name },
    });
    await io.applier.patch(kube, machine, { fieldOwner: KCP_MANAGER_NAME });

    await syncMachines(io, withTemplate(kcp, { labels: { tier: 'gold' } }), CLUSTER, [await read(machine)]);
    let after = await read(machine);
    for (const o of [after.infraMachine, after.kubeadmConfig]) {
      expect(managers(o)).toEqual(['capi-kubeadmcontrolplane-metadata/Apply']);
      // Nobody owned "stale" after the migration (as upstream): it stays; the Machine, applied by KCP, loses it.
      expect(o.metadata.labels).toMatchObject({ tier: 'gold', stale: 'x' });
    }
    expect(after.machine.metadata.labels?.stale).toBeUndefined();

    await syncMachines(io, withTemplate(kcp, {}), CLUSTER, [after]);
    after = await read(machine);
    for (const o of [after.machine, after.infraMachine, after.kubeadmConfig]) {
      expect(o.metadata.labels?.tier).toBeUndefined();
      expect(o.metadata.labels).toMatchObject({
        'cluster.x-k8s.io/cluster-name': CLUSTER,
        'cluster.x-k8s.io/control-plane': '',
      });
    }
  });

  it('gives a deleting Machine only the deletion timeouts, leaving its labels and objects alone', async () => {
    const created = await createMachine(
      io,
      withTemplate(kcp, { labels: { tier: 'gold' } }, { nodeDrainTimeoutSeconds: 10, nodeDeletionTimeoutSeconds: 20 }),
      CLUSTER,
      template,
      true,
    );
    const ref = { apiVersion: created.apiVersion, kind: 'Machine', namespace: NS, name: created.metadata.name! };
    await kube.patch(ref, 'merge', { metadata: { finalizers: ['test.capi.io/hold'] } });
    await kube.delete(ref);
    const before = await read(created);
    expect(before.machine.metadata.deletionTimestamp).toBeDefined();

    const [synced] = await syncMachines(
      io,
      withTemplate(kcp, { labels: { tier: 'platinum' } }, { nodeDrainTimeoutSeconds: 30 }),
      CLUSTER,
      [before],
    );
    const after = await read(created);
    expect(synced.spec.deletion).toEqual({ nodeDrainTimeoutSeconds: 30 });
    expect(after.machine.spec.deletion).toEqual({ nodeDrainTimeoutSeconds: 30 });
    for (const o of [after.machine, after.infraMachine, after.kubeadmConfig])
      expect(o.metadata.labels?.tier).toBe('gold');
    expect(after.infraMachine.metadata.resourceVersion).toBe(before.infraMachine.metadata.resourceVersion);
    expect(after.kubeadmConfig.metadata.resourceVersion).toBe(before.kubeadmConfig.metadata.resourceVersion);
    await kube.patch(ref, 'merge', { metadata: { finalizers: null } });
  });
});
