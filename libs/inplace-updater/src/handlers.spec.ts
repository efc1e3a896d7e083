import { applyPatch } from 'fast-json-patch';
import {
  decodePatch,
  HOOKS_API_VERSION,
  isPatchDefined,
  type CanUpdateMachineRequest,
  type HookObject,
  type Patch,
} from '@capi/api';
import { applyAcceptedChanges, DEFAULT_ACCEPTED_CHANGES } from './accepted-changes';
import { COMPLETED_MESSAGE, InPlaceUpdaterHandlers, UNEXPECTED_UPDATE_MESSAGE, UPDATING_MESSAGE } from './handlers';

const meta = { name: 'cp-1', namespace: 'default' };
const machine = (spec: Record<string, unknown>): HookObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: meta,
  spec,
});
const kubeadmConfig = (spec: Record<string, unknown>): HookObject => ({
  apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmConfig',
  metadata: meta,
  spec,
});
const devMachine = (spec: Record<string, unknown>): HookObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
  kind: 'DevMachine',
  metadata: meta,
  spec,
});

const request = (
  current: CanUpdateMachineRequest['current'],
  desired: CanUpdateMachineRequest['desired'],
  settings?: Record<string, string>,
): CanUpdateMachineRequest => ({
  apiVersion: HOOKS_API_VERSION,
  kind: 'CanUpdateMachineRequest',
  ...(settings ? { settings } : {}),
  current,
  desired,
});
const applied = (obj: HookObject, p: Patch | undefined) =>
  applyPatch(structuredClone(obj), decodePatch(p!).document as never).newDocument;

describe('reference updater CanUpdateMachine', () => {
  const h = new InPlaceUpdaterHandlers();
  const cur = {
    machine: machine({ version: 'v1.30.0', failureDomain: 'a' }),
    infrastructureMachine: devMachine({ backend: { docker: {} } }),
    bootstrapConfig: kubeadmConfig({ files: [{ path: '/a' }] }),
  };

  it('covers a Machine version + KubeadmConfig files change with JSON patches', () => {
    const des = {
      ...cur,
      machine: machine({ version: 'v1.31.0', failureDomain: 'a' }),
      bootstrapConfig: kubeadmConfig({ files: [{ path: '/a' }, { path: '/b' }] }),
    };
    const resp = h.canUpdateMachine(request(cur, des));
    expect(resp.status).toBe('Success');
    expect(decodePatch(resp.machinePatch!).patchType).toBe('JSONPatch');
    expect(applied(cur.machine, resp.machinePatch).spec).toEqual(des.machine.spec);
    expect(applied(cur.bootstrapConfig, resp.bootstrapConfigPatch).spec).toEqual(des.bootstrapConfig.spec);
    expect(decodePatch(resp.infrastructureMachinePatch!).document).toEqual([]);
  });

  it('does not cover other KubeadmConfig fields, e.g. joinConfiguration.nodeRegistration', () => {
    const des = {
      ...cur,
      bootstrapConfig: kubeadmConfig({
        files: [{ path: '/a' }],
        joinConfiguration: { nodeRegistration: { name: 'x' } },
      }),
    };
    const resp = h.canUpdateMachine(request(cur, des));
    expect(applied(cur.bootstrapConfig, resp.bootstrapConfigPatch).spec).not.toEqual(des.bootstrapConfig.spec);
  });

  it('with disableInPlaceUpdates=true answers Success without patches', () => {
    const des = { ...cur, machine: machine({ version: 'v1.31.0', failureDomain: 'a' }) };
    const resp = h.canUpdateMachine(request(cur, des, { disableInPlaceUpdates: 'true' }));
    expect(resp).toEqual({ status: 'Success' });
    expect([resp.machinePatch, resp.infrastructureMachinePatch, resp.bootstrapConfigPatch].some(isPatchDefined)).toBe(
      false,
    );
  });

  it('omitted bootstrapConfig on both sides yields an empty patch; malformed request throws', () => {
    const { bootstrapConfig: _b, ...noBootstrap } = cur;
    expect(decodePatch(h.canUpdateMachine(request(noBootstrap, noBootstrap)).bootstrapConfigPatch!).document).toEqual(
      [],
    );
    expect(() => h.canUpdateMachine({ ...request(cur, cur), desired: undefined } as never)).toThrow(
      'request field desired must be an object',
    );
  });
});

