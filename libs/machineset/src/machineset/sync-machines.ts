// syncMachines of the MachineSet controller (upstream core/reconcilers/machineset/machineset_controller.go
// syncMachines): the template's in-place mutable fields onto the MachineSet's Machines and the metadata of their
// InfraMachines/BootstrapConfigs.
import type { Machine, MachineSet } from '@capi/api';
import { refOf } from '@capi/controller-runtime';
import { intentMemoKey, mitigateManagedFieldsIssue } from '@capi/ssa';
import { deletingMachineSyncPatch } from './deleting-sync';
import { computeDesiredMachine, desiredMachineInputsKey } from './desired';
import { MachineSyncError } from './errors';
import { MACHINESET_FIELD_MANAGER } from './inplace-start';
import { infraAndBootstrapMetadata, syncInfraAndBootstrapMetadata, type MetadataSyncDeps } from './metadata-sync';

/**
 * In-place mutable fields propagated to the Machines with SSA (their UpToDate condition is the Machine controller's);
 * deleting Machines get only what matters for their teardown (deletingMachineSyncPatch). A Machine that fails does not
 * stop the others (upstream stops at the first; this keeps the rest in step): the failures come back as one error.
 */
export async function syncMachines(
  deps: MetadataSyncDeps,
  ms: MachineSet,
  machines: readonly Machine[],
): Promise<MachineSyncError | undefined> {
  const { client, applier } = deps;
  const inputs = desiredMachineInputsKey(ms);
  const metadata = infraAndBootstrapMetadata(ms, inputs);
  const errors: string[] = [];
  for (const m of machines) {
    try {
      if (m.metadata.deletionTimestamp) {
        const patch = deletingMachineSyncPatch(ms, m);
        if (patch) await client.patch(refOf(m), 'merge', patch);
        continue;
      }
      // Same Machine (resourceVersion) and same MS inputs as a previous no-op: still a no-op while its request-cache
      // entry lives. Every reconcile of a large MS comes here for each Machine, and most did not change since the last.
      const memo = intentMemoKey(m, inputs);
      if (!applier.knownNoop(MACHINESET_FIELD_MANAGER, memo)) {
        // Objects whose managedFields were wiped would otherwise lose fields other managers set on our first apply.
        await mitigateManagedFieldsIssue(client, m, MACHINESET_FIELD_MANAGER);
        await applier.patch(client, computeDesiredMachine(ms, m), {
          fieldOwner: MACHINESET_FIELD_MANAGER,
          original: m,
          memo,
        });
      }
      await syncInfraAndBootstrapMetadata(deps, metadata, m);
    } catch (e) {
      errors.push(`failed to update Machine ${m.metadata.namespace}/${m.metadata.name}: ${(e as Error).message}`);
    }
  }
  return errors.length > 0 ? new MachineSyncError(errors.join('; ')) : undefined;
}
