// Machine deletion (upstream reconcileDelete, without drain / volume detach / pre-terminate hooks): delete the
// bootstrap config and infra machine, wait until they are gone, delete the Node, then the finalizer may go.
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, type Client } from '@capi/controller-runtime';
import type { ExternalRead } from './machine-external';
import type { MachineObject } from './types';
import type { WorkloadClusterClientProvider } from '@capi/clustercache';

export interface DeletionStep {
  done: boolean;
  deleting: { reason: string; message?: string };
  requeueAfterMs?: number;
  error?: Error;
}

/** What deletion waits for, from what exists (pure). */
export function decideDeletion(s: {
  infraExists: boolean;
  bootstrapExists: boolean;
  hasNodeRef: boolean;
}): { type: 'DeleteExternals' } | { type: 'DeleteNode' } | { type: 'Done' } {
  if (s.infraExists || s.bootstrapExists) return { type: 'DeleteExternals' };
  if (s.hasNodeRef) return { type: 'DeleteNode' };
  return { type: 'Done' };
}

export class MachineDeletion {
  constructor(
    private readonly client: Client,
    private readonly workloadClients: WorkloadClusterClientProvider,
  ) {}

  async run(
    machine: MachineObject,
    cluster: KubeObject | undefined,
    bootstrap: ExternalRead,
    infra: ExternalRead,
  ): Promise<DeletionStep> {
    if (bootstrap.error || infra.error) {
      return {
        done: false,
        deleting: { reason: 'InternalError', message: 'Please check controller logs for errors' },
        error: bootstrap.error ?? infra.error,
      };
    }
    const decision = decideDeletion({
      infraExists: !!infra.object,
      bootstrapExists: !!bootstrap.object,
      hasNodeRef: !!machine.status?.nodeRef?.name,
    });
    switch (decision.type) {
      case 'DeleteExternals': {
        for (const obj of [infra.object, bootstrap.object])
          if (obj && !obj.metadata.deletionTimestamp) await this.deleteIgnoringNotFound(this.client, obj);
        // The watches on those kinds bring the Machine back when they are gone.
        const waiting = infra.object ? infra.object.kind : bootstrap.object!.kind;
        return {
          done: false,
          deleting: {
            reason: infra.object ? 'WaitingForInfrastructureDeletion' : 'WaitingForBootstrapDeletion',
            message: `* ${waiting} ${(infra.object ?? bootstrap.object)!.metadata.name}: deletion in progress`,
          },
        };
      }
      case 'DeleteNode': {
        if (!cluster) return { done: true, deleting: { reason: 'DeletionCompleted' } }; // no cluster, no workload cluster to clean
        const nodeName = machine.status!.nodeRef!.name;
        try {
          const wc = await this.workloadClients({
            namespace: machine.metadata.namespace!,
            name: machine.spec.clusterName,
          });
          await this.deleteIgnoringNotFound(wc, { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } });
        } catch (e) {
          return {
            done: false,
            deleting: { reason: 'DeletingNode', message: `Failed to delete Node ${nodeName}` },
            error: new Error(`failed to delete Node ${nodeName}: ${(e as Error).message}`),
          };
        }
        return { done: true, deleting: { reason: 'DeletionCompleted' } };
      }
      case 'Done':
        return { done: true, deleting: { reason: 'DeletionCompleted' } };
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
