// The second half of syncMachines (upstream machineset_controller.go syncMachines / updateLabelsAndAnnotations): a
// Machine's InfraMachine and BootstrapConfig carry the MachineSet's Machine labels and template annotations, owned by
// capi-machineset-metadata. capi-machineset creates them with everything and gives labels and annotations up at once,
// so that a label dropped from the template, or the set-name of the MachineSet a Machine moved to, reaches them too.
import type { Machine, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client, InformerCache } from '@capi/controller-runtime';
import type { ContractVersionResolver } from '@capi/external';
import {
  removeManagedFieldsForLabelsAndAnnotations,
  syncLabelsAndAnnotations,
  type ServerSideApplier,
} from '@capi/ssa';
import { machineLabels } from './desired';
import { MACHINESET_FIELD_MANAGER } from './inplace-start';

export const MACHINESET_METADATA_FIELD_MANAGER = 'capi-machineset-metadata';

export interface MetadataSyncDeps {
  client: Client;
  /** Read-only reads when there is a cache (the objects are only read here). */
  cache?: InformerCache;
  resolver: ContractVersionResolver;
  applier: ServerSideApplier;
}

/** After creating an InfraMachine / BootstrapConfig: capi-machineset no longer owns its labels and annotations. */
export async function giveUpLabelsAndAnnotations(client: Client, created: KubeObject): Promise<void> {
  await removeManagedFieldsForLabelsAndAnnotations(client, created, MACHINESET_FIELD_MANAGER);
}

/** What the MachineSet's InfraMachines and BootstrapConfigs carry: computed once per reconcile, for all its Machines. */
export interface InfraAndBootstrapMetadata {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** What the MachineSet's intents are computed from (the request cache's memo inputs). */
  inputs: string;
}

export function infraAndBootstrapMetadata(ms: MachineSet, inputs: string): InfraAndBootstrapMetadata {
  return { labels: machineLabels(ms), annotations: { ...(ms.spec.template.metadata?.annotations ?? {}) }, inputs };
}

/**
 * Applies the MachineSet's Machine labels and template annotations to the Machine's InfraMachine and BootstrapConfig
 * (a request-cache no-op when they are in place). An object not in the cache yet (just created) or gone is skipped, as
 * KCP's syncMachines does: the next reconcile gets it.
 */
export async function syncInfraAndBootstrapMetadata(
  deps: MetadataSyncDeps,
  metadata: InfraAndBootstrapMetadata,
  machine: Machine,
): Promise<void> {
  const namespace = machine.metadata.namespace;
  const refs = [machine.spec.infrastructureRef, machine.spec.bootstrap?.configRef].filter((r) => !!r?.name);
  for (const ref of refs) {
    const objectRef = await deps.resolver.objectRef(ref!, namespace);
    const current = deps.cache
      ? await deps.cache.tryGet(objectRef, { readOnly: true })
      : await deps.client.tryGet(objectRef);
    if (!current) continue;
    await syncLabelsAndAnnotations(deps.applier, deps.client, current, {
      fieldManager: MACHINESET_FIELD_MANAGER,
      metadataFieldManager: MACHINESET_METADATA_FIELD_MANAGER,
      ...metadata,
    });
  }
}
