// Is a control-plane Machine up-to-date with its KubeadmControlPlane? (upstream controlplane/kubeadm/internal
// UpToDate / matchesMachineSpec). The ClusterConfiguration is compared with the Machine's KubeadmConfig, not with an
// annotation on the Machine. The result carries current and desired Machine/KubeadmConfig/InfraMachine, which the
// in-place path sends to CanUpdateMachine and writes when triggering.
import {
  DELETE_MACHINE_ANNOTATION,
  REMEDIATE_MACHINE_ANNOTATION,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
  type KubeadmConfig,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { formatDiff } from '@capi/inplace';
import { isInitConfig, prepareKubeadmConfigSpecsForDiff } from './kubeadm-diff';
import {
  computeDesiredInfraMachine,
  computeDesiredKubeadmConfig,
  computeDesiredMachine,
  groupKindString,
} from './desired';

export interface NotUpToDateResult {
  /** Detailed reasons (with diffs) for logs. */
  logMessages: string[];
  /** Short reasons for the Machine's UpToDate condition. */
  conditionMessages: string[];
  /** False when only a new Machine can fix it (rollout.after, certificate expiry). */
  eligibleForInPlaceUpdate: boolean;
  currentMachine: Machine;
  desiredMachine: Machine;
  currentKubeadmConfig?: KubeadmConfig;
  desiredKubeadmConfig?: KubeadmConfig;
  currentInfraMachine?: KubeObject;
  desiredInfraMachine?: KubeObject;
}

export interface UpToDateResult {
  upToDate: boolean;
  /** Always set: messages are empty when up-to-date, the desired objects are still computed. */
  result: NotUpToDateResult;
}

export interface UpToDateInput {
  kcp: KubeadmControlPlane;
  clusterName: string;
  machine: Machine;
  kubeadmConfig?: KubeadmConfig;
  infraMachine?: KubeObject;
  /** The KCP's current infrastructure template (needed for the desired InfraMachine). */
  infraTemplate?: KubeObject;
  now: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Certificates expire within rollout.before.certificatesExpiryDays. */
export function shouldRolloutBefore(kcp: KubeadmControlPlane, machine: Machine, now: Date): boolean {
  const days = kcp.spec.rollout?.before?.certificatesExpiryDays;
  const expiry = machine.status?.certificatesExpiryDate;
  if (!days || !expiry) return false;
  return Date.parse(expiry) - days * DAY_MS <= now.getTime();
}

/** rollout.after has passed and the Machine was created before it. */
export function shouldRolloutAfter(kcp: KubeadmControlPlane, machine: Machine, now: Date): boolean {
  const after = kcp.spec.rollout?.after;
  if (!after) return false;
  const t = Date.parse(after);
  const created = machine.metadata.creationTimestamp ? Date.parse(machine.metadata.creationTimestamp) : Number.NaN;
  return t <= now.getTime() && !(created >= t);
}

/**
 * Compares the Machine's KubeadmConfig with the one KCP would create for a joining Machine (upstream
 * matchesKubeadmConfig): the first Machine's init configuration is first compared as a join configuration (KCP init
 * and join configurations are meant to be identical); if that differs, it is compared with the init configuration KCP
 * would create, so differences between the KCP's init and join configurations alone cause no rollout.
 */
function kubeadmConfigMismatch(
  kcp: KubeadmControlPlane,
  clusterName: string,
  config: KubeadmConfig,
): string | undefined {
  const name = config.metadata.name ?? '';
  const withJoin = computeDesiredKubeadmConfig(kcp, clusterName, true, name, config).spec;
  const join = prepareKubeadmConfigSpecsForDiff(withJoin, config.spec, true);
  const joinDiff = formatDiff(join.current, join.desired);
  if (!joinDiff) return undefined;
  if (!isInitConfig(config.spec)) return `Machine KubeadmConfig is outdated: diff: ${joinDiff}`;
  const withInit = computeDesiredKubeadmConfig(kcp, clusterName, false, name, config).spec;
  const init = prepareKubeadmConfigSpecsForDiff(withInit, config.spec, false);
  const initDiff = formatDiff(init.current, init.desired);
  return initDiff ? `Machine KubeadmConfig is outdated: diff: ${initDiff}` : undefined;
}

function infraMismatch(kcp: KubeadmControlPlane, infra: KubeObject): string | undefined {
  const annotations = infra.metadata.annotations ?? {};
  const name = annotations[TEMPLATE_CLONED_FROM_NAME_ANNOTATION];
  const groupKind = annotations[TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION];
  // Adopted / very old InfraMachines have no cloned-from annotations: not a reason to roll out.
  if (name === undefined || groupKind === undefined) return undefined;
  const ref = kcp.spec.machineTemplate.spec.infrastructureRef;
  const wantGroupKind = groupKindString(ref.apiGroup, ref.kind);
  if (name !== ref.name || groupKind !== wantGroupKind) {
    return `Infrastructure template on KCP rotated from ${groupKind} ${name} to ${wantGroupKind} ${ref.name}`;
  }
  return undefined;
}

/**
 * Compares version, KubeadmConfig (ClusterConfiguration, init/join configuration and the rest of the spec) and the
 * infrastructure template the InfraMachine was cloned from. Labels/annotations are not compared (they are
 * propagated in place). A missing KubeadmConfig / InfraMachine is not a mismatch (reads may be failing).
 */
export function upToDate(input: UpToDateInput): UpToDateResult {
  const { kcp, clusterName, machine, kubeadmConfig, infraMachine, infraTemplate, now } = input;
  const logMessages: string[] = [];
  const conditionMessages: string[] = [];
  // Machines the user or MHC asked to delete / remediate are replaced, never updated in place.
  const annotations = machine.metadata.annotations ?? {};
  let eligibleForInPlaceUpdate =
    !(DELETE_MACHINE_ANNOTATION in annotations) && !(REMEDIATE_MACHINE_ANNOTATION in annotations);

  if (shouldRolloutBefore(kcp, machine, now)) {
    logMessages.push('certificates will expire soon, rolloutBefore expired');
    conditionMessages.push('Certificates will expire soon');
    eligibleForInPlaceUpdate = false;
  }
  if (shouldRolloutAfter(kcp, machine, now)) {
    logMessages.push('rolloutAfter expired');
    conditionMessages.push('KubeadmControlPlane spec.rolloutAfter expired');
    eligibleForInPlaceUpdate = false;
  }
  if (machine.spec.version !== kcp.spec.version) {
    logMessages.push(
      `Machine version "${machine.spec.version ?? ''}" is not equal to KCP version "${kcp.spec.version}"`,
    );
    conditionMessages.push(`Version ${machine.spec.version ?? ''}, ${kcp.spec.version} required`);
  }
  if (machine.spec.bootstrap.configRef && kubeadmConfig) {
    const reason = kubeadmConfigMismatch(kcp, clusterName, kubeadmConfig);
    if (reason) {
      logMessages.push(reason);
      conditionMessages.push('KubeadmConfig is not up-to-date');
    }
  }
  if (infraMachine) {
    const reason = infraMismatch(kcp, infraMachine);
    if (reason) {
      logMessages.push(reason);
      conditionMessages.push(`${machine.spec.infrastructureRef.kind} is not up-to-date`);
    }
  }

  const desiredMachine = computeDesiredMachine({ kcp, clusterName, existing: machine });
  desiredMachine.spec.version = kcp.spec.version;
  const name = machine.metadata.name ?? '';
  const result: NotUpToDateResult = {
    logMessages,
    conditionMessages,
    eligibleForInPlaceUpdate: eligibleForInPlaceUpdate && logMessages.length > 0,
    currentMachine: machine,
    desiredMachine,
    currentKubeadmConfig: kubeadmConfig,
    // After an in-place update every Machine is a joined Machine (upstream inplace_trigger.go removeInitConfiguration).
    desiredKubeadmConfig: kubeadmConfig
      ? computeDesiredKubeadmConfig(kcp, clusterName, true, kubeadmConfig.metadata.name ?? name, kubeadmConfig)
      : undefined,
    currentInfraMachine: infraMachine,
    desiredInfraMachine:
      infraMachine && infraTemplate
        ? computeDesiredInfraMachine(kcp, clusterName, infraTemplate, infraMachine.metadata.name ?? name, infraMachine)
        : undefined,
  };
  return { upToDate: logMessages.length === 0, result };
}
