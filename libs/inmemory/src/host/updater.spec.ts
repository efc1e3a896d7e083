import { HOOKS_API_VERSION, decodePatch, type UpdateMachineRequest } from '@capi/api';
import { InPlaceUpdaterHandlers } from '@capi/inplace-updater';
import { INMEMORY_ACCEPTED_CHANGES, updateMachineOnHost, withInMemoryAcceptedChanges } from './updater';
import type { InMemoryHostBackend } from './backend';

const infra = (spec: Record<string, unknown>) => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
  kind: 'InMemoryMachine',
  metadata: { name: 'm', namespace: 'ns' },
  spec,
});
const machine = (version: string) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'ns' },
  spec: { version },
});

/** Records calls; optionally fails applyUpdate once. */
class RecordingBackend implements InMemoryHostBackend {
  calls: string[] = [];
  failNext = false;
  async beginUpdate() {
    this.calls.push('begin');
  }
  async applyUpdate() {
    this.calls.push('apply');
    if (this.failNext) {
      this.failNext = false;
      throw new Error('host unreachable');
    }
  }
}

describe('accepted changes for InMemoryMachine', () => {
  const handlers = new InPlaceUpdaterHandlers(withInMemoryAcceptedChanges({}));
  const canUpdate = (cur: Record<string, unknown>, des: Record<string, unknown>) =>
    decodePatch(
      handlers.canUpdateMachine({
        apiVersion: HOOKS_API_VERSION,
        kind: 'CanUpdateMachineRequest',
        current: { machine: machine('v1'), infrastructureMachine: infra(cur) },
        desired: { machine: machine('v1'), infrastructureMachine: infra(des) },
      }).infrastructureMachinePatch!,
    ).document;

  it('covers resources and vmBootstrapTimeout', () => {
    expect(canUpdate({ resources: { cpu: 2 } }, { resources: { cpu: 4, memoryMiB: 512 } })).toEqual([
      { op: 'replace', path: '/spec/resources/cpu', value: 4 },
      { op: 'add', path: '/spec/resources/memoryMiB', value: 512 },
    ]);
    expect(canUpdate({}, { backend: { inMemory: { vmBootstrapTimeout: '5m' } } })).toEqual([
      { op: 'add', path: '/spec/backend', value: { inMemory: { vmBootstrapTimeout: '5m' } } },
    ]);
  });

  it('does not cover image', () => {
    expect(canUpdate({ image: 'a' }, { image: 'b' })).toEqual([]);
  });

  it('keeps explicit per-kind overrides and the defaults of other kinds', () => {
    const merged = withInMemoryAcceptedChanges({
      acceptedChanges: { InMemoryMachine: ['spec.image'] },
    }).acceptedChanges;
    expect(merged.InMemoryMachine).toEqual(['spec.image']);
    expect(merged.InMemoryMachineTemplate).toEqual(INMEMORY_ACCEPTED_CHANGES.InMemoryMachineTemplate);
  });
});

describe('updateMachineOnHost', () => {
  let now = 0;
  const req: UpdateMachineRequest = {
    apiVersion: HOOKS_API_VERSION,
    kind: 'UpdateMachineRequest',
    desired: { machine: machine('v2'), infrastructureMachine: infra({}) },
  };

  it('begins while in progress, applies when completed, and turns a backend error into a retried Failure', async () => {
    const handlers = new InPlaceUpdaterHandlers({ now: () => now, random: () => 0, updateDurationSeconds: 15 });
    const backend = new RecordingBackend();
    expect(await updateMachineOnHost(handlers, backend, req)).toMatchObject({ retryAfterSeconds: 5 });
    expect(backend.calls).toEqual(['begin']);
    now += 16_000;
    backend.failNext = true;
    await expect(updateMachineOnHost(handlers, backend, req)).rejects.toThrow('host unreachable');
    // The handlers remember completion: the next call applies again and succeeds.
    expect(await updateMachineOnHost(handlers, backend, req)).toMatchObject({
      retryAfterSeconds: 0,
      message: 'Extension completed updating Machine',
    });
    expect(backend.calls).toEqual(['begin', 'apply', 'apply']);
  });

  it('does not touch the host when in-place updates are disabled', async () => {
    const backend = new RecordingBackend();
    const out = await updateMachineOnHost(new InPlaceUpdaterHandlers(), backend, {
      ...req,
      settings: { disableInPlaceUpdates: 'true' },
    });
    expect(out.status).toBe('Failure');
    expect(backend.calls).toEqual([]);
  });
});
