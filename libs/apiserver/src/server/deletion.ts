// What kube-apiserver's registry store does on DELETE, as pure rules: preconditions, the garbage collector's
// finalizers for the propagation policy, marking an object as being deleted, and the Status of an immediate delete
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go and ../rest/delete.go).
import type { KubeObject, Status } from '@capi/apimachinery';
import type { ResourceInfo } from './registry';
import { conflict, invalid, StatusError, successStatus, type Cause } from './status';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeletePolicy {
  propagationPolicy?: PropagationPolicy;
  /** DeleteOptions.orphanDependents (deprecated; wins over the policy when set). */
  orphanDependents?: boolean;
}

/** ValidateDeleteOptions (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go): 422 DeleteOptions. */
export function validateDeletePolicy(p: DeletePolicy): void {
  const causes: Cause[] = [];
  const policy = p.propagationPolicy as unknown;
  if (p.orphanDependents !== undefined && policy !== undefined) {
    causes.push({
      type: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (policy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(policy as string)) {
    causes.push({
      type: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  }
  if (causes.length) throw invalid('meta.k8s.io', 'DeleteOptions', '', causes);
}

const isNamespace = (info: ResourceInfo) => info.group === '' && info.kind === 'Namespace';
const qualifiedKind = (info: ResourceInfo) => (info.group ? `${info.kind}.${info.group}` : info.kind);

/**
 * rest.BeforeDelete's precondition checks: a Conflict naming the kind (not the resource). Namespaces have their own
 * REST Delete with the storage layer's wording (pkg/registry/core/namespace/storage/storage.go).
 */
export function checkDeletePreconditions(
  info: ResourceInfo,
  live: KubeObject,
  pre: { uid?: string; resourceVersion?: string } = {},
): void {
  const name = live.metadata.name!;
  if (isNamespace(info)) {
    if (pre.uid && pre.uid !== live.metadata.uid)
      throw conflict(
        '',
        'namespaces',
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${live.metadata.uid}`,
      );
    if (pre.resourceVersion && pre.resourceVersion !== live.metadata.resourceVersion) {
      throw conflict(
        '',
        'namespaces',
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${live.metadata.resourceVersion}`,
      );
    }
    return;
  }
  const fail = (why: string) =>
    new StatusError(409, `Operation cannot be fulfilled on ${qualifiedKind(info)} "${name}": ${why}`, 'Conflict', {
      name,
      group: info.group,
      kind: info.kind,
    });
  if (pre.uid && pre.uid !== live.metadata.uid) {
    throw fail(
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${live.metadata.uid}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion && pre.resourceVersion !== live.metadata.resourceVersion) {
    throw fail(
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${live.metadata.resourceVersion}). The object might have been modified`,
    );
  }
}

/**
 * deletionFinalizersForGarbageCollection: the object's finalizers with "orphan" / "foregroundDeletion" set as the
 * delete asks (an explicit orphanDependents, then the policy, then the finalizer already there; Background when
 * nothing says), whether or not the object has dependents: the garbage collector removes them.
 */
export function gcFinalizers(existing: string[], p: DeletePolicy): string[] {
  const has = (f: string) => existing.includes(f);
  let orphan: boolean;
  let foreground: boolean;
  if (p.orphanDependents !== undefined) [orphan, foreground] = [p.orphanDependents, false];
  else if (p.propagationPolicy)
    [orphan, foreground] = [p.propagationPolicy === 'Orphan', p.propagationPolicy === 'Foreground'];
  else {
    const first = existing.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
    [orphan, foreground] = [first === ORPHAN_FINALIZER, first === FOREGROUND_FINALIZER];
  }
  const out = existing.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) out.push(ORPHAN_FINALIZER);
  if (foreground) out.push(FOREGROUND_FINALIZER);
  // Same set: the order is left as it was (kube compares sets and then keeps the object's list).
  return out.length === existing.length && out.every(has) ? existing : out;
}

/**
 * markAsDeleting: deletionTimestamp (kept if already set), deletionGracePeriodSeconds 0, and generation bumped when
 * the deletion starts (objects that track one). Namespaces are marked by their own REST Delete: Terminating, no
 * grace period.
 */
export function markDeleting(info: ResourceInfo, obj: KubeObject, finalizers: string[], now: string): KubeObject {
  const m = obj.metadata;
  const starting = !m.deletionTimestamp;
  m.finalizers = finalizers;
  m.deletionTimestamp ??= now;
  if (isNamespace(info)) {
    obj.status = { ...(obj.status as object), phase: 'Terminating' };
    return obj;
  }
  m.deletionGracePeriodSeconds = 0;
  if (starting && (m.generation ?? 0) > 0) m.generation = m.generation! + 1;
  return obj;
}

/** Namespaces wait for their spec finalizers (the namespace controller's "kubernetes") as others for metadata ones. */
export function pendingSpecFinalizers(info: ResourceInfo, obj: KubeObject): boolean {
  return isNamespace(info) && ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0;
}

/** The answer to a DELETE that removed the object at once (finalizeDelete: details name the resource, not the kind). */
export function deletedStatus(info: ResourceInfo, obj: KubeObject): Status {
  return successStatus({ name: obj.metadata.name, group: info.group, kind: info.plural, uid: obj.metadata.uid });
}
