// Desired Machine / InfraMachine / BootstrapConfig of a MachineSet (upstream machineset_controller.go
// computeDesiredMachine and external.CreateFromTemplate), pure so creation and in-place updates share them.
import {
  fnv32a,
  generateNameFromTemplate,
  mustFormatLabelValue,
  parseApiVersion,
  type KubeObject,
  type OwnerReference,
} from '@capi/apimachinery';
import {
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  MACHINE_FINALIZER,
  MACHINE_SET_NAME_LABEL,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
  type Machine,
  type MachineSet,
} from '@capi/api';

const DEFAULT_MACHINE_NAME_TEMPLATE = '{{ .machineSet.name }}-{{ .random }}';

/**
 * The name of a new Machine from spec.machineNaming.template, by default `<ms name>-<5 random characters>`
 * (upstream computeDesiredMachine with topology/names MachineSetMachineNameGenerator). A template without
 * `{{ .random }}` or one that does not render is a TemplateError with reason MachineCreationFailed.
 */
export function generateMachineName(ms: MachineSet, random: () => number = Math.random): string {
  const template = ms.spec.machineNaming?.template || DEFAULT_MACHINE_NAME_TEMPLATE;
  // Admission refuses such templates upstream; a MachineSet written around it must not create unnamed Machines.
  if (!template.includes('{{ .random }}'))
    throw new TemplateError(
      'cannot generate Machine name: {{ .random }} is missing in machineNaming.template',
      'MachineCreationFailed',
    );
  try {
    return generateNameFromTemplate(template, ms.spec.clusterName, { machineSet: { name: ms.metadata.name } }, random);
  } catch (e) {
    throw new TemplateError(`failed to generate Machine name: ${(e as Error).message}`, 'MachineCreationFailed');
  }
}

/** A label value for a name: the name itself when it is a valid label value, otherwise upstream's stable hash. */
export const formatLabelValue = (value: string): string => mustFormatLabelValue(value);

export function machineSetOwnerRef(ms: MachineSet, controller: boolean): OwnerReference {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    name: ms.metadata.name ?? '',
    uid: ms.metadata.uid ?? '',
    ...(controller ? { controller: true, blockOwnerDeletion: true } : {}),
  };
}

/** Labels every Machine of the MS carries: template labels plus set-name and (when owned by an MD) deployment-name. */
export function machineLabels(ms: MachineSet): Record<string, string> {
  const labels: Record<string, string> = { ...(ms.spec.template.metadata?.labels ?? {}) };
  labels[MACHINE_SET_NAME_LABEL] = formatLabelValue(ms.metadata.name ?? '');
  const md = ms.metadata.labels?.[MACHINE_DEPLOYMENT_NAME_LABEL];
  if (md) labels[MACHINE_DEPLOYMENT_NAME_LABEL] = md;
  labels[CLUSTER_NAME_LABEL] = ms.spec.clusterName;
  return labels;
}

/**
 * The Machine the MS wants: template spec, the MS as controller owner, template labels/annotations, the Machine
 * finalizer (a new Machine is created with it, so the Machine controller has none to add; an existing one keeps all
 * of its finalizers, foregroundDeletion included, plus that one). For an existing Machine the name, uid, the
 * references to its own infra/bootstrap objects, and spec.version and spec.failureDomain are kept: those change only
 * through a new Machine or an in-place update (upstream computeDesiredMachine).
 */
