// Pure rules for how the server rewrites objects on writes (metadata ownership, status subresource, generation).
import { randomBytes } from 'node:crypto';
import { jsonEqual, type KubeObject } from '@capi/apimachinery';
import { podOnCreate } from './pods';
import type { ResourceInfo } from './registry';

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
export function generateNameSuffix(): string {
  return [...randomBytes(5)].map((b) => NAME_CHARS[b % NAME_CHARS.length]).join('');
}

/**
 * Kinds whose registry strategy manages metadata.generation. In kube that is each kind's PrepareForCreate /
 * PrepareForUpdate: custom resources, CustomResourceDefinitions, Pods (since kube 1.33, podStrategy) and apps/v1
 * Deployments, ReplicaSets and DaemonSets set 1 and bump it on spec changes; the other built-ins served here (Namespace, Secret,
 * ConfigMap, Event, Node, Lease, RBAC) never touch it, so they carry none.
 */
const BUILTINS_WITH_GENERATION = new Set([
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apps/Deployment',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  '/Pod',
  'policy/PodDisruptionBudget',
  // pkg/registry/admissionregistration/*webhookconfiguration/strategy.go: bumped when the webhooks change.
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
]);
/**
 * Built-ins whose strategy resets the status on create (kube's deployment/daemonset PrepareForCreate), as the zero
 * status serialises: DaemonSetStatus has four counters without omitempty.
 */
const ZERO_STATUS_ON_CREATE: Record<string, () => Record<string, unknown>> = {
  'apps/Deployment': () => ({}),
  // ReplicaSetStatus.replicas has no omitempty.
  'apps/ReplicaSet': () => ({ replicas: 0 }),
  'apps/DaemonSet': () => ({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  }),
  // PodDisruptionBudgetStatus' four counters and VolumeAttachmentStatus.attached have no omitempty.
  'policy/PodDisruptionBudget': () => ({
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  }),
  'storage.k8s.io/VolumeAttachment': () => ({ attached: false }),
  '/PersistentVolumeClaim': () => ({ phase: 'Pending' }),
  '/Service': () => ({ loadBalancer: {} }),
};
export const tracksGeneration = (info: ResourceInfo): boolean =>
  info.custom || BUILTINS_WITH_GENERATION.has(`${info.group}/${info.kind}`);

/** Top-level fields other than metadata (and status when it is a subresource): a change bumps generation. */
function specPart(obj: Record<string, any>, info: ResourceInfo): Record<string, any> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return info.statusSubresource ? rest : { ...rest, status: obj.status };
}

export function specChanged(oldObj: Record<string, any>, newObj: Record<string, any>, info: ResourceInfo): boolean {
  return !jsonEqual(specPart(oldObj, info), specPart(newObj, info));
}

