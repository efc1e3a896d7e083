// Machine deletion, in upstream reconcileDelete's order (core/reconcilers/machine/machine_controller.go): is deleting
// the Node allowed → pre-drain hooks → drain (drain-node.ts) → wait for volume detach (volume-detach/) →
// pre-terminate hooks → delete the InfraMachine and wait → delete the BootstrapConfig and wait → delete the Node → the
// finalizer may go.
// Decisions are in deletion-decision.ts; this file reads and writes.
import { setTimeout as sleep } from 'timers/promises';
import {
  MACHINE_CONTROL_PLANE_LABEL,
  MACHINE_DELETING_DELETING_NODE_REASON,
  MACHINE_DELETING_DELETION_COMPLETED_REASON,
  MACHINE_DELETING_INTERNAL_ERROR_REASON,
  MACHINE_DELETING_WAITING_FOR_BOOTSTRAP_DELETION_REASON,
  MACHINE_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON,
  MachineGVK,
} from '@capi/api';
import { formatTime, type KubeObject, type PassiveClock } from '@capi/apimachinery';
import {
  isNotFound,
  type Client,
  type EventRecorder,
  type InformerCache,
  type ReconcileLogger,
} from '@capi/controller-runtime';
import { ContractVersionError, type ContractVersionResolver } from '@capi/external';
import { CLUSTER_NAME_FIELD } from '@capi/index';
import type { WorkloadClusterCache, WorkloadClusterClientProvider } from '@capi/clustercache';
import {
  DELETE_NODE_NOT_ALLOWED,
  deleteNodeNotAllowed,
  isExternallyManagedControlPlane,
  preDrainHookWait,
  preTerminateHookWait,
  waitForNodeDeletion,
  type DeleteNodeNotAllowed,
  type HookWait,
} from './deletion-decision';
import { drainNodeStep } from './drain-node';
import type { ExternalRead } from './machine-external';
import { lookupNode } from './machine-node';
import type { MachineObject } from './types';
import { NodeVolumeDetachWait } from './volume-detach/node-volume-detach';

export interface DeletionStep {
  done: boolean;
  deleting: { reason: string; message?: string };
  requeueAfterMs?: number;
  error?: Error;
}

export interface MachineDeletionDeps {
  client: Client;
  cache: InformerCache;
  resolver: ContractVersionResolver;
  workloadClients: WorkloadClusterClientProvider;
  workloadNodes: WorkloadClusterCache;
  events: EventRecorder;
  clock: PassiveClock;
  /** How long one reconcile retries a failed Node deletion (upstream nodeDeletionRetryTimeout, 10 s; every 2 s). */
  nodeDeletionRetryTimeoutMs?: number;
  /** MachineWaitForVolumeDetachConsiderVolumeAttachments feature gate; default on. */
  considerVolumeAttachments?: boolean;
}

const NODE_DELETION_RETRY_TIMEOUT_MS = 10_000;
const NODE_DELETION_RETRY_INTERVAL_MS = 2_000;
const CHECK_LOGS = 'Please check controller logs for errors';

export interface DeletionInput {
  machine: MachineObject;
  cluster: KubeObject | undefined;
  bootstrap: ExternalRead;
  infra: ExternalRead;
  log: ReconcileLogger;
  signal?: AbortSignal;
}

type ContractRef = { apiGroup: string; kind: string; name: string };

export class MachineDeletion {
  private readonly volumeDetach: NodeVolumeDetachWait;

  constructor(private readonly deps: MachineDeletionDeps) {
    this.volumeDetach = new NodeVolumeDetachWait({
      ...deps,
      considerVolumeAttachments: deps.considerVolumeAttachments ?? true,
    });
  }

