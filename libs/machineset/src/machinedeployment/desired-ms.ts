// Desired MachineSets of a MachineDeployment (upstream machinedeployment_sync.go computeDesiredMachineSet), pure.
import {
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  MACHINE_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  type MachineDeployment,
  type MachineSet,
  type MachineTemplateSpec,
} from '@capi/api';
import { canonicalJson, fnv32a } from '@capi/apimachinery';
import { maxSurge, RolloutAnnotations } from '../rollout';

// Same alphabet as k8s.io/apimachinery rand.SafeEncodeString: no vowels, no ambiguous characters.
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function safeEncode(text: string): string {
  let out = '';
  for (const ch of text) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length];
  return out;
}

/** Hash of the MD machine template (labels excluded from nothing: any template change gives a new MS). */
export function computeTemplateHash(template: MachineTemplateSpec, collisionCount = 0): string {
  const text = canonicalJson(template) + (collisionCount > 0 ? `#${collisionCount}` : '');
  return safeEncode(String(fnv32a(text)));
}

// Upstream api/core/v1beta2 DesiredReplicasAnnotation / MaxReplicasAnnotation.
const DESIRED_REPLICAS_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/desired-replicas';
const MAX_REPLICAS_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/max-replicas';

/**
 * MachineDeployment annotations never copied to its MachineSets (upstream mdutil annotationsToSkip): the revision ones
 * are the planner's, the replica ones are recomputed, the conversion data would loop between the two objects.
 */
const ANNOTATIONS_NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  RolloutAnnotations.revisionHistory,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'cluster.x-k8s.io/conversion-data',
]);

/**
 * The annotations of every MachineSet of the MD (upstream mdutil.MachineSetAnnotationsFromMachineDeployment): the MD's
 * own (minus ANNOTATIONS_NOT_COPIED), desired-replicas and max-replicas (spec.replicas + maxSurge). The planner adds the
 * revision, disable-machine-create and move annotations on top.
 */
export function machineSetAnnotationsFromMachineDeployment(md: MachineDeployment): Record<string, string> {
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.metadata.annotations ?? {}))
    if (!ANNOTATIONS_NOT_COPIED.has(k)) annotations[k] = v;
  const replicas = md.spec.replicas ?? 0;
  annotations[DESIRED_REPLICAS_ANNOTATION] = String(replicas);
  annotations[MAX_REPLICAS_ANNOTATION] = String(replicas + maxSurge(md));
  return annotations;
}

function mdOwnerRef(md: MachineDeployment) {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    name: md.metadata.name ?? '',
    uid: md.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The template of a MachineSet with hash `hash`: the MD template plus the machine-template-hash label. */
function templateWithHash(md: MachineDeployment, hash: string): MachineTemplateSpec {
  const template = structuredClone(md.spec.template);
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: { ...(template.metadata?.labels ?? {}), [MACHINE_TEMPLATE_HASH_LABEL]: hash },
  };
  template.spec.clusterName = md.spec.clusterName;
  return template;
}

/**
 * Desired state of one MachineSet. New: `<md>-<hash>` (collision-free among `takenNames`) with the MD template, selector
 * and labels plus the hash, 0 replicas. Existing: a copy whose in-place mutable fields follow the MD (template metadata,
 * timeouts, readiness gates, minReadySeconds, taints, deletion order, machineNaming); its machine-template-hash stays.
 * Both carry only the labels and annotations computed from the MD, as upstream computeDesiredMS
 * (machinedeployment_rollout_planner.go): the planner adds its own, SSA leaves others' alone.
 */
export function computeDesiredMachineSet(
  md: MachineDeployment,
  current: MachineSet | undefined,
  takenNames: ReadonlySet<string> = new Set(),
): MachineSet {
  if (current) {
    // Name, uid, finalizers, replicas, selector and template spec stay the current MS's; what follows is the MD's.
    const ms = structuredClone(current);
    const hash =
      ms.metadata.labels?.[MACHINE_TEMPLATE_HASH_LABEL] ??
      ms.spec.template.metadata?.labels?.[MACHINE_TEMPLATE_HASH_LABEL] ??
      ms.spec.selector.matchLabels?.[MACHINE_TEMPLATE_HASH_LABEL];
    const t = md.spec.template;
    ms.metadata.labels = machineSetLabels(md, hash);
    ms.metadata.annotations = machineSetAnnotationsFromMachineDeployment(md);
    ms.spec.template.metadata = {
      labels: { ...(t.metadata?.labels ?? {}), ...(hash ? { [MACHINE_TEMPLATE_HASH_LABEL]: hash } : {}) },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
    };
    const spec = ms.spec.template.spec;
    for (const field of ['readinessGates', 'deletion', 'minReadySeconds', 'taints'] as const) {
      if (t.spec[field] === undefined) delete spec[field];
      else (spec as Record<string, unknown>)[field] = structuredClone(t.spec[field]);
    }
    setFromMachineDeployment(ms, md);
    return ms;
  }
  let collision = 0;
  let hash = computeTemplateHash(md.spec.template);
  while (takenNames.has(`${md.metadata.name}-${hash}`)) hash = computeTemplateHash(md.spec.template, ++collision);
  const name = `${md.metadata.name}-${hash}`;
  const selector = structuredClone(md.spec.selector);
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [MACHINE_TEMPLATE_HASH_LABEL]: hash };
  const ms: MachineSet = {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    metadata: {
      name,
      namespace: md.metadata.namespace,
      labels: machineSetLabels(md, hash),
      annotations: machineSetAnnotationsFromMachineDeployment(md),
      ownerReferences: [mdOwnerRef(md)],
    },
    spec: {
      clusterName: md.spec.clusterName,
      replicas: 0,
      selector,
      template: templateWithHash(md, hash),
    },
    status: { replicas: 0, availableReplicas: 0 },
  };
  setFromMachineDeployment(ms, md);
  return ms;
}

/** MS labels (upstream): the MD template's, the machine-template-hash, deployment-name and cluster-name. */
function machineSetLabels(md: MachineDeployment, hash: string | undefined): Record<string, string> {
  return {
    ...(md.spec.template.metadata?.labels ?? {}),
    ...(hash ? { [MACHINE_TEMPLATE_HASH_LABEL]: hash } : {}),
    [MACHINE_DEPLOYMENT_NAME_LABEL]: md.metadata.name ?? '',
    [CLUSTER_NAME_LABEL]: md.spec.clusterName,
  };
}

/** spec.deletion.order and spec.machineNaming follow the MD, unset included. */
function setFromMachineDeployment(ms: MachineSet, md: MachineDeployment): void {
  if (md.spec.deletion?.order) ms.spec.deletion = { order: md.spec.deletion.order };
  else delete ms.spec.deletion;
  if (md.spec.machineNaming) ms.spec.machineNaming = structuredClone(md.spec.machineNaming);
  else delete ms.spec.machineNaming;
}

/** The SSA intent for a planned MachineSet: its desired metadata and spec with the planned replicas. */
export function machineSetApplyIntent(ms: MachineSet, replicas: number): MachineSet {
  const intent = structuredClone(ms);
  intent.apiVersion = CLUSTER_API_VERSION;
  intent.kind = 'MachineSet';
  intent.spec.replicas = replicas;
  delete intent.status;
  return intent;
}
