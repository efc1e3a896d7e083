// The wait for a deleting Machine's Node volumes to be detached, after the drain (upstream
// core/reconcilers/machine/machine_controller.go reconcileDelete and shouldWaitForNodeVolumes): pod deletion and
// volume detach are asynchronous, and some storage (vSphere volumes) would go with the machine if it went first.
// Decisions are in attached-volumes.ts and deletion-decision.ts; this file reads the workload cluster.
import { MACHINE_DELETING_WAITING_FOR_VOLUME_DETACH_REASON } from '@capi/api';
import { formatTime, type KubeObject, type PassiveClock } from '@capi/apimachinery';
import type { Client, EventRecorder, ReconcileLogger } from '@capi/controller-runtime';
import type { WorkloadClusterClientProvider } from '@capi/clustercache';
import { isNodeVolumeDetachingAllowed } from '../deletion-decision';
import { DrainHelper } from '../drain';
import type { DeletionStep } from '../machine-deletion';
import { isNodeUnreachable } from '../machine-node';
import type { MachineObject } from '../types';
import {
  attachedNodeVolumeNames,
  attachedPersistentVolumeNames,
  conditionMessage,
  logKeys,
  volumesWaitingForDetach,
  type AttachedVolumeInformation,
  type NodeObject,
  type PersistentVolumeObject,
  type VolumeAttachmentObject,
} from './attached-volumes';

/** Upstream waitForVolumeDetachRetryInterval: volume detach is slow, the Machine is looked at again after 20 s. */
export const WAIT_FOR_VOLUME_DETACH_RETRY_INTERVAL_MS = 20_000;
const LIST_PAGE_SIZE = 100;

export interface NodeVolumeDetachDeps {
  /** The management cluster (the drain's MachineDrainRules). */
  client: Client;
  workloadClients: WorkloadClusterClientProvider;
  events: EventRecorder;
  clock: PassiveClock;
  /** MachineWaitForVolumeDetachConsiderVolumeAttachments feature gate (on by default, GA upstream). */
  considerVolumeAttachments: boolean;
}

export interface NodeVolumeDetachInput {
  machine: MachineObject;
  cluster: KubeObject;
  infraMachine: KubeObject | undefined;
  log: ReconcileLogger;
}

export class NodeVolumeDetachWait {
  constructor(private readonly deps: NodeVolumeDetachDeps) {}

  /**
   * undefined when the deletion may go on (not allowed, timed out, excluded, or nothing attached); else the step that
   * waits (requeued after 20 s) or failed (a FailedWaitForVolumeDetach event and the error).
   */
  async run(input: NodeVolumeDetachInput): Promise<DeletionStep | undefined> {
    const { machine, cluster, infraMachine } = input;
    const now = this.deps.clock.now();
    if (!isNodeVolumeDetachingAllowed(machine, infraMachine, now)) return undefined;
    const deletion = ((machine.status ??= {}).deletion ??= {});
    deletion.waitForNodeVolumeDetachStartTime ??= formatTime(now);
    const started = Date.parse(deletion.waitForNodeVolumeDetachStartTime);
    const startMs = Number.isNaN(started) ? now : started;
    const nodeName = machine.status.nodeRef?.name ?? '';
    const log = input.log.withValues({ Node: nodeName });

    let info: AttachedVolumeInformation | undefined;
    try {
      info = await this.attachedVolumes(cluster, machine, nodeName, log);
    } catch (e) {
      await this.deps.events
        .event(
          machine,
          'Warning',
          'FailedWaitForVolumeDetach',
          `error waiting for node volumes detaching, Machine's node ${JSON.stringify(nodeName)}: ${(e as Error).message}`,
        )
        .catch(() => undefined);
      return {
        done: false,
        deleting: {
          reason: MACHINE_DELETING_WAITING_FOR_VOLUME_DETACH_REASON,
          message: 'Error waiting for volumes to be detached from Node, please check controller logs for errors',
        },
        error: e as Error,
      };
    }
    if (info) {
      log.log('Waiting for Node volumes to be detached', logKeys(info));
      return {
        done: false,
        deleting: {
          reason: MACHINE_DELETING_WAITING_FOR_VOLUME_DETACH_REASON,
          message: conditionMessage(info, startMs),
        },
        requeueAfterMs: WAIT_FOR_VOLUME_DETACH_RETRY_INTERVAL_MS,
      };
    }
    await this.deps.events
      .event(
        machine,
        'Normal',
        'NodeVolumesDetached',
        `success waiting for node volumes detaching Machine's node ${JSON.stringify(nodeName)}`,
      )
      .catch(() => undefined);
    return undefined;
  }

  /** What is still attached; undefined when nothing is to be waited for (no Node, an unreachable one, no volumes). */
  private async attachedVolumes(
    cluster: KubeObject,
    machine: MachineObject,
    nodeName: string,
    log: ReconcileLogger,
  ): Promise<AttachedVolumeInformation | undefined> {
    const wc = await this.deps.workloadClients({
      namespace: cluster.metadata.namespace!,
      name: cluster.metadata.name!,
    });
    const node = await wc.tryGet<NodeObject>({ apiVersion: 'v1', kind: 'Node', name: nodeName });
    if (!node) {
      log.log('Could not find Node from Machine.status.nodeRef, skip waiting for volume detachment.');
      return undefined;
    }
    // Volumes of an unreachable Node cannot be detached: waiting would block its deletion (checked again below).
    if (isNodeUnreachable(node)) {
      log.log('Node is unreachable, skip waiting for volume detachment.');
      return undefined;
    }
    const volumeAttachments = this.deps.considerVolumeAttachments
      ? await listAll<VolumeAttachmentObject>(wc, 'storage.k8s.io/v1', 'VolumeAttachment').catch((e: Error) => {
          throw new Error(`failed to list VolumeAttachments: ${e.message}`, { cause: e });
        })
      : undefined;
    // Nothing attached: neither the Pods nor the PersistentVolumes are listed.
    if (
      attachedNodeVolumeNames(node).size === 0 &&
      attachedPersistentVolumeNames(volumeAttachments ?? [], nodeName).size === 0
    )
      return undefined;
    // The Pods the drain skips keep their volumes attached (upstream getPersistentVolumeClaimsToIgnore).
    const drain = new DrainHelper({ client: this.deps.client, remoteClient: wc, clock: this.deps.clock });
    const drainSkippedPods = await drain
      .getPodsForEviction(cluster, machine, nodeName)
      .then((pods) => pods.skippedPods())
      .catch((e: Error) => {
        throw new Error(`failed to find PersistentVolumeClaims from Pods ignored during drain: ${e.message}`, {
          cause: e,
        });
      });
    const persistentVolumes = await listAll<PersistentVolumeObject>(wc, 'v1', 'PersistentVolume').catch((e: Error) => {
      throw new Error(`failed to list PersistentVolumes: ${e.message}`, { cause: e });
    });
    return volumesWaitingForDetach({ node, volumeAttachments, persistentVolumes, drainSkippedPods });
  }
}

/** A paged list (100 a page, as upstream) of every object of a cluster-scoped kind. */
async function listAll<T extends KubeObject>(client: Client, apiVersion: string, kind: string): Promise<T[]> {
  const items: T[] = [];
  let token: string | undefined;
  do {
    const page = await client.list<T>(apiVersion, kind, { limit: LIST_PAGE_SIZE, continue: token });
    items.push(...page.items);
    token = page.metadata.continue || undefined;
  } while (token);
  return items;
}
