// canUpdateMachine / triggerInPlaceUpdate against the embedded API server: request contents, fallbacks, write order.
import { encodePatch, type CanUpdateMachineRequest, type KubeadmConfig, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient, Client, ControllerHandle, ObjectRef, PatchType } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { INMEMORY_API_VERSION, inMemoryCrds } from '@capi/inmemory';
import type { CoverageRuntimeClient } from '@capi/inplace';
import { ServerSideApplier } from '@capi/ssa';
import {
  CLUSTER,
  infraTemplate,
  kcp as kcpFixture,
  kubeadmConfig,
  machine as machineFixture,
  NS,
} from '../src/testing/fixtures';
import { canUpdateMachine, type InPlaceDeps, triggerInPlaceUpdate } from '../src/inplace';
import { computeDesiredInfraMachine } from '../src/desired';
import { type NotUpToDateResult, upToDate } from '../src/uptodate';

jest.setTimeout(30_000);

/** Wraps a client and records every write (verb, kind, body) in order. */
function recording(inner: Client): {
  client: Client;
  writes: { verb: string; kind: string; body: unknown; dryRun?: boolean }[];
} {
  const writes: { verb: string; kind: string; body: unknown; dryRun?: boolean }[] = [];
  const client = Object.create(inner) as Client;
  client.patch = <T extends KubeObject>(ref: ObjectRef, type: PatchType, body: unknown, opts?: object) => {
    writes.push({ verb: `patch:${type}`, kind: ref.kind, body });
    return inner.patch<T>(ref, type, body, opts);
  };
  client.apply = <T extends KubeObject>(obj: KubeObject, opts: { fieldManager: string; dryRun?: boolean }) => {
    writes.push({ verb: 'apply', kind: obj.kind, body: obj, dryRun: opts.dryRun });
    return inner.apply<T>(obj, opts as never);
  };
  return { client, writes };
}

/** A CanUpdateMachine extension double: answers with `patch` for the Machine, records requests. */
function fakeRuntimeClient(
  machinePatch?: unknown[],
): CoverageRuntimeClient & { requests: CanUpdateMachineRequest[]; names: string[] } {
  const requests: CanUpdateMachineRequest[] = [];
  const names = ['can-update-machine.updater'];
  return {
    requests,
    names,
    getAllExtensions: async () => names,
    callExtension: async (_hook, _obj, _name, request) => {
      requests.push(structuredClone(request) as CanUpdateMachineRequest);
      return {
        apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1',
        kind: 'CanUpdateMachineResponse',
        status: 'Success',
        ...(machinePatch ? { machinePatch: encodePatch('JSONPatch', machinePatch) } : {}),
      } as never;
    },
  };
}

/** A controller double recording which Machine resourceVersions the KCP's next reconcile is to wait for. */
function deferrals(): { controller: ControllerHandle; waitsFor: string[] } {
  const waitsFor: string[] = [];
  const controller: ControllerHandle = {
    deferNextReconcile: () => undefined,
    deferNextReconcileForObject: () => undefined,
    deferNextReconcileUntilCacheUpToDate: (reconciled, written, rv) =>
      void waitsFor.push(`${reconciled.kind} ${reconciled.metadata.name} waits for ${written.kind} ${rv}`),
    clearConsistencyStore: () => undefined,
  };
  return { controller, waitsFor };
}

