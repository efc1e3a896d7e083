import { createHash } from 'node:crypto';
import type { KubeObject } from '@capi/apimachinery';
import { node, pod, snapshot } from './test-fixtures';
import type { SimAction } from './types';
import { INMEMORY_CSI_DRIVER, planVolumeBinding, planVolumes, uniqueVolumeName, volumeAttachmentName } from './volumes';

const csi = { driver: INMEMORY_CSI_DRIVER, volumeHandle: 'vol' };
const pv: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv1' },
  spec: {
    csi,
    accessModes: ['ReadWriteMany'],
    capacity: { storage: '1Gi' },
    claimRef: { namespace: 'default', name: 'data' },
  },
};
const pvc: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'default' },
  spec: { volumeName: 'pv1' },
};
const withVolume = (name: string, nodeName: string, extra = {}) =>
  pod(name, nodeName, { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }], ...extra });
const va = (nodeName: string, attached = true): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name: volumeAttachmentName(csi, nodeName), uid: `va-${nodeName}` },
  spec: { attacher: INMEMORY_CSI_DRIVER, nodeName, source: { persistentVolumeName: 'pv1' } },
  status: { attached },
});
const nodeWith = (name: string, volumes: string[]) => {
  const n = node(name);
  return {
    ...n,
    status: {
      ...(n.status as object),
      volumesAttached: volumes.map((v) => ({ name: v, devicePath: '' })),
      volumesInUse: volumes,
    },
  };
};
const volumeName = uniqueVolumeName(csi);

describe('volume attachment names (kube csi_attacher.go / csi_plugin.go)', () => {
  it('csi-<sha256(handle+driver+node)> and kubernetes.io/csi/<driver>^<handle>', () => {
    expect(volumeAttachmentName({ driver: 'd', volumeHandle: 'h' }, 'n')).toBe(
      'csi-' + createHash('sha256').update('hdn').digest('hex'),
    );
    expect(volumeName).toBe(`kubernetes.io/csi/${INMEMORY_CSI_DRIVER}^vol`);
  });
});

describe('planVolumes', () => {
  const base = { persistentVolumes: [pv], persistentVolumeClaims: [pvc] };

  it("attaches a Pod's volume to its Node and lists it in the Node's status", () => {
    const plan = planVolumes(
      snapshot({ ...base, nodes: [node('a')], pods: [withVolume('p', 'a')] }),
      0,
      new Map(),
      1000,
    );
    expect(plan.actions).toEqual([
      {
        op: 'create',
        object: expect.objectContaining({
          kind: 'VolumeAttachment',
          metadata: { name: volumeAttachmentName(csi, 'a') },
          spec: { attacher: INMEMORY_CSI_DRIVER, nodeName: 'a', source: { persistentVolumeName: 'pv1' } },
        }),
        status: { attached: true },
      },
      {
        op: 'status',
        ref: expect.objectContaining({ kind: 'Node', name: 'a' }),
        status: { volumesAttached: [{ name: volumeName, devicePath: '' }], volumesInUse: [volumeName] },
      },
    ]);
  });

  it('nothing to do while attached and listed; a terminating Pod still uses its volume', () => {
    const s = snapshot({
      ...base,
      nodes: [nodeWith('a', [volumeName])],
      pods: [withVolume('p', 'a', { deletionTimestamp: '2026-01-01T00:00:30Z' })],
      volumeAttachments: [va('a')],
    });
    expect(planVolumes(s, 0, new Map(), 1000).actions).toEqual([]);
  });

  it('detaches after the delay once no Pod on the Node uses it: in use goes first, then the attachment', () => {
    const s = snapshot({ ...base, nodes: [nodeWith('a', [volumeName])], pods: [], volumeAttachments: [va('a')] });
    const first = planVolumes(s, 1000, new Map(), 500);
    expect(first.wakeAt).toBe(1500);
    expect(first.unneededSince).toEqual(new Map([[volumeAttachmentName(csi, 'a'), 1000]]));
    expect(first.actions).toEqual([
      {
        op: 'status',
        ref: expect.objectContaining({ name: 'a' }),
        status: { volumesAttached: [{ name: volumeName, devicePath: '' }], volumesInUse: null },
      },
    ]);
    const later = planVolumes(s, 1500, first.unneededSince, 500);
    expect(later.actions).toEqual([
      { op: 'delete', ref: expect.objectContaining({ kind: 'VolumeAttachment' }), uid: 'va-a' },
      {
        op: 'status',
        ref: expect.objectContaining({ name: 'a' }),
        status: { volumesAttached: null, volumesInUse: null },
      },
    ]);
    expect(later.unneededSince.size).toBe(0);
  });

  it('detaches at once from a Node that is gone; leaves other attachers alone', () => {
    const foreign = { ...va('b'), metadata: { name: 'other' }, spec: { attacher: 'ebs.csi.aws.com', nodeName: 'b' } };
    const actions = planVolumes(
      snapshot({ ...base, volumeAttachments: [va('gone'), foreign] }),
      0,
      new Map(),
      1000,
    ).actions;
    expect(actions).toEqual([
      { op: 'delete', ref: expect.objectContaining({ name: volumeAttachmentName(csi, 'gone') }), uid: 'va-gone' },
    ]);
  });

  it('marks a VolumeAttachment attached when it is not yet', () => {
    const s = snapshot({
      ...base,
      nodes: [nodeWith('a', [volumeName])],
      pods: [withVolume('p', 'a')],
      volumeAttachments: [va('a', false)],
    });
    expect(planVolumes(s, 0, new Map(), 0).actions).toEqual([
      {
        op: 'status',
        ref: expect.objectContaining({ kind: 'VolumeAttachment' }),
        status: { attached: true },
      } as SimAction,
    ]);
  });
});

describe('planVolumeBinding', () => {
  it('binds a PVC pre-bound to its PV (both phase Bound)', () =>
    expect(planVolumeBinding(snapshot({ persistentVolumes: [pv], persistentVolumeClaims: [pvc] }))).toEqual([
      {
        op: 'status',
        ref: expect.objectContaining({ name: 'data' }),
        status: { phase: 'Bound', accessModes: ['ReadWriteMany'], capacity: { storage: '1Gi' } },
      },
      { op: 'status', ref: expect.objectContaining({ name: 'pv1' }), status: { phase: 'Bound' } },
    ]));
  it('not to a PV claimed by another PVC', () => {
    const other = { ...pv, spec: { ...(pv.spec as object), claimRef: { namespace: 'default', name: 'other' } } };
    expect(planVolumeBinding(snapshot({ persistentVolumes: [other], persistentVolumeClaims: [pvc] }))).toEqual([]);
  });
});
