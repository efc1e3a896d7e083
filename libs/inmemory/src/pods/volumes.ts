// Volumes of the simulated cluster (pure): the persistent volume controller binding a PVC to its pre-bound PV
// (pkg/controller/volume/persistentvolume), the attach/detach controller with the CSI external-attacher (a
// VolumeAttachment per PV and Node, status.attached, Node status.volumesAttached:
// pkg/controller/volume/attachdetach, kubernetes-csi/external-attacher) and the kubelet's volume manager (Node
// status.volumesInUse). A volume no Pod on a Node uses any more is detached after `detachDelayMs` (unmount + detach);
// the Machine controller waits for that before it deletes the Node (upstream machine_controller.go
// shouldWaitForNodeVolumes).
import { createHash } from 'node:crypto';
import type { KubeObject } from '@capi/apimachinery';
import { refOf } from '@capi/controller-runtime';
import { isTerminal, nodeNameOf, type ClusterSnapshot, type SimAction, type SimPlan } from './types';

/** The CSI driver of the simulated volumes. */
export const INMEMORY_CSI_DRIVER = 'csi.inmemory.infrastructure.cluster.x-k8s.io';

interface CsiSource {
  driver: string;
  volumeHandle: string;
}

/** kube's attacher VolumeAttachment name: csi-sha256(volumeHandle + driver + nodeName) (pkg/volume/csi/csi_attacher.go). */
export const volumeAttachmentName = (csi: CsiSource, nodeName: string): string =>
  `csi-${createHash('sha256').update(`${csi.volumeHandle}${csi.driver}${nodeName}`).digest('hex')}`;

/** The unique volume name in Node status (kubernetes.io/csi/<driver>^<handle>, pkg/volume/csi/csi_plugin.go). */
export const uniqueVolumeName = (csi: CsiSource): string => `kubernetes.io/csi/${csi.driver}^${csi.volumeHandle}`;

const csiOf = (pv: KubeObject): CsiSource | undefined => (pv.spec as { csi?: CsiSource } | undefined)?.csi;

interface Wanted {
  name: string;
  pv: string;
  node: string;
  csi: CsiSource;
}

/** The (PV, Node) pairs Pods need: Pods bound to an existing Node, not finished, with a PVC bound to a CSI PV. */
export function wantedAttachments(s: ClusterSnapshot): Map<string, Wanted> {
  const nodes = new Set(s.nodes.map((n) => n.metadata.name!));
  const pvcs = new Map(s.persistentVolumeClaims.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]));
  const pvs = new Map(s.persistentVolumes.map((v) => [v.metadata.name!, v]));
  const out = new Map<string, Wanted>();
  for (const pod of s.pods) {
    const node = nodeNameOf(pod);
    if (!node || !nodes.has(node) || isTerminal(pod)) continue;
    const volumes = (pod.spec as { volumes?: { persistentVolumeClaim?: { claimName: string } }[] }).volumes ?? [];
    for (const v of volumes) {
      const claim = v.persistentVolumeClaim?.claimName;
      const pvc = claim ? pvcs.get(`${pod.metadata.namespace}/${claim}`) : undefined;
      const pvName = (pvc?.spec as { volumeName?: string } | undefined)?.volumeName;
      const pv = pvName ? pvs.get(pvName) : undefined;
      const csi = pv && csiOf(pv);
      if (!csi) continue;
      const name = volumeAttachmentName(csi, node);
      out.set(name, { name, pv: pvName!, node, csi });
    }
  }
  return out;
}

export interface VolumePlan extends SimPlan {
  /** VolumeAttachment name → since when no Pod needs it (carried to the next pass). */
  unneededSince: Map<string, number>;
}

/**
 * Attach what Pods need, detach (delete) our VolumeAttachments no Pod needed for `detachDelayMs` (at once when their
 * Node is gone), and keep each Node's volumesAttached/volumesInUse in line.
 */
