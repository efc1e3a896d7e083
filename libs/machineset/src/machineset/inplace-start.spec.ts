import {
  desiredMachineForInPlaceUpdate,
  desiredObjectForInPlaceUpdate,
  startInPlaceUpdatePatch,
} from './inplace-start';
import { machine, machineSet } from '../testing/fixtures';

const PENDING_ACK = 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move';
const IN_PROGRESS = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';
const PENDING_HOOKS = 'runtime.cluster.x-k8s.io/pending-hooks';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';

describe('startInPlaceUpdatePatch', () => {
  it('adds UpdateMachine to pending-hooks and drops pending-acknowledge-move in one patch', () => {
    const m = machine('m', { annotations: { [PENDING_ACK]: '', [IN_PROGRESS]: '', keep: 'x' } });
    expect(startInPlaceUpdatePatch(m)).toEqual({
      metadata: { annotations: { [PENDING_HOOKS]: 'UpdateMachine', [PENDING_ACK]: null } },
    });
  });
  it('keeps other pending hooks sorted and does not touch update-in-progress', () => {
    const m = machine('m', { annotations: { [IN_PROGRESS]: '', [PENDING_HOOKS]: 'Zeta' } });
    expect(startInPlaceUpdatePatch(m)).toEqual({
      metadata: { annotations: { [PENDING_HOOKS]: 'UpdateMachine,Zeta' } },
    });
  });
});

describe('desiredMachineForInPlaceUpdate', () => {
  it("takes version and failureDomain from the MS template (syncMachines keeps the Machine's)", () => {
    const ms = machineSet('new', { version: 'v1.31.0' });
    ms.spec.template.spec.failureDomain = 'fd-b';
    const current = machine('m', { version: 'v1.30.0' });
    current.spec.failureDomain = 'fd-a';
    const desired = desiredMachineForInPlaceUpdate(ms, current);
    expect(desired.spec).toMatchObject({
      version: 'v1.31.0',
      failureDomain: 'fd-b',
      infrastructureRef: current.spec.infrastructureRef,
    });
    expect(desired.metadata.uid).toBe('uid-m');
  });
});

describe('desiredObjectForInPlaceUpdate', () => {
  const template = {
    apiVersion: INFRA,
    kind: 'TestMachineTemplate',
    metadata: { name: 'tmpl-v2', namespace: 'ns' },
    spec: { template: { metadata: { labels: { from: 'tmpl' }, annotations: { note: 'x' } }, spec: { image: 'v2' } } },
  };
  const current = {
    apiVersion: INFRA,
    kind: 'TestMachine',
    metadata: {
      name: 'm',
      namespace: 'ns',
      uid: 'uid-infra',
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'old', uid: 'u-old' }],
    },
  };
  it('carries the template spec and only the cloned-from annotations plus the marker, no labels, the existing uid', () => {
    const desired = desiredObjectForInPlaceUpdate(machineSet('new'), template, current);
    expect(desired.spec).toEqual({ image: 'v2' });
    expect(desired.metadata).toEqual({
      name: 'm',
      namespace: 'ns',
      uid: 'uid-infra',
      annotations: {
        'cluster.x-k8s.io/cloned-from-name': 'tmpl-v2',
        'cluster.x-k8s.io/cloned-from-groupkind': 'TestMachineTemplate.infrastructure.cluster.x-k8s.io',
        [IN_PROGRESS]: '',
      },
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'new', uid: 'uid-new' }],
    });
  });
  it('sets no ownerReference when a Machine already owns the object', () => {
    const ownedByMachine = {
      ...current,
      metadata: {
        ...current.metadata,
        ownerReferences: [
          { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'm', uid: 'u-m', controller: true },
        ],
      },
    };
    expect(
      desiredObjectForInPlaceUpdate(machineSet('new'), template, ownedByMachine).metadata.ownerReferences,
    ).toBeUndefined();
  });
  it('refuses a template of another kind', () => {
    expect(() =>
      desiredObjectForInPlaceUpdate(machineSet('new'), { ...template, kind: 'OtherMachineTemplate' }, current),
    ).toThrow('cannot update TestMachine m in place');
  });
});
