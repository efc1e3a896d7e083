// newMS side of an in-place move (spec §7.4 step 5): for a moved Machine the MachineDeployment acknowledged, apply
// the desired InfraMachine/BootstrapConfig (marked update-in-progress) and the desired Machine, mark UpdateMachine
// pending and drop pending-acknowledge-move, in that order, so the Machine controller only starts once all is written.
import { PENDING_ACKNOWLEDGE_MOVE_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION, type Machine, type MachineSet } from '@capi/api';
import type { Client, KubeObject } from '@capi/controller-runtime';
import { markAsPending } from '@capi/inplace';
import type { ServerSideApplier } from '@capi/ssa';
import type { ContractVersionResolver } from '@capi/machine';
import { getReferenced, refOf, type VersionedRef } from '../shared/writes';
import { computeDesiredMachine, machineLabels, machineSetOwnerRef, objectFromTemplate, TemplateError } from './desired';

export const MACHINESET_FIELD_MANAGER = 'capi-machineset';

export interface InPlaceStartDeps {
  client: Client;
  applier: ServerSideApplier;
  resolver: ContractVersionResolver;
}

async function desiredFromTemplate(
  deps: InPlaceStartDeps,
  ms: MachineSet,
  machine: Machine,
  templateRef: VersionedRef,
  currentRef: VersionedRef,
): Promise<{ desired: KubeObject; current: KubeObject | undefined }> {
  const namespace = ms.metadata.namespace;
  const template = await getReferenced(deps.client, deps.resolver, templateRef, namespace);
  if (!template) throw new TemplateError(`${templateRef.kind} ${namespace}/${templateRef.name} not found`, 'TemplateNotFound');
  const desired = objectFromTemplate({
    template,
    name: currentRef.name,
    namespace,
    clusterName: ms.spec.clusterName,
    labels: machineLabels(ms),
    ownerRef: machineSetOwnerRef(ms, false),
  });
  if (desired.kind !== currentRef.kind) {
    throw new TemplateError(`cannot update ${currentRef.kind} ${currentRef.name} in place from template kind ${templateRef.kind}`);
  }
  desired.metadata.annotations = { ...(desired.metadata.annotations ?? {}), [UPDATE_IN_PROGRESS_ANNOTATION]: '' };
  const current = await deps.client.tryGet({ ...refOf(desired) });
  return { desired, current };
}

/** Starts the in-place update of an acknowledged moved Machine. Idempotent: every step can be repeated. */
export async function startInPlaceUpdate(deps: InPlaceStartDeps, ms: MachineSet, machine: Machine): Promise<Machine> {
  const opts = { fieldOwner: MACHINESET_FIELD_MANAGER };
  const infra = await desiredFromTemplate(deps, ms, machine, ms.spec.template.spec.infrastructureRef, machine.spec.infrastructureRef);
  if (!infra.current) throw new TemplateError(`${machine.spec.infrastructureRef.kind} ${machine.spec.infrastructureRef.name} of Machine ${machine.metadata.name} not found`, 'InfraMachineNotFound');
  await deps.applier.patch(deps.client, infra.desired, { ...opts, original: infra.current });

  const bootstrapTemplate = ms.spec.template.spec.bootstrap?.configRef;
  const bootstrapCurrent = machine.spec.bootstrap?.configRef;
  if (bootstrapTemplate && bootstrapCurrent) {
    const bootstrap = await desiredFromTemplate(deps, ms, machine, bootstrapTemplate, bootstrapCurrent);
    if (bootstrap.current) await deps.applier.patch(deps.client, bootstrap.desired, { ...opts, original: bootstrap.current });
  }

  const desiredMachine = computeDesiredMachine(ms, machine);
  await deps.applier.patch(deps.client, desiredMachine, { ...opts, original: machine });
  await markAsPending(deps.client, desiredMachine, 'UpdateMachine');
  const done = await deps.client.patch<Machine>(refOf(desiredMachine), 'merge', {
    metadata: { annotations: { [PENDING_ACKNOWLEDGE_MOVE_ANNOTATION]: null } },
  });
  return done;
}
