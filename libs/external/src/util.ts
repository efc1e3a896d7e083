// Reading the object behind a contract-versioned reference (upstream controllers/external/util.go
// GetObjectFromContractVersionedRef): the version comes from the CRD's contract label, then the object is read.
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import type { ContractVersionedRef, ContractVersionResolver } from './contract-version';

/** The object `ref` points to in `namespace`; undefined when it does not exist (a missing CRD throws). */
export async function getReferenced(
  client: Client,
  resolver: ContractVersionResolver,
  ref: ContractVersionedRef,
  namespace: string | undefined,
): Promise<KubeObject | undefined> {
  return client.tryGet(await resolver.objectRef(ref, namespace));
}
