// Makes the in-memory kinds known to @capi/api's CRD registry (envtest and the manager install what it holds).
import { buildCrd, crdRegistry, type CrdRegistry, type CustomResourceDefinition } from '@capi/api';
import { INMEMORY_KIND_DEFINITIONS } from './types';

/** Registers InMemoryCluster / InMemoryMachine / InMemoryMachineTemplate (idempotent). */
export function registerInMemoryKinds(registry: CrdRegistry = crdRegistry): void {
  for (const def of INMEMORY_KIND_DEFINITIONS) registry.register(def);
}

/** The provider's CRDs, e.g. for `startEnvtest({ crds })` with a separate registry. */
export function inMemoryCrds(): CustomResourceDefinition[] {
  return INMEMORY_KIND_DEFINITIONS.map((d) => buildCrd(d));
}
