// Desired state of a control-plane Machine and its KubeadmConfig / InfraMachine (upstream desiredstate package).
// The same functions serve creating a new Machine and computing what an existing Machine should look like.
import {
  BOOTSTRAP_API_VERSION,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  CONTROLPLANE_API_VERSION,
  KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION,
  KCP_REMEDIATION_FOR_ANNOTATION,
  MACHINE_CONTROL_PLANE_LABEL,
  MACHINE_CONTROL_PLANE_NAME_LABEL,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
  type KubeadmConfig,
  type KubeadmConfigSpec,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { KubeObject, OwnerReference } from '@capi/apimachinery';

export class DesiredStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DesiredStateError';
  }
}

/** Labels every control-plane Machine (and its KubeadmConfig / InfraMachine) carries. */
export function controlPlaneMachineLabels(kcp: KubeadmControlPlane, clusterName: string): Record<string, string> {
  return {
    ...(kcp.spec.machineTemplate.metadata?.labels ?? {}),
    [CLUSTER_NAME_LABEL]: clusterName,
    [MACHINE_CONTROL_PLANE_LABEL]: '',
    [MACHINE_CONTROL_PLANE_NAME_LABEL]: kcp.metadata.name ?? '',
  };
}

export function controlPlaneMachineAnnotations(kcp: KubeadmControlPlane): Record<string, string> {
  return { ...(kcp.spec.machineTemplate.metadata?.annotations ?? {}) };
}

export function kcpOwnerReference(kcp: KubeadmControlPlane, controller: boolean): OwnerReference {
  const ref: OwnerReference = {
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    name: kcp.metadata.name ?? '',
    uid: kcp.metadata.uid ?? '',
  };
  if (controller) Object.assign(ref, { controller: true, blockOwnerDeletion: true });
  return ref;
}

const hasMachineOwner = (obj: KubeObject | undefined): boolean =>
  !!obj?.metadata.ownerReferences?.some((r) => r.kind === 'Machine' && r.apiVersion.startsWith('cluster.x-k8s.io/'));

export interface DesiredMachineInput {
  kcp: KubeadmControlPlane;
  clusterName: string;
  /** Name for a new Machine (ignored when `existing` is given). */
  name?: string;
  existing?: Machine;
  /** References of a new Machine (existing Machines keep theirs). */
  infrastructureRef?: Machine['spec']['infrastructureRef'];
  bootstrapConfigRef?: NonNullable<Machine['spec']['bootstrap']['configRef']>;
  failureDomain?: string;
  /** remediation-for annotation of a new Machine replacing a remediated one (existing Machines keep theirs). */
  remediationFor?: string;
}

/**
 * The desired Machine. A new Machine gets the KCP version; an existing Machine keeps its own version and references
 * (the version is what an in-place update or a rollout changes, so "desired for in-place" sets it explicitly).
 */
export function computeDesiredMachine(input: DesiredMachineInput): Machine {
  const { kcp, clusterName, existing } = input;
  const name = existing?.metadata.name ?? input.name;
  if (!name) throw new DesiredStateError('failed to compute desired Machine: no name');
  const tmpl = kcp.spec.machineTemplate.spec;
  const infrastructureRef = existing?.spec.infrastructureRef ?? input.infrastructureRef;
  if (!infrastructureRef)
    throw new DesiredStateError(`failed to compute desired Machine ${name}: no infrastructureRef`);
  const configRef = existing ? existing.spec.bootstrap.configRef : input.bootstrapConfigRef;
  const machine: Machine = {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: {
      name,
      namespace: kcp.metadata.namespace,
      labels: controlPlaneMachineLabels(kcp, clusterName),
      annotations: controlPlaneMachineAnnotations(kcp),
      ownerReferences: [kcpOwnerReference(kcp, true)],
    },
    spec: {
      clusterName,
      bootstrap: configRef ? { configRef } : {},
      infrastructureRef,
      version: existing ? existing.spec.version : kcp.spec.version,
    },
  };
  if (existing?.metadata.uid) machine.metadata.uid = existing.metadata.uid;
  // The retry data of a replacement stays with it for its whole life (applies must not drop it).
  const remediationFor = existing
    ? existing.metadata.annotations?.[KCP_REMEDIATION_FOR_ANNOTATION]
    : input.remediationFor;
  if (remediationFor !== undefined) machine.metadata.annotations![KCP_REMEDIATION_FOR_ANNOTATION] = remediationFor;
  // KCP's pre-terminate hook, on new and existing Machines: the etcd member goes right before the InfraMachine does.
  machine.metadata.annotations![KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION] = '';
  const failureDomain = existing ? existing.spec.failureDomain : input.failureDomain;
  if (failureDomain) machine.spec.failureDomain = failureDomain;
  if (tmpl.deletion && Object.keys(tmpl.deletion).length > 0) machine.spec.deletion = { ...tmpl.deletion };
  if (tmpl.taints?.length) machine.spec.taints = structuredClone(tmpl.taints);
  if (tmpl.readinessGates?.length) machine.spec.readinessGates = structuredClone(tmpl.readinessGates);
  return machine;
}