/** System metadata set by the server on create. */
export function initCreate(
  obj: KubeObject,
  info: ResourceInfo,
  now: string,
  uid: string,
  namespace: string,
): KubeObject {
  const meta = { ...obj.metadata };
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (!meta.name && meta.generateName) meta.name = meta.generateName + generateNameSuffix();
  if (info.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  meta.uid = uid;
  meta.creationTimestamp = now;
  // Kinds without a generation strategy keep what the client sent, as kube's BeforeCreate does (normally nothing).
  if (tracksGeneration(info)) meta.generation = 1;
  const out: KubeObject = { ...obj, metadata: meta };
  // Custom resources with a status subresource start without status (it is written through /status).
  if (info.custom && info.statusSubresource) delete out.status;
  const zeroStatus = ZERO_STATUS_ON_CREATE[`${info.group}/${info.kind}`];
  if (zeroStatus) out.status = zeroStatus();
  // kube's persistentvolume strategy: a new PV is Pending since now (lastPhaseTransitionTime).
  if (isCore(info, 'PersistentVolume')) out.status = { phase: 'Pending', lastPhaseTransitionTime: now };
  if (isCore(info, 'Namespace')) {
    // kube's namespace strategy: a new Namespace is Active (`kubectl get ns` STATUS), whatever status was sent, and
    // carries the "kubernetes" spec finalizer (appended to any the client sent).
    out.status = { phase: 'Active' };
    const spec = specOf(out);
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    out.spec = { ...spec, finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'] };
  }
  if (isCore(info, 'Node')) out.spec = withNotReadyTaint(specOf(out));
  if (isCore(info, 'Pod')) return podOnCreate(out);
  return defaultNamespaceLabel(defaultSecretType(out, info), info);
}

const specOf = (obj: KubeObject): Record<string, unknown> => (obj.spec ?? {}) as Record<string, unknown>;
const isCore = (info: ResourceInfo, kind: string) => info.group === '' && info.kind === kind;

/**
 * kube's TaintNodesByCondition admission (plugin/pkg/admission/nodetaint): a new Node is tainted not-ready (NoSchedule)
 * until the node lifecycle controller sees it Ready.
 */
export const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
function withNotReadyTaint(spec: Record<string, unknown>): Record<string, unknown> {
  const taints = Array.isArray(spec.taints) ? (spec.taints as { key?: string; effect?: string }[]) : [];
  if (taints.some((t) => t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect)) return spec;
  return { ...spec, taints: [...taints, { ...NOT_READY_TAINT }] };
}

export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** kube's SetDefaults_Namespace, applied on every write: a Namespace is labelled with its name (whatever was sent). */
function defaultNamespaceLabel(obj: KubeObject, info: ResourceInfo): KubeObject {
  if (isCore(info, 'Namespace') && obj.metadata.name)
    obj.metadata.labels = { ...obj.metadata.labels, [NAMESPACE_NAME_LABEL]: obj.metadata.name };
  return obj;
}

/** kube's SetDefaults_Secret, applied on every write: a Secret without a type is Opaque. */
function defaultSecretType(obj: KubeObject, info: ResourceInfo): KubeObject {
  if (isCore(info, 'Secret') && (obj.type === undefined || obj.type === '')) obj.type = 'Opaque';
  return obj;
}

/**
 * Carries the server-owned parts of `old` into an update of the main resource (or of /status),
 * and bumps generation when the spec changed.
 */
export function mergeUpdate(
  old: KubeObject,
  updated: KubeObject,
  info: ResourceInfo,
  subresource?: 'status' | 'scale',
): KubeObject {
  let out: KubeObject;
  if (subresource === 'status') {
    out = { ...old, metadata: { ...old.metadata } };
    if (updated.status === undefined) delete out.status;
    else out.status = updated.status;
    if (updated.metadata?.managedFields) out.metadata.managedFields = updated.metadata.managedFields;
    return out;
  }
  out = defaultSecretType({ ...updated, metadata: { ...updated.metadata } }, info);
  // Namespace spec finalizers change only through /finalize in kube (PrepareForUpdate keeps the old ones).
  if (isCore(info, 'Namespace')) {
    const spec = { ...specOf(out) };
    const kept = specOf(old).finalizers;
    if (kept === undefined) delete spec.finalizers;
    else spec.finalizers = kept;
    out.spec = spec;
  }
  if (info.statusSubresource) {
    if (old.status === undefined) delete out.status;
    else out.status = old.status;
  }
  const m = out.metadata;
  m.name = old.metadata.name;
  if (old.metadata.namespace !== undefined) m.namespace = old.metadata.namespace;
  m.uid = old.metadata.uid;
  m.creationTimestamp = old.metadata.creationTimestamp;
  if (old.metadata.deletionTimestamp) {
    m.deletionTimestamp = old.metadata.deletionTimestamp;
    m.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  } else {
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
  }
  delete m.generateName;
  if (old.metadata.generateName) m.generateName = old.metadata.generateName;
  // Requests cannot change generation (kube's BeforeUpdate); only the strategies that track it bump it.
  defaultNamespaceLabel(out, info);
  if (tracksGeneration(info)) m.generation = (old.metadata.generation ?? 1) + (specChanged(old, out, info) ? 1 : 0);
  else if (old.metadata.generation === undefined) delete m.generation;
  else m.generation = old.metadata.generation;
  return out;
}

/** Drops empty metadata collections the way kube serializes them (omitempty). */
export function tidyMeta(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v = m[k] as unknown;
    if (
      v === null ||
      (Array.isArray(v) && v.length === 0) ||
      (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
    )
      delete m[k];
  }
  return obj;
}

const isPlainMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Paths ("spec.foo", "spec.items[0].bar") present in `before` but dropped in `after` (what pruning removed). */
export function droppedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  const out: string[] = [];
  if (isPlainMap(before) && isPlainMap(after)) {
    for (const [k, v] of Object.entries(before)) {
      const p = prefix ? `${prefix}.${k}` : k;
      if (!(k in after)) out.push(p);
      else out.push(...droppedPaths(v, after[k], p));
    }
  } else if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((v, i) => out.push(...droppedPaths(v, after[i], `${prefix}[${i}]`)));
  }
  return out;
}