  async run(input: DeletionInput): Promise<DeletionStep> {
    const { machine, cluster, bootstrap, infra, log } = input;
    let notAllowed: DeleteNodeNotAllowed | 'clusterNotFound' | undefined;
    try {
      // Upstream fails the reconcile without the Cluster; here the Machine still goes, its Node is left alone.
      notAllowed = cluster ? await this.deleteNodeNotAllowed(machine, cluster, infra.object, log) : 'clusterNotFound';
    } catch (e) {
      return {
        done: false,
        deleting: { reason: MACHINE_DELETING_INTERNAL_ERROR_REASON, message: CHECK_LOGS },
        error: new Error(`failed to check if Kubernetes Node deletion is allowed: ${(e as Error).message}`, {
          cause: e,
        }),
      };
    }
    if (notAllowed) {
      const cause = notAllowed === 'clusterNotFound' ? 'cluster not found' : DELETE_NODE_NOT_ALLOWED[notAllowed];
      log.log(
        `Skipping deletion of Kubernetes Node ${machine.status?.nodeRef?.name ?? ''} associated with Machine as it is not allowed: ${cause}`,
      );
    } else {
      const preDrain = preDrainHookWait(machine);
      if (preDrain) return this.waitForHooks(machine, preDrain, log, 'pre-drain');
      const drain = await drainNodeStep(this.deps, { machine, cluster: cluster!, infraMachine: infra.object, log });
      if (drain) return drain;
      const volumes = await this.volumeDetach.run({ machine, cluster: cluster!, infraMachine: infra.object, log });
      if (volumes) return volumes;
    }

    const preTerminate = preTerminateHookWait(machine);
    if (preTerminate) return this.waitForHooks(machine, preTerminate, log, 'pre-terminate');

    const infraStep = await this.deleteExternal(
      machine,
      infra,
      machine.spec.infrastructureRef.kind,
      MACHINE_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON,
      log,
    );
    if (infraStep) return infraStep;
    const bootstrapRef = machine.spec.bootstrap?.configRef;
    if (bootstrapRef) {
      const step = await this.deleteExternal(
        machine,
        bootstrap,
        bootstrapRef.kind,
        MACHINE_DELETING_WAITING_FOR_BOOTSTRAP_DELETION_REASON,
        log,
      );
      if (step) return step;
    }

    // The Node goes only once the infrastructure is gone (upstream issue #2565).
    if (!notAllowed && cluster) {
      const failed = await this.deleteNode(machine, cluster, log, input.signal);
      if (failed) return failed;
    }
    return {
      done: true,
      deleting: { reason: MACHINE_DELETING_DELETION_COMPLETED_REASON, message: 'Deletion completed' },
    };
  }

  /** Waiting for hooks: no requeue, removing an annotation is a Machine update and brings the Machine back. */
  private waitForHooks(machine: MachineObject, wait: HookWait, log: ReconcileLogger, kind: string): DeletionStep {
    log.log(`Waiting for ${kind} hooks to succeed: ${wait.hooks.join(',')}`);
    const status = (machine.status ??= {});
    const deletion = (status.deletion ??= {});
    if (!deletion[wait.startField]) deletion[wait.startField] = formatTime(this.deps.clock.now());
    return { done: false, deleting: { reason: wait.reason, message: wait.message } };
  }

  /**
   * Upstream reconcileDeleteInfrastructure / reconcileDeleteBootstrap: undefined once the object is gone; else delete
   * it (once) and wait — its watch brings the Machine back when it is gone.
   */
  private async deleteExternal(
    machine: MachineObject,
    read: ExternalRead,
    kind: string,
    waitingReason: string,
    log: ReconcileLogger,
  ): Promise<DeletionStep | undefined> {
    if (!read.object && read.notFound) return undefined;
    const waiting = { done: false, deleting: { reason: waitingReason, message: `Waiting for ${kind} to be deleted` } };
    // A failed read: as upstream, the Machine waits and the reconcile fails with the read error.
    if (!read.object) return { ...waiting, error: read.error };
    if (!read.object.metadata.deletionTimestamp) {
      try {
        await this.deleteIgnoringNotFound(this.deps.client, read.object);
      } catch (e) {
        return {
          done: false,
          deleting: {
            reason: MACHINE_DELETING_INTERNAL_ERROR_REASON,
            message: `Failed to delete ${kind}, please check controller logs for errors`,
          },
          error: new Error(
            `failed to delete ${kind} ${JSON.stringify(read.object.metadata.name)} for Machine ${JSON.stringify(machine.metadata.name)} in namespace ${JSON.stringify(machine.metadata.namespace)}: ${(e as Error).message}`,
            { cause: e },
          ),
        };
      }
    }
    log.log(`Waiting for ${kind} ${read.object.metadata.name} to be deleted`);
    return waiting;
  }

  /** Upstream isDeleteNodeAllowed: reads what deleteNodeNotAllowed decides from. */
  private async deleteNodeNotAllowed(
    machine: MachineObject,
    cluster: KubeObject,
    infraMachine: KubeObject | undefined,
    log: ReconcileLogger,
  ): Promise<DeleteNodeNotAllowed | undefined> {
    const clusterDeleting = !!cluster.metadata.deletionTimestamp;
    if (!clusterDeleting && !machine.status?.nodeRef?.name) await this.findNodeRef(machine, cluster, infraMachine, log);
    const ref = (cluster.spec as { controlPlaneRef?: ContractRef } | undefined)?.controlPlaneRef;
    let controlPlane: { deleting: boolean; externallyManaged: boolean } | undefined;
    if (!clusterDeleting && machine.status?.nodeRef?.name && ref?.name) {
      const obj = await this.readControlPlane(ref, cluster.metadata.namespace, log);
      if (obj) {
        controlPlane = {
          deleting: !!obj.metadata.deletionTimestamp,
          externallyManaged: isExternallyManagedControlPlane(obj),
        };
      }
    }
    // Upstream lists the Cluster's active Machines and counts those with the control-plane label.
    const activeControlPlaneMachines = this.deps.cache
      .listStored<MachineObject>(MachineGVK.apiVersion, 'Machine', {
        namespace: cluster.metadata.namespace,
        matchingFields: { [CLUSTER_NAME_FIELD]: cluster.metadata.name ?? '' },
      })
      .filter((m) => !m.metadata.deletionTimestamp && MACHINE_CONTROL_PLANE_LABEL in (m.metadata.labels ?? {})).length;
    return deleteNodeNotAllowed({
      clusterDeleting,
      nodeName: machine.status?.nodeRef?.name,
      controlPlane,
      activeControlPlaneMachines,
    });
  }

