// Pure decisions of the InMemoryMachine controller: what phase a simulated VM is in and what its status says.
import { type PassiveClock, groupOf } from '@capi/apimachinery';
import {
  CLUSTER_GROUP,
  MACHINE_CONTROL_PLANE_LABEL,
  NOT_READY_REASON,
  PAUSED_ANNOTATION,
  READY_CONDITION,
  READY_REASON,
  setCondition,
  type Cluster,
  type Machine,
} from '@capi/api';
import type { InMemoryMachine } from '../api/types';
import {
  ETCD_PROVISIONED_CONDITION,
  PROVISIONED_REASON,
  WAITING_FOR_VM_PROVISIONED_REASON,
  PROVISIONING_REASON,
  VM_PROVISIONED_CONDITION,
  WAITING_FOR_BOOTSTRAP_DATA_REASON,
  BOOTSTRAP_FAILED_REASON,
  providerIdFor,
} from '../api/constants';
import { appliedHostSpec, internalIpFor, nodeNameFor, type HostState } from '../host/node';
import type { HostFiles } from '../host/files';

/** Name of the Machine owning an infra object (any ownerReference of kind Machine in the core group). */
export function ownerMachineName(obj: {
  metadata: { ownerReferences?: { apiVersion: string; kind: string; name: string }[] };
}): string | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.kind === 'Machine' && groupOf(r.apiVersion) === CLUSTER_GROUP)
    ?.name;
}

export const isPaused = (cluster: Cluster, obj: { metadata: { annotations?: Record<string, string> } }): boolean =>
  cluster.spec.paused === true || obj.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;

export type ProvisioningProgress = { done: true } | { done: false; remainingMs: number };

/** Whether a VM whose boot started at `startedAtMs` is up at `nowMs`. */
export function provisioningProgress(startedAtMs: number, nowMs: number, delayMs: number): ProvisioningProgress {
  const remainingMs = startedAtMs + delayMs - nowMs;
  return remainingMs <= 0 ? { done: true } : { done: false, remainingMs };
}

/** What the controller does next for a live (not deleting) InMemoryMachine whose Machine and Cluster exist. */
export type MachinePhase =
  | { phase: 'WaitingForBootstrapData' }
  | { phase: 'Booting'; remainingMs: number }
  /** The VM is up but its bootstrap data cannot be run (the Node is not registered; retried). */
  | { phase: 'BootstrapFailed'; message: string }
  | { phase: 'Running' };

export function machinePhase(machine: Machine, progress: ProvisioningProgress | undefined): MachinePhase {
  if (!machine.spec.bootstrap.dataSecretName) return { phase: 'WaitingForBootstrapData' };
  if (progress && !progress.done) return { phase: 'Booting', remainingMs: progress.remainingMs };
  return { phase: 'Running' };
}

export const providerIdOf = (machine: Machine): string =>
  providerIdFor(machine.spec.clusterName, machine.metadata.name!);

/**
 * The host a new VM comes up as: Node named after the Machine, kubelet at the Machine's version, the files its
 * bootstrap data wrote.
 */
export function initialHostState(machine: Machine, infra: InMemoryMachine, files: HostFiles): HostState {
  return {
    nodeName: nodeNameFor(machine.metadata.name!),
    providerID: providerIdOf(machine),
    controlPlane: machine.metadata.labels?.[MACHINE_CONTROL_PLANE_LABEL] !== undefined,
    kubeletVersion: machine.spec.version,
    spec: appliedHostSpec(infra.spec),
    files,
    ready: true,
  };
}

type InMemoryMachineStatus = NonNullable<InMemoryMachine['status']>;

/** How far a control-plane host's etcd member is (undefined: not a control-plane host, no EtcdProvisioned). */
export type EtcdProvisioning = { ok: true } | { ok: false; reason: string; message: string };

/** The status for a phase; unchanged conditions keep their lastTransitionTime (and identity). */
export function desiredMachineStatus(
  infra: InMemoryMachine,
  machine: Machine,
  phase: MachinePhase,
  clock: PassiveClock,
  etcd?: EtcdProvisioning,
): InMemoryMachineStatus {
  const current = infra.status ?? {};
  const generation = infra.metadata.generation;
  const running = phase.phase === 'Running';
  const vm =
    phase.phase === 'WaitingForBootstrapData'
      ? {
          status: 'False' as const,
          reason: WAITING_FOR_BOOTSTRAP_DATA_REASON,
          message: 'Waiting for Machine spec.bootstrap.dataSecretName',
        }
      : phase.phase === 'Booting'
        ? { status: 'False' as const, reason: PROVISIONING_REASON, message: 'VM is booting' }
        : phase.phase === 'BootstrapFailed'
          ? { status: 'False' as const, reason: BOOTSTRAP_FAILED_REASON, message: phase.message }
          : { status: 'True' as const, reason: PROVISIONED_REASON };
  let conditions = setCondition(
    current.conditions,
    { type: VM_PROVISIONED_CONDITION, ...vm, observedGeneration: generation },
    clock,
  );
  conditions = setCondition(
    conditions,
    running
      ? { type: READY_CONDITION, status: 'True', reason: READY_REASON, observedGeneration: generation }
      : {
          type: READY_CONDITION,
          status: 'False',
          reason: NOT_READY_REASON,
          message: vm.message,
          observedGeneration: generation,
        },
    clock,
  );
  if (etcd) {
    // upstream reconcileNormalETCD: waits for the VM, then for the etcd CA its member serves TLS with.
    const c = !running
      ? { status: 'False' as const, reason: WAITING_FOR_VM_PROVISIONED_REASON }
      : etcd.ok
        ? { status: 'True' as const, reason: PROVISIONED_REASON }
        : { status: 'False' as const, reason: etcd.reason, message: etcd.message };
    conditions = setCondition(
      conditions,
      { type: ETCD_PROVISIONED_CONDITION, ...c, observedGeneration: generation },
      clock,
    );
  }
  const out: InMemoryMachineStatus = { ...current, conditions };
  if (running) {
    out.initialization = { provisioned: true };
    out.addresses = [
      { type: 'InternalIP', address: internalIpFor(providerIdOf(machine)) },
      { type: 'Hostname', address: machine.metadata.name! },
    ];
  } else if (!current.initialization?.provisioned) {
    // Once provisioned, a VM stays provisioned (the contract's provisioned flag never goes back).
    out.initialization = { provisioned: false };
  }
  return out;
}
