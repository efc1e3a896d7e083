// Reading the targets of a MachineHealthCheck: its Machines (selector + cluster-name label) and their Nodes.
import { formatLabelSelector, type KubeObject } from '@capi/apimachinery';
import {
  CLUSTER_NAME_LABEL,
  MACHINE_SKIP_REMEDIATION_ANNOTATION,
  PAUSED_ANNOTATION,
  type Machine,
  type MachineHealthCheck,
} from '@capi/api';
import { isNotFound, type Client } from '@capi/controller-runtime';
import type { NodeLike } from './evaluate';

export type MachineObject = Machine & KubeObject;
export type MachineHealthCheckObject = MachineHealthCheck & KubeObject;

export interface Target {
  machine: MachineObject;
  node?: NodeLike;
  nodeMissing: boolean;
}

/** The label selector query of the MHC's Machines: spec.selector plus the cluster-name label (upstream). */
export function targetSelector(mhc: Pick<MachineHealthCheck, 'spec'>): string {
  const sel = mhc.spec.selector ?? {};
  return formatLabelSelector({
    ...sel,
    matchLabels: { ...(sel.matchLabels ?? {}), [CLUSTER_NAME_LABEL]: mhc.spec.clusterName },
  });
}

/** Paused Machines and Machines with skip-remediation are not targets at all (upstream shouldSkipRemediation). */
export function skipReason(machine: Pick<Machine, 'metadata'>): string | undefined {
  const a = machine.metadata.annotations ?? {};
  if (PAUSED_ANNOTATION in a) return `machine has "${PAUSED_ANNOTATION}" annotation`;
  if (MACHINE_SKIP_REMEDIATION_ANNOTATION in a)
    return `machine has "${MACHINE_SKIP_REMEDIATION_ANNOTATION}" annotation`;
  return undefined;
}

export async function listTargetMachines(client: Client, mhc: MachineHealthCheckObject): Promise<MachineObject[]> {
  const list = await client.list<MachineObject>('cluster.x-k8s.io/v1beta2', 'Machine', {
    namespace: mhc.metadata.namespace,
    labelSelector: targetSelector(mhc),
  });
  return list.items
    .filter((m) => skipReason(m) === undefined)
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** Looks up each Machine's Node by status.nodeRef; without a workload client no Node is read (as upstream). */
export async function readTargets(machines: MachineObject[], workload: Client | undefined): Promise<Target[]> {
  return Promise.all(
    machines.map(async (machine): Promise<Target> => {
      const nodeName = machine.status?.nodeRef?.name;
      if (!workload || !nodeName) return { machine, nodeMissing: false };
      try {
        const node = await workload.get<KubeObject & NodeLike>({ apiVersion: 'v1', kind: 'Node', name: nodeName });
        return { machine, node, nodeMissing: false };
      } catch (e) {
        if (isNotFound(e)) return { machine, nodeMissing: true };
        throw new Error(`error getting Node ${nodeName} of Machine ${machine.metadata.name}: ${(e as Error).message}`);
      }
    }),
  );
}