export function computeDesiredMachine(ms: MachineSet, existing: Machine | undefined, name?: string): Machine {
  const spec = structuredClone(ms.spec.template.spec);
  spec.clusterName = ms.spec.clusterName;
  const machine: Machine = {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: {
      name: existing?.metadata.name ?? name,
      namespace: ms.metadata.namespace,
      labels: machineLabels(ms),
      annotations: { ...(ms.spec.template.metadata?.annotations ?? {}) },
      ownerReferences: [machineSetOwnerRef(ms, true)],
      finalizers: [MACHINE_FINALIZER],
    },
    spec,
  };
  if (existing) {
    machine.metadata.uid = existing.metadata.uid;
    const finalizers = existing.metadata.finalizers ?? [];
    machine.metadata.finalizers = finalizers.includes(MACHINE_FINALIZER)
      ? [...finalizers]
      : [...finalizers, MACHINE_FINALIZER];
    machine.spec.infrastructureRef = structuredClone(existing.spec.infrastructureRef);
    if (existing.spec.bootstrap?.configRef)
      machine.spec.bootstrap = { ...machine.spec.bootstrap, configRef: { ...existing.spec.bootstrap.configRef } };
    else if (machine.spec.bootstrap?.configRef) delete machine.spec.bootstrap.configRef; // never the template's ref
    for (const field of ['version', 'failureDomain'] as const) {
      if (existing.spec[field] === undefined) delete machine.spec[field];
      else machine.spec[field] = existing.spec[field];
    }
  }
  if (Object.keys(machine.metadata.annotations ?? {}).length === 0) delete machine.metadata.annotations;
  return machine;
}

/**
 * Everything of the MS that computeDesiredMachine reads for an existing Machine (the owner reference, the labels of
 * machineLabels, spec.clusterName and spec.template), as one string: with the Machine's resourceVersion it
 * determines the desired Machine, so syncMachines can recognise an intent it already applied (IntentMemo). Computed
 * once per reconcile; keep it in step with computeDesiredMachine.
 */
export function desiredMachineInputsKey(ms: MachineSet): string {
  const m = ms.metadata;
  return `${fnv32a(JSON.stringify([m.namespace, m.name, m.uid, m.labels?.[MACHINE_DEPLOYMENT_NAME_LABEL], ms.spec.clusterName, ms.spec.template]))}`;
}

/** Why the selector cannot be used, or undefined. */
export function selectorProblem(
  ms: MachineSet,
  selector: { empty: boolean; matches(labels: Record<string, string> | undefined): boolean },
): string | undefined {
  if (selector.empty) return `MachineSet ${ms.metadata.name} has an empty spec.selector`;
  if (!selector.matches(machineLabels(ms)))
    return `spec.selector of MachineSet ${ms.metadata.name} does not match the labels of its Machines (spec.template.metadata.labels)`;
  return undefined;
}

export class TemplateError extends Error {
  constructor(
    message: string,
    readonly reason = 'InvalidTemplate',
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

interface TemplateObject extends KubeObject {
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: Record<string, unknown>;
    };
  };
}

/** `<Kind>Template` → `<Kind>`. */
export function kindFromTemplateKind(templateKind: string): string {
  if (!templateKind.endsWith('Template') || templateKind === 'Template') {
    throw new TemplateError(`template kind ${templateKind} does not end with "Template"`);
  }
  return templateKind.slice(0, -'Template'.length);
}

export interface ObjectFromTemplateInput {
  template: KubeObject;
  name: string;
  namespace: string | undefined;
  clusterName: string;
  /** Labels/annotations of the Machine, layered over the template's own metadata. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerRef: OwnerReference;
}

/**
 * The object cloned from an infra/bootstrap template: template metadata + Machine labels/annotations, the
 * cloned-from annotations, the cluster-name label, the MS as (non-controller) owner and `spec.template.spec`.
 */
export function objectFromTemplate(input: ObjectFromTemplateInput): KubeObject {
  const t = input.template as TemplateObject;
  const tmpl = t.spec?.template;
  if (!tmpl || typeof tmpl !== 'object') throw new TemplateError(`${t.kind} ${t.metadata.name} has no spec.template`);
  const { group } = parseApiVersion(t.apiVersion);
  const labels = { ...(tmpl.metadata?.labels ?? {}), ...(input.labels ?? {}), [CLUSTER_NAME_LABEL]: input.clusterName };
  const annotations = {
    ...(tmpl.metadata?.annotations ?? {}),
    ...(input.annotations ?? {}),
    [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: t.metadata.name ?? '',
    [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: `${t.kind}.${group}`,
  };
  return {
    apiVersion: t.apiVersion,
    kind: kindFromTemplateKind(t.kind),
    metadata: { name: input.name, namespace: input.namespace, labels, annotations, ownerReferences: [input.ownerRef] },
    spec: structuredClone(tmpl.spec ?? {}),
  };
}
