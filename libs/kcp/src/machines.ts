// Reads and writes of control-plane Machines and their KubeadmConfig / InfraMachine (thin I/O used by the reconciler).
import { groupOf, type PassiveClock, type KubeObject } from '@capi/apimachinery';
import { controlledBy } from '@capi/index';
import {
  BOOTSTRAP_API_VERSION,
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  setCondition,
  getCondition,
  type ConditionInput,
  type KubeadmConfig,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { isNotFound, refOf, type Client, type ControllerHandle } from '@capi/controller-runtime';
import { getReferenced, type ContractVersionResolver } from '@capi/external';
import { removeManagedFieldsForLabelsAndAnnotations, type ServerSideApplier } from '@capi/ssa';
import { KCP_MANAGER_NAME } from './constants';
import { computeDesiredInfraMachine, computeDesiredKubeadmConfig, computeDesiredMachine } from './desired';
import { newMachineName } from './machine-naming';
import { controlPlaneSelector } from './status';

export interface MachineIo {
  client: Client;
  applier: ServerSideApplier;
  resolver: ContractVersionResolver;
  /** The reconcile's controller (ReconcileContext.controller); absent when a test calls the I/O directly. */
  controller?: ControllerHandle;
}

const MACHINE_KIND = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine' };

/**
 * The KCP's next reconcile waits until the cache has seen `machine` at the resourceVersion this write gave it (upstream
 * DeferNextReconcileUntilCacheUpToDate), so it never decides on a Machine list without this write. Nothing to wait
 * for without a resourceVersion (a delete that found the Machine gone).
 */
export function deferUntilMachineCached(
  io: { controller?: ControllerHandle },
  kcp: KubeadmControlPlane,
  machine: KubeObject | undefined,
): void {
  const rv = machine?.metadata.resourceVersion;
  if (rv) io.controller?.deferNextReconcileUntilCacheUpToDate(kcp, MACHINE_KIND, rv);
}

/** Control-plane Machines of the cluster controlled by this KCP (from the controller-owner index, not the cluster's workers). */
export async function listControlPlaneMachines(
  io: MachineIo,
  kcp: KubeadmControlPlane,
  clusterName: string,
): Promise<Machine[]> {
  const list = await io.client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
    ...controlledBy(kcp.metadata.namespace, 'KubeadmControlPlane', kcp.metadata.name ?? ''),
    labelSelector: controlPlaneSelector(clusterName),
  });
  return list.items.filter((m) =>
    m.metadata.ownerReferences?.some(
      (r) =>
        r.controller === true &&
        r.kind === 'KubeadmControlPlane' &&
        r.name === kcp.metadata.name &&
        (!r.uid || !kcp.metadata.uid || r.uid === kcp.metadata.uid),
    ),
  );
}

/** Every Machine of the Cluster, control plane and workers (upstream GetMachinesForCluster: by cluster-name label). */
export async function listClusterMachines(io: MachineIo, namespace: string, clusterName: string): Promise<Machine[]> {
  const list = await io.client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
    namespace,
    labelSelector: `${CLUSTER_NAME_LABEL}=${clusterName}`,
  });
  return list.items;
}

export async function getKubeadmConfig(io: MachineIo, machine: Machine): Promise<KubeadmConfig | undefined> {
  const ref = machine.spec.bootstrap.configRef;
  if (!ref || ref.kind !== 'KubeadmConfig' || ref.apiGroup !== BOOTSTRAP_GROUP) return undefined;
  return io.client.tryGet<KubeadmConfig>({
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfig',
    namespace: machine.metadata.namespace,
    name: ref.name,
  });
}

export async function getInfraMachine(io: MachineIo, machine: Machine): Promise<KubeObject | undefined> {
  return getReferenced(io.client, io.resolver, machine.spec.infrastructureRef, machine.metadata.namespace);
}

export async function getInfraTemplate(io: MachineIo, kcp: KubeadmControlPlane): Promise<KubeObject | undefined> {
  return getReferenced(io.client, io.resolver, kcp.spec.machineTemplate.spec.infrastructureRef, kcp.metadata.namespace);
}