export function planVolumes(
  s: ClusterSnapshot,
  now: number,
  unneededSince: ReadonlyMap<string, number>,
  detachDelayMs: number,
): VolumePlan {
  const wanted = wantedAttachments(s);
  const nodes = new Set(s.nodes.map((n) => n.metadata.name!));
  const actions: SimAction[] = [];
  const nextUnneeded = new Map<string, number>();
  let wakeAt: number | undefined;
  /** Node → unique names of the volumes attached to it after this pass. */
  const attached = new Map<string, Set<string>>();
  const markAttached = (node: string, csi: CsiSource) =>
    attached.set(node, (attached.get(node) ?? new Set()).add(uniqueVolumeName(csi)));
  const existing = new Map(s.volumeAttachments.map((va) => [va.metadata.name!, va]));

  for (const w of wanted.values()) {
    const va = existing.get(w.name);
    if (!va) {
      actions.push({
        op: 'create',
        object: {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'VolumeAttachment',
          metadata: { name: w.name },
          spec: { attacher: w.csi.driver, nodeName: w.node, source: { persistentVolumeName: w.pv } },
        },
        status: { attached: true },
      });
    } else if ((va.status as { attached?: boolean } | undefined)?.attached !== true && !va.metadata.deletionTimestamp) {
      actions.push({ op: 'status', ref: refOf(va), status: { attached: true } });
    }
    markAttached(w.node, w.csi);
  }

  for (const va of s.volumeAttachments) {
    const vaSpec = va.spec as { attacher?: string; nodeName?: string; source?: { persistentVolumeName?: string } };
    if (vaSpec.attacher !== INMEMORY_CSI_DRIVER || wanted.has(va.metadata.name!)) continue;
    const node = vaSpec.nodeName ?? '';
    const since = unneededSince.get(va.metadata.name!) ?? now;
    const due = !nodes.has(node) || now - since >= detachDelayMs;
    if (due && !va.metadata.deletionTimestamp) actions.push({ op: 'delete', ref: refOf(va), uid: va.metadata.uid });
    if (due) continue;
    nextUnneeded.set(va.metadata.name!, since);
    wakeAt = Math.min(wakeAt ?? since + detachDelayMs, since + detachDelayMs);
    const pv = s.persistentVolumes.find((p) => p.metadata.name === vaSpec.source?.persistentVolumeName);
    const csi = pv && csiOf(pv);
    if (csi && (va.status as { attached?: boolean } | undefined)?.attached) markAttached(node, csi);
  }

  const inUse = new Map<string, Set<string>>();
  for (const w of wanted.values()) inUse.set(w.node, (inUse.get(w.node) ?? new Set()).add(uniqueVolumeName(w.csi)));
  for (const node of s.nodes) {
    const name = node.metadata.name!;
    const status = (node.status ?? {}) as { volumesAttached?: { name: string }[]; volumesInUse?: string[] };
    const wantAttached = [...(attached.get(name) ?? [])].sort();
    const wantInUse = [...(inUse.get(name) ?? [])].sort();
    const haveAttached = (status.volumesAttached ?? []).map((v) => v.name).sort();
    const haveInUse = [...(status.volumesInUse ?? [])].sort();
    if (
      JSON.stringify(haveAttached) === JSON.stringify(wantAttached) &&
      JSON.stringify(haveInUse) === JSON.stringify(wantInUse)
    )
      continue;
    actions.push({
      op: 'status',
      ref: refOf(node),
      status: {
        volumesAttached: wantAttached.length ? wantAttached.map((n) => ({ name: n, devicePath: '' })) : null,
        volumesInUse: wantInUse.length ? wantInUse : null,
      },
    });
  }
  return { actions, wakeAt, unneededSince: nextUnneeded };
}

/**
 * The persistent volume controller's binding of a PVC pre-bound to a PV (spec.volumeName, PV claimRef to it): both
 * become phase Bound.
 */
export function planVolumeBinding(s: ClusterSnapshot): SimAction[] {
  const actions: SimAction[] = [];
  const pvs = new Map(s.persistentVolumes.map((v) => [v.metadata.name!, v]));
  for (const pvc of s.persistentVolumeClaims) {
    const volumeName = (pvc.spec as { volumeName?: string } | undefined)?.volumeName;
    const pv = volumeName ? pvs.get(volumeName) : undefined;
    if (!pv) continue;
    const claimRef = (pv.spec as { claimRef?: { namespace?: string; name?: string } } | undefined)?.claimRef;
    if (claimRef && (claimRef.namespace !== pvc.metadata.namespace || claimRef.name !== pvc.metadata.name)) continue;
    const pvSpec = pv.spec as { accessModes?: string[]; capacity?: Record<string, string> };
    if ((pvc.status as { phase?: string } | undefined)?.phase !== 'Bound')
      actions.push({
        op: 'status',
        ref: refOf(pvc),
        status: { phase: 'Bound', accessModes: pvSpec.accessModes ?? [], capacity: pvSpec.capacity ?? {} },
      });
    if ((pv.status as { phase?: string } | undefined)?.phase !== 'Bound')
      actions.push({ op: 'status', ref: refOf(pv), status: { phase: 'Bound' } });
  }
  return actions;
}
