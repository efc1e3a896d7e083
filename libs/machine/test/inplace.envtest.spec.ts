// The Machine controller's in-place phase against the embedded API server and real HTTPS extension servers (upstream
// core/reconcilers/machine/machine_controller_inplace_update.go): markers, preconditions, UpdateMachine calls, retry
// cache, completion order, errors.
import {
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  type UpdateMachineRequest,
  type UpdateMachineResponse,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { ExtensionServer } from '@capi/runtime-client';
import {
  BOOTSTRAP_API,
  MACHINE_API,
  MARKERS_ON,
  PENDING_UPDATE_MACHINE,
  annotate,
  conditionOf,
  createMachineObjects,
  createNamespace,
  createNode,
  createReadyCluster,
  createRunningMachine,
  inPlaceUpdateCompleted,
  provisionBootstrap,
  provisionInfra,
  ref,
  triggerInPlaceUpdate,
} from './support/fixtures';
import { eventually, settle, TEST_INFRA_API_VERSION } from '@capi/envtest';
import { registerExtension, registerFaultyExtension, startHarness, type Harness } from './support/harness';

jest.setTimeout(60_000);

const annotationsOf = (o: KubeObject | undefined) => o?.metadata.annotations ?? {};
const cond = conditionOf;

type Responder = (req: UpdateMachineRequest) => Partial<UpdateMachineResponse>;

describe('Machine controller in-place phase (envtest, InPlaceUpdates on)', () => {
  let h: Harness;
  const ns = 'inplace';
  // One updater; tests script its answer per Machine.
  const calls: { machine: string; request: UpdateMachineRequest }[] = [];
  const responders = new Map<string, Responder>();
  const callsFor = (name: string) => calls.filter((c) => c.machine === name);
  const servers: ExtensionServer[] = [];

  /** (Re-)registers updater-a: answers with the responder of the Machine named in the request. */
  async function registerUpdaterA(): Promise<void> {
    servers.push(
      await registerExtension(h, 'updater-a', [
        {
          hook: 'UpdateMachine',
          name: 'update-machine',
          handle: (req) => {
            const machine = req.desired.machine.metadata.name!;
            calls.push({ machine, request: req });
            const r = responders.get(machine);
            if (!r) throw new Error(`no responder for ${machine}`);
            return r(req);
          },
        },
      ]),
    );
  }

  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    await registerUpdaterA();
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all(servers.map((x) => x.close()));
  });

  const machineRef = (name: string) => ref(MACHINE_API, 'Machine', ns, name);
  const infraRef = (name: string) => ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, `${name}-infra`);
  const bootRef = (name: string) => ref(BOOTSTRAP_API, 'KubeadmConfig', ns, `${name}-boot`);
  const getMachine = (name: string) => h.client.get<KubeObject>(machineRef(name));

  const runningMachine = (name: string, opts: { node?: boolean } = {}) =>
    createRunningMachine(h.client, ns, name, opts);
  const trigger = (name: string, parts: Parameters<typeof triggerInPlaceUpdate>[3] = {}) =>
    triggerInPlaceUpdate(h.client, ns, name, parts);

  it('full happy path: UpdateMachine with reduced desired objects, in progress with retryAfter, then completed', async () => {
    await runningMachine('happy');
    let done = false;
    responders.set('happy', () =>
      done
        ? { retryAfterSeconds: 0, message: 'Extension completed updating Machine' }
        : { retryAfterSeconds: 5, message: 'Extension is updating Machine' },
    );
    await trigger('happy');

    const updating = await eventually(async () => {
      const m = await getMachine('happy');
      return cond(m, 'Updating')?.message === 'In-place update in progress: Extension is updating Machine' && m;
    }, 'Updating=True InPlaceUpdating');
    expect(cond(updating, 'Updating')).toMatchObject({ status: 'True', reason: 'InPlaceUpdating' });
    // Updating is in the Ready summary (negative polarity): not Ready, hence not Available; phase Updating (upstream
    // core/reconcilers/machine/machine_controller_status.go).
    expect(cond(updating, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NotReady',
      message: '* Updating: In-place update in progress: Extension is updating Machine',
    });
    expect(cond(updating, 'Available')).toMatchObject({ status: 'False', reason: 'NotReady' });
    expect((updating.status as { phase?: string }).phase).toBe('Updating');
    expect(callsFor('happy')).toHaveLength(1);

    // The request: desired = the objects as stored, reduced (no status/uid/resourceVersion/managedFields/ownerReferences).
    const req = callsFor('happy')[0].request;
    expect(req.kind).toBe('UpdateMachineRequest');
    expect(Object.keys(req.desired).sort()).toEqual(['bootstrapConfig', 'infrastructureMachine', 'machine']);
    for (const o of Object.values(req.desired) as KubeObject[]) {
      expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
      expect(
        Object.keys(o.metadata)
          .sort()
          .filter((k) => !['name', 'namespace', 'labels', 'annotations'].includes(k)),
      ).toEqual([]);
    }
    expect(req.desired.machine).toMatchObject({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      spec: { version: 'v1.31.0', providerID: 'test://happy' },
    });
    expect(req.desired.infrastructureMachine).toMatchObject({
      apiVersion: TEST_INFRA_API_VERSION,
      kind: 'TestMachine',
      spec: { image: 'v1', providerID: 'test://happy' },
    });
    expect(annotationsOf(req.desired.machine as KubeObject)).toMatchObject({
      [UPDATE_IN_PROGRESS_ANNOTATION]: '',
      [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine',
    });

    // Within the retry window: reconciles do not call the extension and ask for a requeue after the remainder.
    await settle(h.manager, ['machine']);
    h.clock.advance(3000);
    await expect(h.reconcile({ namespace: ns, name: 'happy' })).resolves.toEqual({ requeueAfterMs: 2000 });
    expect(callsFor('happy')).toHaveLength(1);

    // After the retry time the extension is called again and reports completion.
    done = true;
    h.clock.advance(2000);
    await annotate(h.client, machineRef('happy'), { poke: '1' });
    const completed = await eventually(async () => {
      const m = await getMachine('happy');
      return cond(m, 'Updating')?.reason === 'NotUpdating' && m;
    }, 'Updating=False NotUpdating');
    expect(callsFor('happy')).toHaveLength(2);
    expect(cond(completed, 'Updating')?.status).toBe('False');
    expect(annotationsOf(completed)).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    expect(annotationsOf(completed)).not.toHaveProperty([PENDING_HOOKS_ANNOTATION]);
    expect(annotationsOf(await h.client.get(infraRef('happy')))).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    expect(annotationsOf(await h.client.get(bootRef('happy')))).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    const available = await eventually(async () => {
      const m = await getMachine('happy');
      return cond(m, 'Available')?.status === 'True' && m;
    }, 'Available again');
    expect(cond(available, 'Ready')).toMatchObject({ status: 'True', reason: 'Ready' });
    expect((available.status as { phase?: string }).phase).toBe('Running');
    await settle(h.manager, ['machine']);
    expect(callsFor('happy')).toHaveLength(2);
  });

  it('completing an update: the status written after the completion writes is not refused (rebased on those writes)', async () => {
    await runningMachine('own-writes');
    await settle(h.manager, ['machine']);
    const refusedStatusWrites = async () =>
      Object.entries((await h.env.countRequests()).failedWritesByManager)
        .filter(([k]) => k.includes(' cluster.x-k8s.io/machines/status '))
        .reduce((n, [, v]) => n + v, 0);
    // The update runs first (the test's own trigger writes race with the controller's status writes), then completes:
    // from `before` on the Machine controller is the only writer of this Machine.
    let done = false;
    responders.set('own-writes', () =>
      done
        ? { retryAfterSeconds: 0, message: 'Extension completed updating Machine' }
        : { retryAfterSeconds: 1, message: 'Extension is updating Machine' },
    );
    await trigger('own-writes');
    await eventually(async () => cond(await getMachine('own-writes'), 'Updating')?.status === 'True', 'Updating=True');
    await settle(h.manager, ['machine']);
    const before = await refusedStatusWrites();
    done = true;
    h.clock.advance(1000);
    await inPlaceUpdateCompleted(h.client, ns, 'own-writes');
    await settle(h.manager, ['machine']);
    // The completion patches (markers, then markAsDone) and the status write are one reconcile: the conditions are
    // rebased on a copy that has those writes, not on an older cached one (which the server refuses with a 409).
    expect((await refusedStatusWrites()) - before).toBe(0);
  });

  it('update-in-progress without pending hook -> no extension call (waiting for the owner)', async () => {
    await runningMachine('m25');
    responders.set('m25', () => ({ retryAfterSeconds: 0 }));
    await trigger('m25', { pending: false });
    await eventually(async () => cond(await getMachine('m25'), 'Updating')?.status === 'True', 'Updating=True');
    await settle(h.manager, ['machine']);
    expect(callsFor('m25')).toHaveLength(0);
    expect(annotationsOf(await getMachine('m25'))).toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    // The owner's last step makes the Machine controller proceed.
    await annotate(h.client, machineRef('m25'), PENDING_UPDATE_MACHINE);
    await eventually(async () => cond(await getMachine('m25'), 'Updating')?.reason === 'NotUpdating', 'completed');
    expect(callsFor('m25')).toHaveLength(1);
  });

  it('pending hook without update-in-progress -> markers cleaned, hook done, no call', async () => {
    await runningMachine('m26');
    await annotate(h.client, infraRef('m26'), MARKERS_ON);
    await annotate(h.client, bootRef('m26'), MARKERS_ON);
    await annotate(h.client, machineRef('m26'), PENDING_UPDATE_MACHINE);
    await eventually(
      async () => !(PENDING_HOOKS_ANNOTATION in annotationsOf(await getMachine('m26'))),
      'pending-hooks removed',
    );
    expect(annotationsOf(await h.client.get(infraRef('m26')))).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    expect(annotationsOf(await h.client.get(bootRef('m26')))).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    expect(callsFor('m26')).toHaveLength(0);
  });

  it('pending hook without update-in-progress and the InfraMachine gone -> cleaned up all the same (upstream)', async () => {
    await runningMachine('m26b');
    await annotate(h.client, bootRef('m26b'), MARKERS_ON);
    await h.client.delete(infraRef('m26b'));
    await annotate(h.client, machineRef('m26b'), PENDING_UPDATE_MACHINE);
    await eventually(
      async () => !(PENDING_HOOKS_ANNOTATION in annotationsOf(await getMachine('m26b'))),
      'pending-hooks removed',
    );
    expect(annotationsOf(await h.client.get(bootRef('m26b')))).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    expect(callsFor('m26b')).toHaveLength(0);
  });

  it('infra machine lacks update-in-progress -> no call; once marked -> call', async () => {
    await runningMachine('m27');
    responders.set('m27', () => ({ retryAfterSeconds: 0 }));
    await trigger('m27', { infra: false });
    await settle(h.manager, ['machine']);
    expect(callsFor('m27')).toHaveLength(0);
    await annotate(h.client, infraRef('m27'), MARKERS_ON); // the infra watch brings the Machine back
    await eventually(() => callsFor('m27').length === 1, 'UpdateMachine called');
    await eventually(async () => cond(await getMachine('m27'), 'Updating')?.reason === 'NotUpdating', 'completed');
  });

  it('missing nodeRef -> no call', async () => {
    await runningMachine('m28', { node: false });
    responders.set('m28', () => ({ retryAfterSeconds: 0 }));
    await trigger('m28');
    await settle(h.manager, ['machine']);
    expect(callsFor('m28')).toHaveLength(0);
    const m = await getMachine('m28');
    expect(annotationsOf(m)).toMatchObject({ ...MARKERS_ON, ...PENDING_UPDATE_MACHINE });
    expect(cond(m, 'Updating')).toMatchObject({ status: 'True', reason: 'InPlaceUpdating' });
  });

  it('retryAfterSeconds 10 -> requeue after 10 s, message, no call within 10 s', async () => {
    await runningMachine('m29');
    responders.set('m29', () => ({ retryAfterSeconds: 10, message: 'rebooting' }));
    await trigger('m29');
    const m = await eventually(async () => {
      const x = await getMachine('m29');
      return cond(x, 'Updating')?.message === 'In-place update in progress: rebooting' && x;
    }, 'in progress');
    expect(cond(m, 'Updating')).toMatchObject({ status: 'True', reason: 'InPlaceUpdating' });
    await settle(h.manager, ['machine']);
    await expect(h.reconcile({ namespace: ns, name: 'm29' })).resolves.toEqual({ requeueAfterMs: 10_000 });
    h.clock.advance(9_999);
    await expect(h.reconcile({ namespace: ns, name: 'm29' })).resolves.toEqual({ requeueAfterMs: 1 });
    expect(callsFor('m29')).toHaveLength(1);
    h.clock.advance(1);
    await expect(h.reconcile({ namespace: ns, name: 'm29' })).resolves.toEqual({ requeueAfterMs: 10_000 });
    expect(callsFor('m29')).toHaveLength(2);
  });

  it('Failure response -> reconcile error, InPlaceUpdateFailed, markers retained, retried', async () => {
    await runningMachine('m31');
    responders.set('m31', () => ({ status: 'Failure', message: 'disk full' }));
    await trigger('m31');
    const m = await eventually(async () => {
      const x = await getMachine('m31');
      return cond(x, 'Updating')?.reason === 'InPlaceUpdateFailed' && x;
    }, 'InPlaceUpdateFailed');
    expect(cond(m, 'Updating')).toMatchObject({
      status: 'True',
      message: 'UpdateMachine hook failed: please check controller logs for errors',
    });
    expect(annotationsOf(m)).toMatchObject({ ...MARKERS_ON, ...PENDING_UPDATE_MACHINE });
    expect(annotationsOf(await h.client.get(infraRef('m31')))).toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    await eventually(() => callsFor('m31').length >= 2, 'rate-limited retry');
    await expect(h.reconcile({ namespace: ns, name: 'm31' })).rejects.toThrow(
      /got failure response with message: disk full/,
    );
    // Once the extension recovers, the retried update completes.
    responders.set('m31', () => ({ retryAfterSeconds: 0 }));
    await eventually(async () => cond(await getMachine('m31'), 'Updating')?.reason === 'NotUpdating', {
      message: 'recovered',
      timeoutMs: 20_000,
    });
  });

  it('no UpdateMachine extension registered -> error, InPlaceUpdateFailed', async () => {
    await runningMachine('m32');
    const saved = h.registry.list().filter((r) => r.extensionConfigName === 'updater-a');
    expect(saved).toHaveLength(1);
    h.registry.remove('updater-a');
    try {
      await trigger('m32');
      await eventually(
        async () => cond(await getMachine('m32'), 'Updating')?.reason === 'InPlaceUpdateFailed',
        'InPlaceUpdateFailed',
      );
      await settle(h.manager, ['machine'], { quietMs: 50 }).catch(() => undefined); // it keeps retrying with backoff
      await expect(h.reconcile({ namespace: ns, name: 'm32' })).rejects.toThrow(
        'no extensions registered for UpdateMachine hook',
      );
    } finally {
      await registerUpdaterA();
    }
    responders.set('m32', () => ({ retryAfterSeconds: 0 }));
    await eventually(async () => cond(await getMachine('m32'), 'Updating')?.reason === 'NotUpdating', {
      message: 'completes once registered',
      timeoutMs: 20_000,
    });
  });

  it('InfraMachine not found -> error, "In-place update not possible: InfraMachine not found"', async () => {
    await runningMachine('m33');
    responders.set('m33', () => ({ retryAfterSeconds: 0 }));
    await h.client.delete(infraRef('m33'));
    await trigger('m33', { infra: false });
    const m = await eventually(async () => {
      const x = await getMachine('m33');
      return cond(x, 'Updating')?.reason === 'InPlaceUpdateFailed' && x;
    }, 'InPlaceUpdateFailed');
    expect(cond(m, 'Updating')?.message).toBe('In-place update not possible: InfraMachine not found');
    await expect(h.reconcile({ namespace: ns, name: 'm33' })).rejects.toThrow(
      'in-place update failed: InfraMachine not found',
    );
    expect(callsFor('m33')).toHaveLength(0);
  });

  it('BootstrapConfig referenced but gone -> UpdateMachine called without it, update completed (upstream)', async () => {
    await runningMachine('m34');
    responders.set('m34', () => ({ retryAfterSeconds: 0 }));
    await h.client.delete(bootRef('m34'));
    await trigger('m34', { bootstrap: false });
    await eventually(() => callsFor('m34').length === 1, 'UpdateMachine called');
    expect(Object.keys(callsFor('m34')[0].request.desired).sort()).toEqual(['infrastructureMachine', 'machine']);
    // Completed: markers gone (markAsDone last). Updating may never have been written True (one reconcile did it all).
    const m = await eventually(async () => {
      const x = await getMachine('m34');
      return !(PENDING_HOOKS_ANNOTATION in annotationsOf(x)) && x;
    }, 'completed');
    expect(annotationsOf(m)).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    await eventually(async () => cond(await getMachine('m34'), 'Updating')?.reason === 'NotUpdating', 'NotUpdating');
    expect(annotationsOf(await h.client.get(infraRef('m34')))).not.toHaveProperty([UPDATE_IN_PROGRESS_ANNOTATION]);
    await settle(h.manager, ['machine']);
    expect(callsFor('m34')).toHaveLength(1);
  });

  it.each([
    ['times out', 'slow' as const, /timed out/],
    ['returns 500', 'http500' as const, /got HTTP status 500/],
    ['returns garbage', 'truncatedJson' as const, /failed to decode response/],
  ])('an extension that %s -> InPlaceUpdateFailed, retried, manager alive', async (label, fault, errorPattern) => {
    const name = `bad-${label.replace(/[^a-z0-9]+/g, '')}`;
    await runningMachine(name);
    h.registry.remove('updater-a');
    const raw = await registerFaultyExtension(h, `raw-${name}`, fault);
    try {
      await trigger(name);
      const m = await eventually(
        async () => {
          const x = await getMachine(name);
          return cond(x, 'Updating')?.reason === 'InPlaceUpdateFailed' && x;
        },
        { message: 'InPlaceUpdateFailed', timeoutMs: 20_000 },
      );
      expect(cond(m, 'Updating')?.message).toBe('UpdateMachine hook failed: please check controller logs for errors');
      await eventually(() => raw.attempts() >= 2, { message: 'retried', timeoutMs: 20_000 });
      expect(annotationsOf(await getMachine(name))).toMatchObject({ ...MARKERS_ON, ...PENDING_UPDATE_MACHINE });
      await expect(h.reconcile({ namespace: ns, name })).rejects.toThrow(errorPattern);
    } finally {
      await raw.close();
      await registerUpdaterA();
    }
    // The manager is alive: the Machine completes with a working updater.
    responders.set(name, () => ({ retryAfterSeconds: 0 }));
    await eventually(async () => cond(await getMachine(name), 'Updating')?.reason === 'NotUpdating', {
      message: 'completes after recovery',
      timeoutMs: 30_000,
    });
  });

  it('several updaters are called in turn; retryAfterSeconds aggregated as the lowest non-zero', async () => {
    await runningMachine('multi');
    const seen: string[] = [];
    const b = await registerExtension(h, 'updater-b', [
      {
        hook: 'UpdateMachine',
        name: 'update-machine',
        handle: () => {
          seen.push('b');
          return { retryAfterSeconds: 30, message: 'b working' };
        },
      },
    ]);
    try {
      responders.set('multi', () => {
        seen.push('a');
        return { retryAfterSeconds: 7, message: 'a working' };
      });
      await trigger('multi');
      const m = await eventually(async () => {
        const x = await getMachine('multi');
        return cond(x, 'Updating')?.message?.startsWith('In-place update in progress: ') && x;
      }, 'in progress');
      expect(cond(m, 'Updating')?.message).toBe('In-place update in progress: a working, b working');
      expect(seen).toEqual(['a', 'b']);
      await settle(h.manager, ['machine']);
      await expect(h.reconcile({ namespace: ns, name: 'multi' })).resolves.toEqual({ requeueAfterMs: 7000 });
    } finally {
      h.registry.remove('updater-b');
      await b.close();
    }
  });
});

