// Pure part of the wait for a deleting Machine's Node volumes to be detached (upstream
// core/reconcilers/machine/machine_controller.go: getAttachedVolumeInformation, getPersistentVolumeClaimsToIgnore,
// getVolumeAttachmentForNode's filter, getPersistentVolumesWaitingForDetach, attachedVolumeInformation).
import { formatTime, listToString, type KubeObject } from '@capi/apimachinery';
import { isNodeUnreachable } from '../machine-node';

export interface NodeObject extends KubeObject {
  status?: {
    conditions?: { type: string; status: string }[];
    volumesAttached?: { name: string; devicePath?: string }[];
  };
}

export interface VolumeAttachmentObject extends KubeObject {
  spec?: { nodeName?: string; source?: { persistentVolumeName?: string } };
  status?: { attached?: boolean };
}

export interface PersistentVolumeObject extends KubeObject {
  spec?: {
    claimRef?: { kind?: string; namespace?: string; name?: string };
    csi?: { driver?: string; volumeHandle?: string };
  };
}

export interface PodObject extends KubeObject {
  spec?: { volumes?: { name?: string; persistentVolumeClaim?: { claimName?: string } }[] };
}

/** The names in node.status.volumesAttached (e.g. `kubernetes.io/csi/<driver>^<volumeHandle>`). */
export function attachedNodeVolumeNames(node: NodeObject): Set<string> {
  return new Set((node.status?.volumesAttached ?? []).map((v) => v.name));
}

/**
 * The PersistentVolume names of the VolumeAttachments attached (status.attached) to `nodeName` (upstream
 * getVolumeAttachmentForNode + getAttachedVolumeInformation). One without spec.source.persistentVolumeName (an
 * inline volume) cannot be matched: an error, as upstream.
 */
export function attachedPersistentVolumeNames(
  volumeAttachments: readonly VolumeAttachmentObject[],
  nodeName: string,
): Set<string> {
  const names = new Set<string>();
  for (const va of volumeAttachments) {
    if (va.status?.attached !== true || va.spec?.nodeName !== nodeName) continue;
    const pv = va.spec.source?.persistentVolumeName;
    if (!pv) throw new Error(`spec.source.persistentVolumeName for VolumeAttachment ${va.metadata.name} is not set`);
    names.add(pv);
  }
  return names;
}

/**
 * Upstream getPersistentVolumeClaimsToIgnore: `<namespace>/<claimName>` of every PersistentVolumeClaim used by the
 * Pods the drain skips (their volumes stay attached on purpose).
 */
export function persistentVolumeClaimsToIgnore(skippedPods: readonly PodObject[]): Set<string> {
  const keys = new Set<string>();
  for (const pod of skippedPods) {
    for (const volume of pod.spec?.volumes ?? []) {
      const claim = volume.persistentVolumeClaim?.claimName;
      if (claim !== undefined) keys.add(`${pod.metadata.namespace ?? ''}/${claim}`);
    }
  }
  return keys;
}

/** Upstream attachedVolumeInformation: what a Node still has attached, by how it could be identified. */
export interface AttachedVolumeInformation {
  /** Attached PersistentVolumeClaims (`<namespace>/<name>`), without those of Pods the drain skips. */
  persistentVolumeClaims: string[];
  /** Attached PersistentVolumes without a claimRef to a PersistentVolumeClaim. */
  persistentVolumesWithoutPVCClaimRef: string[];
  /** node.status.volumesAttached names matching no PersistentVolume. */
  nodeStatusVolumeNamesWithoutPV: string[];
  /** PersistentVolume names from VolumeAttachments matching no PersistentVolume. */
  persistentVolumeNamesWithoutPV: string[];
}

const difference = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => !b.has(x));

/**
 * Upstream getPersistentVolumesWaitingForDetach, given every PersistentVolume of the workload cluster: a PV is
 * attached when its CSI name (`kubernetes.io/csi/<driver>^<volumeHandle>`) is in node.status.volumesAttached or its
 * name is in a VolumeAttachment; attached PVs are reported by their claim (unless ignored), else by name.
 */
