// Desired MachineSets of a MachineDeployment (upstream machinedeployment_sync.go computeDesiredMachineSet), pure.
import {
  ACKNOWLEDGED_MOVE_ANNOTATION,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  MACHINE_TEMPLATE_HASH_LABEL,
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  type MachineDeployment,
  type MachineSet,
  type MachineTemplateSpec,
} from '@capi/api';
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/inplace';
import { canonicalJson, fnv32a } from '@capi/apimachinery';

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

/** Annotations the planner recomputes on every reconcile and never carries over from the current MS. */
const PLANNER_MANAGED_ANNOTATIONS = [
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  ACKNOWLEDGED_MOVE_ANNOTATION,
  IN_PLACE_UPDATERS_ANNOTATION,
];

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
 * timeouts, readiness gates, minReadySeconds, taints, deletion order); its machine-template-hash stays.
 */
export function computeDesiredMachineSet(
  md: MachineDeployment,
  current: MachineSet | undefined,
  takenNames: ReadonlySet<string> = new Set(),
): MachineSet {
  if (current) {
    const ms = structuredClone(current);
    const annotations = { ...(ms.metadata.annotations ?? {}) };
    for (const key of PLANNER_MANAGED_ANNOTATIONS) delete annotations[key];
    ms.metadata.annotations = annotations;
    const hash =
      ms.spec.template.metadata?.labels?.[MACHINE_TEMPLATE_HASH_LABEL] ??
      ms.spec.selector.matchLabels?.[MACHINE_TEMPLATE_HASH_LABEL];
    const t = md.spec.template;
    ms.spec.template.metadata = {
      labels: { ...(t.metadata?.labels ?? {}), ...(hash ? { [MACHINE_TEMPLATE_HASH_LABEL]: hash } : {}) },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
    };
    const spec = ms.spec.template.spec;
    for (const field of ['readinessGates', 'deletion', 'minReadySeconds', 'taints'] as const) {
      if (t.spec[field] === undefined) delete spec[field];
      else (spec as Record<string, unknown>)[field] = structuredClone(t.spec[field]);
    }
    if (md.spec.deletion?.order) ms.spec.deletion = { order: md.spec.deletion.order };
    return ms;
  }
  let collision = 0;
  let hash = computeTemplateHash(md.spec.template);
  while (takenNames.has(`${md.metadata.name}-${hash}`)) hash = computeTemplateHash(md.spec.template, ++collision);
  const name = `${md.metadata.name}-${hash}`;
  const selector = structuredClone(md.spec.selector);
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [MACHINE_TEMPLATE_HASH_LABEL]: hash };
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    metadata: {
      name,
      namespace: md.metadata.namespace,
      labels: {
        ...(md.spec.template.metadata?.labels ?? {}),
        [MACHINE_TEMPLATE_HASH_LABEL]: hash,
        [MACHINE_DEPLOYMENT_NAME_LABEL]: md.metadata.name ?? '',
        [CLUSTER_NAME_LABEL]: md.spec.clusterName,
      },
      annotations: {},
      ownerReferences: [mdOwnerRef(md)],
    },
    spec: {
      clusterName: md.spec.clusterName,
      replicas: 0,
      selector,
      template: templateWithHash(md, hash),
      ...(md.spec.deletion?.order ? { deletion: { order: md.spec.deletion.order } } : {}),
      ...(md.spec.machineNaming ? { machineNaming: structuredClone(md.spec.machineNaming) } : {}),
    },
    status: { replicas: 0, availableReplicas: 0 },
  };
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