describe('KCP in-place on envtest', () => {
  let env: Envtest;
  let kube: KubeClient;
  const applier = new ServerSideApplier();
  const events = { event: jest.fn(async () => undefined) };
  beforeAll(async () => {
    env = await startEnvtest({ crds: inMemoryCrds() });
    kube = clientFor(env);
    await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }).catch(() => undefined);
    // A real owner: objects owned by a made-up uid would be garbage collected, and applies pinning their uids refused.
    const owner = kcpFixture();
    delete owner.metadata.uid;
    kcpUid = (await kube.create(owner)).metadata.uid!;
  });
  let kcpUid = '';
  afterAll(async () => {
    kube?.close();
    await env?.stop();
  });

  let seq = 0;
  /** Creates Machine + KubeadmConfig + InMemoryMachine for a KCP at v1.30.0 and returns the result for `target`. */
  async function setup(
    target: ReturnType<typeof kcpFixture>,
    infraSpec: Record<string, unknown> = { image: 'ubuntu-22.04', resources: { cpu: 2 } },
  ): Promise<NotUpToDateResult> {
    const name = `m${++seq}`;
    const base = kcpFixture();
    base.metadata.uid = target.metadata.uid = kcpUid;
    const template = infraTemplate('tmpl-a', infraSpec);
    const infra = computeDesiredInfraMachine(base, CLUSTER, template, name);
    infra.apiVersion = INMEMORY_API_VERSION;
    const createdInfra = await kube.create(infra);
    const createdKc = await kube.create<KubeadmConfig>(kubeadmConfig(name, base, { init: true }));
    const m = machineFixture(name);
    delete m.status;
    delete m.metadata.uid;
    delete m.metadata.creationTimestamp;
    m.metadata.ownerReferences = m.metadata.ownerReferences!.map((r) => ({ ...r, uid: kcpUid }));
    const createdMachine = await kube.create<Machine>(m);
    return upToDate({
      kcp: target,
      clusterName: CLUSTER,
      machine: createdMachine,
      kubeadmConfig: createdKc,
      infraMachine: createdInfra,
      infraTemplate: infraTemplate('tmpl-a', infraSpec),
      now: new Date(),
    }).result;
  }

  const deps = (client: Client, runtimeClient?: CoverageRuntimeClient, controller?: ControllerHandle): InPlaceDeps => ({
    client,
    applier,
    runtimeClient,
    events,
    controller,
  });

  it('gate off: cannot update, no extension call', async () => {
    const rc = fakeRuntimeClient();
    const r = await setup(kcpFixture({ version: 'v1.30.1' }));
    expect(await canUpdateMachine(deps(kube, rc), r, false)).toEqual({
      canUpdate: false,
      reasons: ['InPlaceUpdates feature gate is disabled'],
      noUpdaters: true,
    });
    expect(rc.requests).toHaveLength(0);
  });

  it('no patches for a version change: cannot update; a JSONPatch setting spec.version: can update', async () => {
    const r = await setup(kcpFixture({ version: 'v1.30.1' }));
    const none = fakeRuntimeClient();
    const res = await canUpdateMachine(deps(kube, none), r, true);
    expect(res.canUpdate).toBe(false);
    expect(res.reasons[0]).toContain('Machine cannot be updated in-place: version: "v1.30.0" → "v1.30.1"');
    // What the InPlaceOnly policy reports: the uncovered field by path and the handler asked.
    expect(res.uncovered).toEqual([{ object: 'Machine', fields: ['spec.version'] }]);
    expect(res.asked).toEqual(['can-update-machine.updater']);
    const req = none.requests[0];
    // Reduced objects only, at the latest typed versions; the first Machine's init config compared as join.
    for (const o of [
      req.current.machine,
      req.desired.machine,
      req.current.infrastructureMachine,
      req.current.bootstrapConfig!,
    ]) {
      expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
      expect(Object.keys(o.metadata).every((k) => ['name', 'namespace', 'labels', 'annotations'].includes(k))).toBe(
        true,
      );
    }
    expect(req.current.bootstrapConfig?.apiVersion).toBe('bootstrap.cluster.x-k8s.io/v1beta2');
    expect(req.current.bootstrapConfig?.spec).toEqual(req.desired.bootstrapConfig?.spec);
    expect(req.current.infrastructureMachine.spec).toEqual(req.desired.infrastructureMachine.spec);

    const covering = fakeRuntimeClient([{ op: 'replace', path: '/spec/version', value: 'v1.30.1' }]);
    // The covering updater ("can-update-machine.updater") is the one the change belongs to.
    expect(await canUpdateMachine(deps(kube, covering), r, true)).toEqual({
      canUpdate: true,
      reasons: [],
      updaters: ['updater'],
    });
  });

  it('first Machine (init): a joinConfiguration change stays visible to the extension (init → join copies the current nodeRegistration)', async () => {
    const base = kcpFixture();
    const join = {
      nodeRegistration: { name: '{{ ds.meta_data.local_hostname }}', kubeletExtraArgs: [{ name: 'v', value: '4' }] },
    };
    const r = await setup(
      kcpFixture({
        version: 'v1.30.1',
        kubeadmConfigSpec: { ...base.spec.kubeadmConfigSpec, joinConfiguration: join },
      }),
    );
    // Only the version is covered: the join change must make the update impossible.
    const versionOnly = fakeRuntimeClient([{ op: 'replace', path: '/spec/version', value: 'v1.30.1' }]);
    const res = await canUpdateMachine(deps(kube, versionOnly), r, true);
    expect(res.canUpdate).toBe(false);
    expect(res.reasons.join(' ')).toContain(
      'KubeadmConfig cannot be updated in-place: joinConfiguration.nodeRegistration.kubeletExtraArgs',
    );
    const req = versionOnly.requests[0];
    const currentJoin = req.current.bootstrapConfig?.spec?.joinConfiguration as Record<string, unknown>;
    const desiredJoin = req.desired.bootstrapConfig?.spec?.joinConfiguration as Record<string, unknown>;
    expect(currentJoin.nodeRegistration).toEqual({
      name: '{{ ds.meta_data.local_hostname }}',
      imagePullPolicy: 'IfNotPresent',
    });
    expect(desiredJoin.nodeRegistration).toEqual({ ...join.nodeRegistration, imagePullPolicy: 'IfNotPresent' });
  });

  it('dry-run of the desired InfraMachine rejected as Invalid: cannot update, no extension call, no error', async () => {
    const target = kcpFixture({ version: 'v1.30.1' });
    const r = await setup(target);
    // cpu 0 violates the InMemoryMachine schema (minimum 1).
    r.desiredInfraMachine = { ...r.desiredInfraMachine!, spec: { image: 'ubuntu-22.04', resources: { cpu: 0 } } };
    const rc = fakeRuntimeClient();
    const res = await canUpdateMachine(deps(kube, rc), r, true);
    expect(res.canUpdate).toBe(false);
    expect(res.reasons[0]).toMatch(/^server side apply dry-run for desired InfraMachine failed: /);
    expect(rc.requests).toHaveLength(0);
  });

  it('no extension registered: cannot update', async () => {
    const r = await setup(kcpFixture({ version: 'v1.30.1' }));
    const rc = fakeRuntimeClient();
    rc.names.length = 0;
    expect((await canUpdateMachine(deps(kube, rc), r, true)).canUpdate).toBe(false);
  });

  it('trigger writes in the spec order and is re-entrant after a failure', async () => {
    const r = await setup(kcpFixture({ version: 'v1.30.1' }));
    const { client, writes } = recording(kube);
    const first = deferrals();
    await triggerInPlaceUpdate(deps(client, undefined, first.controller), kcpFixture(), r.currentMachine, r);
    const real = writes.filter((w) => !w.dryRun).map((w) => `${w.verb} ${w.kind}`);
    // The KubeadmConfig was created by another manager, so SSA cannot drop its initConfiguration: step 5's merge patch.
    expect(real).toEqual([
      'patch:merge Machine',
      'apply InMemoryMachine',
      'apply KubeadmConfig',
      'patch:merge KubeadmConfig',
      'apply Machine',
      'patch:merge Machine',
    ]);
    expect(writes[0].body).toEqual({
      metadata: { annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' } },
    });
    const infraIntent = writes[1].body as KubeObject;
    expect(infraIntent.metadata.labels).toBeUndefined();
    expect(infraIntent.metadata.annotations).toEqual({
      'cluster.x-k8s.io/cloned-from-name': 'tmpl-a',
      'cluster.x-k8s.io/cloned-from-groupkind': 'InMemoryMachineTemplate.infrastructure.cluster.x-k8s.io',
      'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
    });
    expect((writes[2].body as KubeObject).metadata.annotations).toEqual({
      'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
    });
    expect(writes[3].body).toEqual({ spec: { initConfiguration: null } });
    expect(writes[5].body).toEqual({
      metadata: { annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' } },
    });

    const m = await kube.get<Machine>({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      namespace: NS,
      name: r.currentMachine.metadata.name!,
    });
    expect(m.spec.version).toBe('v1.30.1');
    // The KCP's next reconcile waits for the cache to show the Machine marked, then pending (upstream inplace_trigger.go).
    const waits = first.waitsFor;
    expect(waits).toHaveLength(2);
    expect(waits[0]).toMatch(/^KubeadmControlPlane cp waits for Machine \d+$/);
    expect(waits[0]).not.toBe(waits[1]);
    expect(waits[1]).toBe(`KubeadmControlPlane cp waits for Machine ${m.metadata.resourceVersion}`);
    expect(m.metadata.annotations).toMatchObject({
      'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
      'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
    });
    const kc = await kube.get<KubeadmConfig>({
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfig',
      namespace: NS,
      name: m.metadata.name!,
    });
    expect(kc.spec.initConfiguration).toBeUndefined(); // the init Machine now looks joined
    expect(kc.spec.joinConfiguration).toMatchObject({ controlPlane: {} });
    expect(events.event).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'Machine' }),
      'Normal',
      'SuccessfulStartInPlaceUpdate',
      'Machine starting in-place update',
    );

    // Re-entrancy: a Machine already marked (a failed earlier attempt) is not marked again.
    const r2 = await setup(kcpFixture({ version: 'v1.30.1' }));
    const failing = recording(kube);
    const origApply = failing.client.apply;
    failing.client.apply = (async (obj: KubeObject, opts: never) => {
      if (obj.kind === 'KubeadmConfig') throw new Error('boom');
      return origApply(obj, opts);
    }) as Client['apply'];
    await expect(triggerInPlaceUpdate(deps(failing.client), kcpFixture(), r2.currentMachine, r2)).rejects.toThrow(
      /failed to complete triggering in-place update for Machine .*: boom/,
    );
    const marked = await kube.get<Machine>({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      namespace: NS,
      name: r2.currentMachine.metadata.name!,
    });
    expect(marked.metadata.annotations?.['in-place-updates.internal.cluster.x-k8s.io/update-in-progress']).toBe('');
    expect(marked.metadata.annotations?.['runtime.cluster.x-k8s.io/pending-hooks']).toBeUndefined();
    const retry = recording(kube);
    const again = deferrals();
    await triggerInPlaceUpdate(deps(retry.client, undefined, again.controller), kcpFixture(), marked, r2);
    expect(retry.writes.filter((w) => !w.dryRun).map((w) => `${w.verb} ${w.kind}`)).toEqual([
      'apply InMemoryMachine',
      'apply KubeadmConfig',
      'patch:merge KubeadmConfig',
      'apply Machine',
      'patch:merge Machine',
    ]);
    expect(again.waitsFor).toHaveLength(1); // not marked again: only the pending write is waited for
  });

  it('trigger records the contributing updaters on the Machine with the update-in-progress marker', async () => {
    const r = await setup(kcpFixture({ version: 'v1.30.1' }));
    const { client, writes } = recording(kube);
    await triggerInPlaceUpdate(deps(client), kcpFixture(), r.currentMachine, r, undefined, ['a-updater', 'b-updater']);
    expect(writes[0].body).toEqual({
      metadata: {
        annotations: {
          'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
          'in-place-updates.capi-inplace.io/updaters': 'a-updater,b-updater',
        },
      },
    });
    const m = await kube.get<Machine>({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      namespace: NS,
      name: r.currentMachine.metadata.name!,
    });
    // Kept through the later SSA of the desired Machine (another manager's field).
    expect(m.metadata.annotations).toMatchObject({
      'in-place-updates.capi-inplace.io/updaters': 'a-updater,b-updater',
      'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
    });
  });
});