describe('reference updater CanUpdateMachineSet', () => {
  it('covers spec.template.spec.version and patches templates at spec.template.spec', () => {
    const h = new InPlaceUpdaterHandlers();
    const ms = (version: string): HookObject => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineSet',
      metadata: meta,
      spec: { template: { spec: { version } } },
    });
    const kct = (imageTag: string): HookObject => ({
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfigTemplate',
      metadata: meta,
      spec: { template: { spec: { clusterConfiguration: { etcd: { local: { imageTag } } } } } },
    });
    const tmpl: HookObject = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevMachineTemplate',
      metadata: meta,
      spec: { template: { spec: {} } },
    };
    const resp = h.canUpdateMachineSet({
      apiVersion: HOOKS_API_VERSION,
      kind: 'CanUpdateMachineSetRequest',
      current: {
        machineSet: ms('v1.30.0'),
        infrastructureMachineTemplate: tmpl,
        bootstrapConfigTemplate: kct('3.5.15-0'),
      },
      desired: {
        machineSet: ms('v1.31.0'),
        infrastructureMachineTemplate: tmpl,
        bootstrapConfigTemplate: kct('3.5.16-0'),
      },
    });
    expect(applied(ms('v1.30.0'), resp.machineSetPatch).spec).toEqual(ms('v1.31.0').spec);
    expect(applied(kct('3.5.15-0'), resp.bootstrapConfigTemplatePatch).spec).toEqual(kct('3.5.16-0').spec);
  });
});

describe('applyAcceptedChanges', () => {
  it('DevMachine bootstrapTimeout only when both sides have a docker backend', () => {
    const withDocker = devMachine({ backend: { docker: { bootstrapTimeout: '5m' } } });
    expect(
      applyAcceptedChanges(devMachine({ backend: { docker: {} } }), withDocker, DEFAULT_ACCEPTED_CHANGES).spec,
    ).toEqual(withDocker.spec);
    expect(applyAcceptedChanges(devMachine({ backend: {} }), withDocker, DEFAULT_ACCEPTED_CHANGES).spec).toEqual({
      backend: {},
    });
  });
  it('removes a field desired dropped, without leaving empty parents', () => {
    const cur = kubeadmConfig({ clusterConfiguration: { etcd: { local: { imageTag: 'x' } } } });
    expect(applyAcceptedChanges(cur, kubeadmConfig({}), DEFAULT_ACCEPTED_CHANGES).spec).toEqual({});
  });
  it('different kinds or unknown kinds are left untouched; extra kinds are configurable', () => {
    const a = { apiVersion: 'x/v1', kind: 'InMemoryMachine', metadata: meta, spec: { size: 1 } };
    const b = { ...a, spec: { size: 2 } };
    expect(applyAcceptedChanges(a, b, DEFAULT_ACCEPTED_CHANGES).spec).toEqual({ size: 1 });
    expect(applyAcceptedChanges(a, b, { InMemoryMachine: ['spec.size'] }).spec).toEqual({ size: 2 });
    expect(
      applyAcceptedChanges(
        machine({ version: 'a' }),
        { ...machine({ version: 'b' }), kind: 'Other' },
        DEFAULT_ACCEPTED_CHANGES,
      ).spec,
    ).toEqual({ version: 'a' });
  });
});

describe('reference updater UpdateMachine', () => {
  const req = (version = 'v1.31.0', settings?: Record<string, string>) => ({
    apiVersion: HOOKS_API_VERSION,
    kind: 'UpdateMachineRequest' as const,
    ...(settings ? { settings } : {}),
    desired: { machine: machine({ version }), infrastructureMachine: devMachine({}) },
  });

  it('reports progress with retryAfterSeconds 5 until 15 s + jitter after the first call, then completes', () => {
    let now = 1_000_000;
    const h = new InPlaceUpdaterHandlers({ now: () => now, random: () => 0.5 }); // jitter floor(0.5*5)=2 -> 17 s
    expect(h.updateMachine(req())).toEqual({ status: 'Success', message: UPDATING_MESSAGE, retryAfterSeconds: 5 });
    now += 17_000;
    expect(h.updateMachine(req())).toEqual({ status: 'Success', message: UPDATING_MESSAGE, retryAfterSeconds: 5 });
    now += 1;
    expect(h.updateMachine(req())).toEqual({ status: 'Success', message: COMPLETED_MESSAGE, retryAfterSeconds: 0 });
    // Idempotent: the same desired state stays completed.
    now += 60_000;
    expect(h.updateMachine(req())).toMatchObject({ retryAfterSeconds: 0 });
    // A new desired state starts a new update.
    expect(h.updateMachine(req('v1.32.0'))).toMatchObject({ retryAfterSeconds: 5 });
  });

  it('durations are configurable', () => {
    let now = 0;
    const h = new InPlaceUpdaterHandlers({
      now: () => now,
      updateDurationSeconds: 1,
      updateJitterSeconds: 0,
      retryAfterSeconds: 2,
    });
    expect(h.updateMachine(req())).toMatchObject({ retryAfterSeconds: 2 });
    now = 1001;
    expect(h.updateMachine(req())).toMatchObject({ retryAfterSeconds: 0 });
  });

  it('answers Failure when in-place updates are disabled', () => {
    expect(new InPlaceUpdaterHandlers().updateMachine(req('v1', { disableInPlaceUpdates: 'true' }))).toEqual({
      status: 'Failure',
      message: UNEXPECTED_UPDATE_MESSAGE,
      retryAfterSeconds: 0,
    });
  });
});
