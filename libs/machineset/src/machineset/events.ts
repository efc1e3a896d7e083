// Messages of the Events the MachineSet controller records on its MachineSet, worded as upstream's
// core/reconcilers/machineset/machineset_controller.go (Go's %q quoting: JSON's for Kubernetes names).
import type { KubeObject } from '@capi/apimachinery';

const quoted = (obj: KubeObject) => JSON.stringify(obj.metadata.name ?? '');

export const machineEvents = {
  /** SuccessfulCreate (createMachines). */
  created: (machine: KubeObject) => `Created Machine ${quoted(machine)}`,
  /** SuccessfulDelete (deleteMachines; startMoveMachines deleting a Machine marked for remediation). */
  deleted: (machine: KubeObject) => `Deleted Machine ${quoted(machine)}`,
  /** SuccessfulAdopt (getAndAdoptMachinesForMachineSet). */
  adopted: (machine: KubeObject) => `Adopted Machine ${quoted(machine)}`,
  /** FailedAdopt (getAndAdoptMachinesForMachineSet). */
  failedAdopt: (machine: KubeObject, err: Error) => `Failed to adopt Machine ${quoted(machine)}: ${err.message}`,
};
