// Cases ported from upstream core/reconcilers/machine/machine_controller_test.go TestShouldWaitForNodeVolumes (the
// decision after the Node was read: which Pods the drain skips is the drain's filters', given here as input), plus
// attachedVolumeInformation.conditionMessage / logKeys and the VolumeAttachment filter of getVolumeAttachmentForNode.
import {
  attachedPersistentVolumeNames,
  conditionMessage,
  logKeys,
  persistentVolumeClaimsToIgnore,
  volumesWaitingForDetach,
  type AttachedVolumeInformation,
  type NodeObject,
  type PersistentVolumeObject,
  type PodObject,
  type VolumeAttachmentObject,
} from './attached-volumes';

const START = Date.parse('2024-10-09T16:13:59Z');
const NODE = 'test-node';

const persistentVolume: PersistentVolumeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'test-pv' },
  spec: {
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'test-pvc' },
    csi: { volumeHandle: 'foo', driver: 'dummy' },
  },
};
const persistentVolumeWithoutClaim: PersistentVolumeObject = {
  ...persistentVolume,
  spec: { ...persistentVolume.spec, claimRef: { ...persistentVolume.spec!.claimRef, kind: 'NotAPVC' } },
};
const volumeAttachment: VolumeAttachmentObject = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name: 'test-va' },
  spec: { nodeName: NODE, source: { persistentVolumeName: 'test-pv' } },
  status: { attached: true },
};
const attachedVolumes = [{ name: 'kubernetes.io/csi/dummy^foo', devicePath: 'test-path' }];

const node = (o: { name?: string; ready?: string; volumesAttached?: typeof attachedVolumes } = {}): NodeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: o.name ?? NODE },
  status: { conditions: [{ type: 'Ready', status: o.ready ?? 'True' }], volumesAttached: o.volumesAttached },
});

// The DaemonSet Pod the drain skips, using test-pvc.
const daemonSetPod: PodObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'test-pod',
    namespace: 'default',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'test-ds', uid: 'u', controller: true }],
  },
  spec: { volumes: [{ name: 'test-pvc', persistentVolumeClaim: { claimName: 'test-pvc' } }] },
};

const waiting = (...lines: string[]) =>
  ['Waiting for Node volumes to be detached (started at 2024-10-09T16:13:59Z)', ...lines].join('\n');

describe('volumesWaitingForDetach (upstream TestShouldWaitForNodeVolumes)', () => {
  it.each<[string, NodeObject, VolumeAttachmentObject[] | undefined, PersistentVolumeObject[], PodObject[], string]>([
    [
      'Node has volumes attached according to node status',
      node({ volumesAttached: attachedVolumes }),
      [],
      [persistentVolume],
      [],
      waiting('* PersistentVolumeClaims: default/test-pvc'),
    ],
    [
      'Node has volumes attached according to node status but the pv does not reference a PersistentVolumeClaim',
      node({ volumesAttached: attachedVolumes }),
      [],
      [persistentVolumeWithoutClaim],
      [],
      waiting('* PersistentVolumes without a .spec.claimRef to a PersistentVolumeClaim: test-pv'),
    ],
    [
      'Node has volumes attached according to node status but without a pv',
      node({ volumesAttached: attachedVolumes }),
      [],
      [],
      [],
      waiting(
        '* Node with .status.volumesAttached entries not matching a PersistentVolume: kubernetes.io/csi/dummy^foo',
      ),
    ],
    [
      'Node has volumes attached according to node status but its from a daemonset pod which gets ignored',
      node({ volumesAttached: attachedVolumes }),
      [],
      [persistentVolume],
      [daemonSetPod],
      '',
    ],
    [
      'Node has volumes attached according to volumeattachments',
      node(),
      [volumeAttachment],
      [persistentVolume],
      [],
      waiting('* PersistentVolumeClaims: default/test-pvc'),
    ],
    [
      'Node has volumes attached according to volumeattachments (but ignored because feature gate is disabled)',
      node(),
      undefined,
      [persistentVolume],
      [],
      '',
    ],
    [
      'Node has volumes attached according to volumeattachments but without a pv',
      node(),
      [volumeAttachment],
      [],
      [],
      waiting('* VolumeAttachment with .spec.source.persistentVolumeName not matching a PersistentVolume: test-pv'),
    ],
    [
      'Node has volumes attached according to volumeattachments but its from a daemonset pod which gets ignored',
      node(),
      [volumeAttachment],
      [persistentVolume],
      [daemonSetPod],
      '',
    ],
    [
      // The Pod is being deleted, not skipped by the drain: its claim is waited for.
      'Node has volumes attached from a Pod which is in deletion',
      node({ volumesAttached: attachedVolumes }),
      [volumeAttachment],
      [persistentVolume],
      [],
      waiting('* PersistentVolumeClaims: default/test-pvc'),
    ],
    ['Node has no volumes attached', node(), [], [], [], ''],
    [
      'Node is unreachable and has volumes attached',
      node({ name: 'unreachable-node', ready: 'Unknown', volumesAttached: attachedVolumes }),
      [],
      [persistentVolume],
      [],
      '',
    ],
    [
      'Node is unreachable and has no volumes attached',
      node({ name: 'unreachable-node', ready: 'Unknown' }),
      [],
      [],
      [],
      '',
    ],
  ])('%s', (_name, n, volumeAttachments, persistentVolumes, drainSkippedPods, message) => {
    const info = volumesWaitingForDetach({ node: n, volumeAttachments, persistentVolumes, drainSkippedPods });
    if (message === '') expect(info).toBeUndefined();
    else expect(conditionMessage(info!, START)).toBe(message);
  });

  it('a Node whose Ready condition is False (not Unknown) is reachable: its volumes are waited for', () => {
    const info = volumesWaitingForDetach({
      node: node({ ready: 'False', volumesAttached: attachedVolumes }),
      persistentVolumes: [persistentVolume],
      drainSkippedPods: [],
    });
    expect(info?.persistentVolumeClaims).toEqual(['default/test-pvc']);
  });

  it('one PV both in node status and a VolumeAttachment counts once', () => {
    const info = volumesWaitingForDetach({
      node: node({ volumesAttached: attachedVolumes }),
      volumeAttachments: [volumeAttachment],
      persistentVolumes: [persistentVolume],
      drainSkippedPods: [],
    });
    expect(info).toEqual({
      persistentVolumeClaims: ['default/test-pvc'],
      persistentVolumesWithoutPVCClaimRef: [],
      nodeStatusVolumeNamesWithoutPV: [],
      persistentVolumeNamesWithoutPV: [],
    });
  });
});