/** The object while it is deleting (finalizers), undefined once gone or when it was not there. */
async function deleteQuietly(client: Client, obj: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await client.delete(refOf(obj));
  } catch (e) {
    if (!isNotFound(e)) throw e;
    return undefined;
  }
}

/**
 * Creates InfraMachine, KubeadmConfig and Machine with SSA (field manager capi-kubeadmcontrolplane). KCP then gives
 * up ownership of the InfraMachine / KubeadmConfig labels and annotations, so that the in-place trigger (which
 * applies them without labels) never removes them. On failure the objects created so far are deleted.
 */
export async function createMachine(
  io: MachineIo,
  kcp: KubeadmControlPlane,
  clusterName: string,
  template: KubeObject,
  isJoin: boolean,
  failureDomain?: string,
  remediationFor?: string,
): Promise<Machine> {
  // spec.machineNaming.template (DesiredStateError when it cannot give a name: nothing is created).
  const name = newMachineName(kcp, clusterName);
  const opts = { fieldOwner: KCP_MANAGER_NAME };
  const created: KubeObject[] = [];
  try {
    const infra = computeDesiredInfraMachine(kcp, clusterName, template, name);
    await io.applier.patch(io.client, infra, opts);
    created.push(infra);
    await removeManagedFieldsForLabelsAndAnnotations(io.client, infra, KCP_MANAGER_NAME);
    const config = computeDesiredKubeadmConfig(kcp, clusterName, isJoin, name);
    await io.applier.patch(io.client, config, opts);
    created.push(config);
    await removeManagedFieldsForLabelsAndAnnotations(io.client, config, KCP_MANAGER_NAME);
    const machine = computeDesiredMachine({
      kcp,
      clusterName,
      name,
      failureDomain,
      remediationFor,
      infrastructureRef: { apiGroup: groupOf(infra.apiVersion), kind: infra.kind, name },
      bootstrapConfigRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfig', name },
    });
    await io.applier.patch(io.client, machine, opts);
    // upstream helpers.go createMachine
    deferUntilMachineCached(io, kcp, machine);
    return machine;
  } catch (e) {
    for (const obj of created.reverse()) await deleteQuietly(io.client, obj).catch(() => undefined);
    throw new Error(
      `failed to create control plane Machine ${kcp.metadata.namespace}/${name}: ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/** Deletes the Machine; returns it as the server answered while it is deleting (see deferUntilMachineCached). */
export async function deleteMachine(io: MachineIo, machine: Machine): Promise<Machine | undefined> {
  return (await deleteQuietly(io.client, machine)) as Machine | undefined;
}

/**
 * Writes the conditions KCP owns on a Machine (UpToDate and the control-plane health conditions) in one SSA apply
 * on status: the field manager owns exactly these list entries, so they must always be applied together (one left
 * out would be removed). No request when nothing changed.
 */
export async function writeMachineConditions(
  io: MachineIo,
  machine: Machine,
  inputs: readonly ConditionInput[],
  clock: PassiveClock,
): Promise<void> {
  const same = inputs.every((input) => {
    const existing = getCondition(machine, input.type);
    return (
      existing &&
      existing.status === input.status &&
      existing.reason === input.reason &&
      (existing.message ?? '') === (input.message ?? '')
    );
  });
  if (same) return;
  const conditions = inputs.map((input) => {
    const existing = getCondition(machine, input.type);
    return setCondition(
      existing ? [existing] : [],
      { ...input, observedGeneration: machine.metadata.generation },
      clock,
    )[0];
  });
  await io.client.apply(
    {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Machine',
      metadata: { name: machine.metadata.name, namespace: machine.metadata.namespace },
      status: { conditions },
    },
    { fieldManager: KCP_MANAGER_NAME, subresource: 'status', force: true },
  );
  const types = new Set(inputs.map((c) => c.type));
  machine.status = {
    ...(machine.status ?? {}),
    conditions: [...(machine.status?.conditions ?? []).filter((c) => !types.has(c.type)), ...conditions],
  };
}
