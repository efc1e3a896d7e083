// Receiving side of an in-place move (upstream core/reconcilers/machineset/machineset_controller.go
// triggerInPlaceUpdate and completeMoveMachine): apply the desired InfraMachine/BootstrapConfig (marked
// update-in-progress) and the desired Machine, then, in one patch, mark UpdateMachine pending and drop
// pending-acknowledge-move. The Machine controller starts only once pending-hooks is written, so it never sees a
// half-written desired state.
import {
  CLUSTER_API_VERSION,
  PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  SUCCESSFUL_START_IN_PLACE_UPDATE_EVENT_REASON,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  annotationsMergePatch,
  markAsPendingAnnotations,
  type Machine,
  type MachineSet,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { refOf, type Client } from '@capi/controller-runtime';
import type { EventRecorder } from '@capi/controller-runtime';
import {
  labelsAndAnnotationsHandOverNeeded,
  removeManagedFieldsForLabelsAndAnnotations,
  type ServerSideApplier,
} from '@capi/ssa';
import { getReferenced, type ContractVersionedRef, type ContractVersionResolver } from '@capi/external';
import { computeDesiredMachine, machineLabels, machineSetOwnerRef, objectFromTemplate, TemplateError } from './desired';

export const MACHINESET_FIELD_MANAGER = 'capi-machineset';
export const START_IN_PLACE_UPDATE_MESSAGE = 'Machine starting in-place update';

export interface InPlaceStartDeps {
  client: Client;
  applier: ServerSideApplier;
  resolver: ContractVersionResolver;
  events: EventRecorder;
}

const ownedByMachine = (obj: KubeObject) =>
  obj.metadata.ownerReferences?.some((r) => r.kind === 'Machine' && r.apiVersion.startsWith('cluster.x-k8s.io/')) ??
  false;

/**
 * The InfraMachine / BootstrapConfig the MS wants for an existing object: spec from the MS template; metadata only
 * the cloned-from annotations and update-in-progress (labels and other annotations belong to the metadata sync, not
 * to this apply); the MS as owner unless a Machine already owns the object; the existing uid so SSA never creates.
 */
export function desiredObjectForInPlaceUpdate(ms: MachineSet, template: KubeObject, current: KubeObject): KubeObject {
  const desired = objectFromTemplate({
    template,
    name: current.metadata.name ?? '',
    namespace: ms.metadata.namespace,
    clusterName: ms.spec.clusterName,
    labels: machineLabels(ms),
    ownerRef: machineSetOwnerRef(ms, false),
  });
  if (desired.kind !== current.kind) {
    throw new TemplateError(
      `cannot update ${current.kind} ${current.metadata.name} in place from template kind ${template.kind}`,
    );
  }
  const annotations = desired.metadata.annotations ?? {};
  return {
    ...desired,
    metadata: {
      name: desired.metadata.name,
      namespace: desired.metadata.namespace,
      uid: current.metadata.uid,
      annotations: {
        [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: annotations[TEMPLATE_CLONED_FROM_NAME_ANNOTATION],
        [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: annotations[TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION],
        [UPDATE_IN_PROGRESS_ANNOTATION]: '',
      },
      ...(ownedByMachine(current) ? {} : { ownerReferences: desired.metadata.ownerReferences }),
    },
  };
}

/** The Machine the MS wants at the start of an in-place update: like syncMachines, plus the template's version and failureDomain. */
export function desiredMachineForInPlaceUpdate(ms: MachineSet, machine: Machine): Machine {
  const desired = computeDesiredMachine(ms, machine);
  const { version, failureDomain } = ms.spec.template.spec;
  if (version === undefined) delete desired.spec.version;
  else desired.spec.version = version;
  if (failureDomain === undefined) delete desired.spec.failureDomain;
  else desired.spec.failureDomain = failureDomain;
  return desired;
}

/**
 * The one merge patch that hands the Machine to the Machine controller: UpdateMachine added to pending-hooks and
 * pending-acknowledge-move removed. Undefined when there is nothing to change.
 */
export function startInPlaceUpdatePatch(
  machine: Machine,
): { metadata: { annotations: Record<string, string | null> } } | undefined {
  const { annotations } = markAsPendingAnnotations(machine.metadata.annotations, 'UpdateMachine');
  delete annotations[PENDING_ACKNOWLEDGE_MOVE_ANNOTATION];
  return annotationsMergePatch(machine.metadata.annotations, annotations);
}

async function applyDesiredFromTemplate(
  deps: InPlaceStartDeps,
  ms: MachineSet,
  machine: Machine,
  templateRef: ContractVersionedRef,
  currentRef: ContractVersionedRef,
  what: string,
): Promise<void> {
  const namespace = ms.metadata.namespace;
  const current = await getReferenced(deps.client, deps.resolver, currentRef, namespace);
  if (!current)
    throw new TemplateError(
      `failed to get ${what} ${namespace}/${currentRef.name} of Machine ${machine.metadata.name}: not found`,
      `${what}NotFound`,
    );
  const template = await getReferenced(deps.client, deps.resolver, templateRef, namespace);
  if (!template)
    throw new TemplateError(`${templateRef.kind} ${namespace}/${templateRef.name} not found`, 'TemplateNotFound');
  const desired = desiredObjectForInPlaceUpdate(ms, template, current);
  // An object whose labels or other annotations this manager still owns (one whose hand-over at creation did not
  // happen) would lose them to this apply, which carries none of them: give them up first. Objects this manager
  // created gave them up then, and upstream's completeMoveMachine applies without a hand-over; the annotations this
  // apply itself owns from an earlier in-place update are re-applied, so for them nothing is written.
  if (
    labelsAndAnnotationsHandOverNeeded(
      current.metadata.managedFields,
      MACHINESET_FIELD_MANAGER,
      desired.metadata.annotations ?? {},
    )
  )
    await removeManagedFieldsForLabelsAndAnnotations(deps.client, current, MACHINESET_FIELD_MANAGER);
  await deps.applier.patch(deps.client, desired, { fieldOwner: MACHINESET_FIELD_MANAGER, noCache: true });
}

/**
 * Starts the in-place update of a Machine (shouldStartInPlaceUpdate decided it may). Idempotent: a failure before the
 * final patch leaves the Machine as it was, and the next reconcile repeats every step. Returns the patched Machine.
 */
export async function startInPlaceUpdate(deps: InPlaceStartDeps, ms: MachineSet, machine: Machine): Promise<Machine> {
  // InfraMachine first: it is the write most likely to fail.
  await applyDesiredFromTemplate(
    deps,
    ms,
    machine,
    ms.spec.template.spec.infrastructureRef,
    machine.spec.infrastructureRef,
    'InfraMachine',
  );
  const bootstrapCurrent = machine.spec.bootstrap?.configRef;
  if (bootstrapCurrent) {
    const bootstrapTemplate = ms.spec.template.spec.bootstrap?.configRef;
    if (!bootstrapTemplate)
      throw new TemplateError(
        `Machine ${machine.metadata.name} has a BootstrapConfig but MachineSet ${ms.metadata.name} has no bootstrap template`,
      );
    await applyDesiredFromTemplate(deps, ms, machine, bootstrapTemplate, bootstrapCurrent, 'BootstrapConfig');
  }
  // No original, so the cache is not consulted, but it is filled: syncMachines' next intent for this Machine is the same
  // one and finds it in place instead of re-applying it.
  await deps.applier.patch(deps.client, desiredMachineForInPlaceUpdate(ms, machine), {
    fieldOwner: MACHINESET_FIELD_MANAGER,
  });

  const patch = startInPlaceUpdatePatch(machine);
  const started = patch ? await deps.client.patch<Machine>(refOf(machine), 'merge', patch) : machine;
  await deps.events.event(
    { ...started, apiVersion: CLUSTER_API_VERSION, kind: 'Machine' },
    'Normal',
    SUCCESSFUL_START_IN_PLACE_UPDATE_EVENT_REASON,
    START_IN_PLACE_UPDATE_MESSAGE,
  );
  return started;
}