describe('Machine controller in-place phase with InPlaceUpdates off (envtest)', () => {
  let h: Harness;
  const ns = 'gateoff';
  let calls = 0;
  let close: () => Promise<void>;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
    const s = await registerExtension(h, 'updater', [
      {
        hook: 'UpdateMachine',
        name: 'update-machine',
        handle: () => {
          calls++;
          return { retryAfterSeconds: 0 };
        },
      },
    ]);
    close = () => s.close();
  });
  afterAll(async () => {
    await h?.close();
    await close?.();
  });

  it('never calls UpdateMachine and leaves markers as they are', async () => {
    const objs = await createMachineObjects(h.client, ns, { name: 'g1' });
    await provisionBootstrap(h.client, ns, objs.bootstrap!);
    await createNode(h.client, 'node-g1', 'test://g1');
    await provisionInfra(h.client, ns, objs.infra, 'test://g1');
    await eventually(
      async () => (await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'g1'))).status?.['nodeRef' as never],
      'nodeRef',
    );
    await annotate(h.client, ref(MACHINE_API, 'Machine', ns, 'g1'), { ...MARKERS_ON, ...PENDING_UPDATE_MACHINE });
    await annotate(h.client, ref(TEST_INFRA_API_VERSION, 'TestMachine', ns, objs.infra), MARKERS_ON);
    await annotate(h.client, ref(BOOTSTRAP_API, 'KubeadmConfig', ns, objs.bootstrap!), MARKERS_ON);
    await settle(h.manager, ['machine']);
    await h.reconcile({ namespace: ns, name: 'g1' });
    expect(calls).toBe(0);
    const m = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'g1'));
    expect(annotationsOf(m)).toMatchObject({ ...MARKERS_ON, ...PENDING_UPDATE_MACHINE });
    // Still reported as updating (IsUpdateInProgress) and not available.
    expect(cond(m, 'Updating')).toMatchObject({ status: 'True', reason: 'InPlaceUpdating' });
    expect(cond(m, 'Available')?.status).toBe('False');
  });
});
