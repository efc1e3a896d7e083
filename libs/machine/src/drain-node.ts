// The drain step of a deleting Machine (upstream core/reconcilers/machine/machine_controller.go reconcileDelete's
// isNodeDrainAllowed branch and drainNode): cordon the Node, evict its Pods, and wait — requeued every 20 s — until
// the Pods that have to go are gone, or spec.deletion.nodeDrainTimeoutSeconds has passed.
import { MACHINE_DELETING_DRAINING_NODE_REASON } from '@capi/api';
import { formatTime, type KubeObject, type PassiveClock } from '@capi/apimachinery';
import type { Client, EventRecorder, ReconcileLogger } from '@capi/controller-runtime';
import type { WorkloadClusterClientProvider } from '@capi/clustercache';
import { isNodeDrainAllowed } from './deletion-decision';
import { DrainHelper } from './drain/drain';
import { conditionMessage, drainCompleted, podListToString } from './drain/eviction-result';
import type { DeletionStep } from './machine-deletion';
import { isNodeUnreachable } from './machine-node';
import type { MachineObject } from './types';

/** Upstream drainRetryInterval: a drain not completed is looked at again after this long. */
export const DRAIN_RETRY_INTERVAL_MS = 20_000;

export interface DrainNodeDeps {
  /** The management cluster client (MachineDrainRules are read through it). */
  client: Client;
  workloadClients: WorkloadClusterClientProvider;
  events: EventRecorder;
  clock: PassiveClock;
}

export interface DrainNodeInput {
  machine: MachineObject;
  cluster: KubeObject;
  infraMachine: KubeObject | undefined;
  log: ReconcileLogger;
}

/**
 * Undefined when deletion may go on (drain not allowed, skipped or completed); else the step to report: waiting
 * (DrainingNode with the eviction summary, requeued) or failed (an error, and a FailedDrainNode event).
 */
export async function drainNodeStep(deps: DrainNodeDeps, input: DrainNodeInput): Promise<DeletionStep | undefined> {
  const { machine, infraMachine } = input;
  if (!isNodeDrainAllowed(machine, infraMachine, deps.clock.now())) return undefined;
  const deletion = ((machine.status ??= {}).deletion ??= {});
  if (!deletion.nodeDrainStartTime) deletion.nodeDrainStartTime = formatTime(deps.clock.now());
  const nodeName = machine.status.nodeRef!.name;
  let waiting: DeletionStep | undefined;
  try {
    waiting = await drainNode(deps, input, nodeName, deletion.nodeDrainStartTime);
  } catch (e) {
    const err = e as Error;
    await deps.events
      .event(
        machine,
        'Warning',
        'FailedDrainNode',
        `error draining Machine's node ${JSON.stringify(nodeName)}: ${err.message}`,
      )
      .catch(() => undefined);
    return {
      done: false,
      deleting: {
        reason: MACHINE_DELETING_DRAINING_NODE_REASON,
        message: 'Error draining Node, please check controller logs for errors',
      },
      error: err,
    };
  }
  if (waiting) return waiting;
  await deps.events
    .event(machine, 'Normal', 'SuccessfulDrainNode', `success draining Machine's node ${JSON.stringify(nodeName)}`)
    .catch(() => undefined);
  return undefined;
}

/** Upstream drainNode: undefined once drained (or the Node is gone); a waiting step while Pods remain; throws on errors. */
async function drainNode(
  deps: DrainNodeDeps,
  { machine, cluster, log }: DrainNodeInput,
  nodeName: string,
  startTime: string,
): Promise<DeletionStep | undefined> {
  let remote: Client;
  try {
    remote = await deps.workloadClients({ namespace: cluster.metadata.namespace!, name: cluster.metadata.name! });
  } catch (e) {
    throw new Error(`failed to drain Node ${nodeName}: ${(e as Error).message}`, { cause: e });
  }
  let node: KubeObject | undefined;
  try {
    node = await remote.tryGet({ apiVersion: 'v1', kind: 'Node', name: nodeName });
  } catch (e) {
    throw new Error(`unable to get Node ${nodeName}: ${(e as Error).message}`, { cause: e });
  }
  if (!node) {
    // An admin deleted the Node directly.
    log.log(`Could not find Node ${nodeName} from Machine.status.nodeRef, skipping Node drain.`);
    return undefined;
  }
  const unreachable = isNodeUnreachable(node);
  if (unreachable) {
    // Pods of an unreachable kubelet never go away: evict with a 1 s grace period and ignore Pods whose
    // deletionTimestamp is more than 1 s old (the taint manager evicts them anyway, regardless of budgets).
    log.log(
      'Node is unreachable, draining will use 1s GracePeriodSeconds and will ignore all Pods that have a deletionTimestamp > 1s old',
    );
  }
  const drainer = new DrainHelper({
    client: deps.client,
    remoteClient: remote,
    gracePeriodSeconds: unreachable ? 1 : -1,
    skipWaitForDeleteTimeoutSeconds: unreachable ? 1 : 0,
    clock: deps.clock,
  });
  try {
    await drainer.cordonNode(node, log);
  } catch (e) {
    throw new Error(`failed to cordon Node ${nodeName}: ${(e as Error).message}`, { cause: e });
  }
  const list = await drainer.getPodsForEviction(cluster, machine, nodeName);
  if (list.pods().length === 0) {
    log.log('Drain completed');
    return undefined;
  }
  log.log('Draining Node');
  const result = await drainer.evictPods(list, log);
  if (drainCompleted(result)) {
    log.log('Drain completed, remaining Pods on the Node have been evicted');
    return undefined;
  }
  const failed = [...result.podsFailedEviction.values()].flat();
  log.log(
    `Drain not completed yet, requeuing in ${DRAIN_RETRY_INTERVAL_MS / 1000}s: podsFailedEviction=${podListToString(failed, 5)} podsWithDeletionTimestamp=${podListToString(result.podsDeletionTimestampSet, 5)} podsToTriggerEvictionLater=${podListToString(result.podsToTriggerEvictionLater, 5)} podsToWaitCompletedNow=${podListToString(result.podsToWaitCompletedNow, 5)} podsToWaitCompletedLater=${podListToString(result.podsToWaitCompletedLater, 5)}`,
  );
  return {
    done: false,
    deleting: { reason: MACHINE_DELETING_DRAINING_NODE_REASON, message: conditionMessage(result, startTime) },
    requeueAfterMs: DRAIN_RETRY_INTERVAL_MS,
  };
}