/**
 * The desired KubeadmConfig: the KCP kubeadmConfigSpec with initConfiguration (first Machine) or joinConfiguration
 * (joining Machines, always with joinConfiguration.controlPlane so the config is recognisable as a join).
 */
export function computeDesiredKubeadmConfig(
  kcp: KubeadmControlPlane,
  clusterName: string,
  isJoin: boolean,
  name: string,
  existing?: KubeadmConfig,
): KubeadmConfig {
  const spec = structuredClone(kcp.spec.kubeadmConfigSpec ?? {}) as KubeadmConfigSpec;
  if (isJoin) {
    delete spec.initConfiguration;
    const join = (spec.joinConfiguration ?? {}) as Record<string, unknown>;
    if (join.controlPlane === undefined) join.controlPlane = {};
    spec.joinConfiguration = join;
  } else {
    delete spec.joinConfiguration;
  }
  const config: KubeadmConfig = {
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfig',
    metadata: {
      name: existing?.metadata.name ?? name,
      namespace: kcp.metadata.namespace,
      labels: controlPlaneMachineLabels(kcp, clusterName),
      annotations: controlPlaneMachineAnnotations(kcp),
    },
    spec,
  };
  // Until the Machine controller takes ownership, KCP owns the object (so it is garbage collected with the KCP).
  if (!hasMachineOwner(existing)) config.metadata.ownerReferences = [kcpOwnerReference(kcp, false)];
  if (existing?.metadata.uid) config.metadata.uid = existing.metadata.uid;
  return config;
}

/** Group/kind string as Go prints it: "Kind.group". */
export const groupKindString = (apiGroup: string, kind: string): string => (apiGroup ? `${kind}.${apiGroup}` : kind);

/**
 * The desired InfraMachine, cloned from the KCP's infrastructure template (given as read from the API):
 * template.spec.template.spec, template metadata plus control-plane labels, and the cloned-from annotations.
 */
export function computeDesiredInfraMachine(
  kcp: KubeadmControlPlane,
  clusterName: string,
  template: KubeObject,
  name: string,
  existing?: KubeObject,
): KubeObject {
  const ref = kcp.spec.machineTemplate.spec.infrastructureRef;
  const tmpl = (
    template.spec as
      | {
          template?: {
            metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
            spec?: unknown;
          };
        }
      | undefined
  )?.template;
  if (!tmpl)
    throw new DesiredStateError(
      `failed to compute desired InfraMachine: ${template.kind} ${template.metadata.name} has no spec.template`,
    );
  if (!template.kind.endsWith('Template'))
    throw new DesiredStateError(`failed to compute desired InfraMachine: ${template.kind} is not a template kind`);
  const infra: KubeObject = {
    apiVersion: template.apiVersion,
    kind: template.kind.slice(0, -'Template'.length),
    metadata: {
      name: existing?.metadata.name ?? name,
      namespace: kcp.metadata.namespace,
      labels: { ...(tmpl.metadata?.labels ?? {}), ...controlPlaneMachineLabels(kcp, clusterName) },
      annotations: {
        ...(tmpl.metadata?.annotations ?? {}),
        ...controlPlaneMachineAnnotations(kcp),
        [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: ref.name,
        [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: groupKindString(ref.apiGroup, ref.kind),
      },
    },
    spec: structuredClone(tmpl.spec ?? {}),
  };
  if (!hasMachineOwner(existing)) infra.metadata.ownerReferences = [kcpOwnerReference(kcp, false)];
  if (existing?.metadata.uid) infra.metadata.uid = existing.metadata.uid;
  return infra;
}