  /**
   * No nodeRef but a providerID (the Machine's, else the InfraMachine's): one more, best-effort, look for the Node
   * (errors are logged, not returned, so that Machines still get deleted).
   */
  private async findNodeRef(
    machine: MachineObject,
    cluster: KubeObject,
    infraMachine: KubeObject | undefined,
    log: ReconcileLogger,
  ): Promise<void> {
    const fromInfra = (infraMachine?.spec as { providerID?: unknown } | undefined)?.providerID;
    const providerID = machine.spec.providerID || (typeof fromInfra === 'string' ? fromInfra : '');
    if (!providerID) return;
    const found = await lookupNode(
      this.deps.workloadNodes,
      { namespace: cluster.metadata.namespace!, name: cluster.metadata.name! },
      providerID,
    );
    if (found.error) log.error(`Failed to get node while deleting Machine: ${found.error}`);
    if (found.node?.metadata.name)
      machine.status = { ...(machine.status ?? {}), nodeRef: { name: found.node.metadata.name } };
  }

  /** The control plane object; undefined (logged) when it, or its CRD, does not exist — as upstream, not an error. */
  private async readControlPlane(
    ref: ContractRef,
    namespace: string | undefined,
    log: ReconcileLogger,
  ): Promise<KubeObject | undefined> {
    try {
      const objectRef = await this.deps.resolver.objectRef(ref, namespace);
      const obj = await this.deps.client.tryGet<KubeObject>(objectRef);
      if (!obj)
        log.error(
          `Control plane object specified in cluster spec.controlPlaneRef does not exist: ${ref.kind} ${namespace}/${ref.name}`,
        );
      return obj;
    } catch (e) {
      if (!(e instanceof ContractVersionError) && !isNotFound(e)) throw e;
      log.error(
        `Control plane object specified in cluster spec.controlPlaneRef does not exist: ${(e as Error).message}`,
      );
      return undefined;
    }
  }

  /**
   * Deletes the Node, retrying every 2 s for up to 10 s; a failure is an error (and the Machine stays) until
   * spec.deletion.nodeDeletionTimeoutSeconds has passed since the deletionTimestamp.
   */
  private async deleteNode(
    machine: MachineObject,
    cluster: KubeObject,
    log: ReconcileLogger,
    signal?: AbortSignal,
  ): Promise<DeletionStep | undefined> {
    const nodeName = machine.status!.nodeRef!.name;
    log.log(`Deleting Node ${nodeName}`);
    const timeoutMs = this.deps.nodeDeletionRetryTimeoutMs ?? NODE_DELETION_RETRY_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    let lastError: Error | undefined;
    for (;;) {
      try {
        await this.deleteNodeOnce(cluster, nodeName);
        return undefined;
      } catch (e) {
        lastError = e as Error;
      }
      if (signal?.aborted || Date.now() + NODE_DELETION_RETRY_INTERVAL_MS > deadline) break;
      await sleep(NODE_DELETION_RETRY_INTERVAL_MS, undefined, { signal }).catch(() => undefined);
    }
    log.error(`Timed out deleting Node ${nodeName}: ${lastError!.message}`);
    await this.deps.events
      .event(machine, 'Warning', 'FailedDeleteNode', `error deleting Machine's Node: ${lastError!.message}`)
      .catch(() => undefined);
    if (waitForNodeDeletion(machine, this.deps.clock.now())) {
      return {
        done: false,
        deleting: {
          reason: MACHINE_DELETING_DELETING_NODE_REASON,
          message: 'Error deleting Node, please check controller logs for errors',
        },
        error: lastError,
      };
    }
    log.log('Node deletion timeout expired, continuing without Node deletion.');
    return undefined;
  }

  private async deleteNodeOnce(cluster: KubeObject, nodeName: string): Promise<void> {
    let wc: Client;
    try {
      wc = await this.deps.workloadClients({ namespace: cluster.metadata.namespace!, name: cluster.metadata.name! });
    } catch (e) {
      throw new Error(
        `failed deleting Node because connection to the workload cluster is down: ${(e as Error).message}`,
        { cause: e },
      );
    }
    try {
      await this.deleteIgnoringNotFound(wc, { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } });
    } catch (e) {
      throw new Error(`error deleting node ${nodeName}: ${(e as Error).message}`, { cause: e });
    }
  }

  private async deleteIgnoringNotFound(client: Client, obj: KubeObject): Promise<void> {
    try {
      await client.delete({
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata.name!,
        namespace: obj.metadata.namespace,
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