describe('attachedPersistentVolumeNames (upstream getVolumeAttachmentForNode, getAttachedVolumeInformation)', () => {
  it('keeps attached VolumeAttachments of the Node only', () => {
    const va = (name: string, nodeName: string, attached: boolean, pv: string): VolumeAttachmentObject => ({
      ...volumeAttachment,
      metadata: { name },
      spec: { nodeName, source: { persistentVolumeName: pv } },
      status: { attached },
    });
    expect([
      ...attachedPersistentVolumeNames(
        [va('a', NODE, true, 'pv-a'), va('b', NODE, false, 'pv-b'), va('c', 'other', true, 'pv-c')],
        NODE,
      ),
    ]).toEqual(['pv-a']);
  });

  it('an attached VolumeAttachment without spec.source.persistentVolumeName is an error', () => {
    const inline: VolumeAttachmentObject = { ...volumeAttachment, spec: { nodeName: NODE, source: {} } };
    expect(() => attachedPersistentVolumeNames([inline], NODE)).toThrow(
      'spec.source.persistentVolumeName for VolumeAttachment test-va is not set',
    );
  });
});

describe('persistentVolumeClaimsToIgnore (upstream getPersistentVolumeClaimsToIgnore)', () => {
  it('namespaced claim names of the skipped Pods, other volumes ignored', () => {
    const pod: PodObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns1' },
      spec: { volumes: [{ name: 'scratch' }, { name: 'data', persistentVolumeClaim: { claimName: 'c1' } }] },
    };
    expect([...persistentVolumeClaimsToIgnore([pod, daemonSetPod])]).toEqual(['ns1/c1', 'default/test-pvc']);
  });
});

describe('conditionMessage and logKeys (upstream attachedVolumeInformation)', () => {
  const info: AttachedVolumeInformation = {
    persistentVolumeClaims: ['ns/c', 'ns/a', 'ns/b', 'ns/g', 'ns/f', 'ns/e', 'ns/d'],
    persistentVolumesWithoutPVCClaimRef: ['pv-2', 'pv-1'],
    nodeStatusVolumeNamesWithoutPV: ['kubernetes.io/csi/d^h'],
    persistentVolumeNamesWithoutPV: ['pv-x'],
  };

  it('lists every non-empty section in order, sorted, at most five names each', () => {
    expect(conditionMessage(info, START)).toBe(
      waiting(
        '* PersistentVolumeClaims: ns/a, ns/b, ns/c, ns/d, ns/e, ... (2 more)',
        '* PersistentVolumes without a .spec.claimRef to a PersistentVolumeClaim: pv-1, pv-2',
        '* Node with .status.volumesAttached entries not matching a PersistentVolume: kubernetes.io/csi/d^h',
        '* VolumeAttachment with .spec.source.persistentVolumeName not matching a PersistentVolume: pv-x',
      ),
    );
  });

  it('is empty when nothing is attached', () => {
    const none = {
      persistentVolumeClaims: [],
      persistentVolumesWithoutPVCClaimRef: [],
      nodeStatusVolumeNamesWithoutPV: [],
      persistentVolumeNamesWithoutPV: [],
    };
    expect(conditionMessage(none, START)).toBe('');
    expect(logKeys(none)).toEqual({});
  });

  it('log keys name the non-empty lists', () => {
    expect(logKeys({ ...info, nodeStatusVolumeNamesWithoutPV: [] })).toEqual({
      PersistentVolumeClaims: 'ns/a, ns/b, ns/c, ns/d, ns/e, ... (2 more)',
      PersistentVolumesWithoutPVCClaimRef: 'pv-1, pv-2',
      PersistentVolumeNamesWithoutPV: 'pv-x',
    });
  });
});