export function persistentVolumesWaitingForDetach(
  persistentVolumes: readonly PersistentVolumeObject[],
  nodeVolumeNames: Set<string>,
  pvNames: Set<string>,
  pvcsToIgnore: Set<string>,
): AttachedVolumeInformation {
  const attachedPVCs = new Set<string>();
  const withoutClaimRef: string[] = [];
  const foundNodeVolumeNames = new Set<string>();
  const foundPVNames = new Set<string>();
  for (const pv of persistentVolumes) {
    const name = pv.metadata.name ?? '';
    let found = false;
    const csi = pv.spec?.csi;
    if (csi) {
      const attachedName = `kubernetes.io/csi/${csi.driver ?? ''}^${csi.volumeHandle ?? ''}`;
      if (nodeVolumeNames.has(attachedName)) {
        foundNodeVolumeNames.add(attachedName);
        found = true;
      }
    }
    if (pvNames.has(name)) {
      foundPVNames.add(name);
      found = true;
    }
    if (!found) continue;
    // An attached volume should be bound; a claimRef of another kind cannot be mapped to Pods: report the PV.
    const claimRef = pv.spec?.claimRef;
    if (!claimRef || claimRef.kind !== 'PersistentVolumeClaim') {
      withoutClaimRef.push(name);
      continue;
    }
    attachedPVCs.add(`${claimRef.namespace ?? ''}/${claimRef.name ?? ''}`);
  }
  return {
    persistentVolumeClaims: difference(attachedPVCs, pvcsToIgnore),
    persistentVolumesWithoutPVCClaimRef: withoutClaimRef,
    nodeStatusVolumeNamesWithoutPV: difference(nodeVolumeNames, foundNodeVolumeNames),
    persistentVolumeNamesWithoutPV: difference(pvNames, foundPVNames),
  };
}

/** What the wait reads from the workload cluster (upstream shouldWaitForNodeVolumes). */
export interface NodeVolumesObservation {
  node: NodeObject;
  /** Every VolumeAttachment; undefined when they are not considered (feature gate off). */
  volumeAttachments?: readonly VolumeAttachmentObject[];
  /** Every PersistentVolume. */
  persistentVolumes: readonly PersistentVolumeObject[];
  /** The Pods on the Node the drain skips. */
  drainSkippedPods: readonly PodObject[];
}

/**
 * Upstream shouldWaitForNodeVolumes after the Node was read: undefined when there is nothing to wait for (an
 * unreachable Node, nothing attached, or only volumes of Pods the drain skips); else what is still attached.
 */
export function volumesWaitingForDetach(o: NodeVolumesObservation): AttachedVolumeInformation | undefined {
  if (isNodeUnreachable(o.node)) return undefined;
  const nodeVolumeNames = attachedNodeVolumeNames(o.node);
  const pvNames = attachedPersistentVolumeNames(o.volumeAttachments ?? [], o.node.metadata.name ?? '');
  if (nodeVolumeNames.size === 0 && pvNames.size === 0) return undefined;
  const info = persistentVolumesWaitingForDetach(
    o.persistentVolumes,
    nodeVolumeNames,
    pvNames,
    persistentVolumeClaimsToIgnore(o.drainSkippedPods),
  );
  return isEmpty(info) ? undefined : info;
}

export function isEmpty(info: AttachedVolumeInformation): boolean {
  return (
    info.persistentVolumeClaims.length === 0 &&
    info.persistentVolumesWithoutPVCClaimRef.length === 0 &&
    info.nodeStatusVolumeNamesWithoutPV.length === 0 &&
    info.persistentVolumeNamesWithoutPV.length === 0
  );
}

/** Upstream util/log StringListToString: listToString of the first five. */
const stringListToString = (list: readonly string[]): string => listToString(list, 5);

const sorted = (list: readonly string[]): string[] => [...list].sort();

const SECTIONS: [keyof AttachedVolumeInformation, string, string][] = [
  ['persistentVolumeClaims', 'PersistentVolumeClaims', 'PersistentVolumeClaims'],
  [
    'persistentVolumesWithoutPVCClaimRef',
    'PersistentVolumesWithoutPVCClaimRef',
    'PersistentVolumes without a .spec.claimRef to a PersistentVolumeClaim',
  ],
  [
    'nodeStatusVolumeNamesWithoutPV',
    'NodeStatusVolumeNamesWithoutPV',
    'Node with .status.volumesAttached entries not matching a PersistentVolume',
  ],
  [
    'persistentVolumeNamesWithoutPV',
    'PersistentVolumeNamesWithoutPV',
    'VolumeAttachment with .spec.source.persistentVolumeName not matching a PersistentVolume',
  ],
];

/** The Deleting condition's message while volumes are attached (upstream conditionMessage); '' when none is. */
export function conditionMessage(info: AttachedVolumeInformation, waitStartMs: number): string {
  if (isEmpty(info)) return '';
  let message = `Waiting for Node volumes to be detached (started at ${formatTime(waitStartMs)})`;
  for (const [field, , title] of SECTIONS) {
    if (info[field].length > 0) message += `\n* ${title}: ${stringListToString(sorted(info[field]))}`;
  }
  return message;
}

/** The log line's key/value pairs (upstream logKeys), for the non-empty lists, sorted. */
export function logKeys(info: AttachedVolumeInformation): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [field, key] of SECTIONS) {
    if (info[field].length > 0) keys[key] = stringListToString(sorted(info[field]));
  }
  return keys;
}
