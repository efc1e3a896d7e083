// KCP remediation of Machines marked unhealthy by MachineHealthCheck (upstream controlplane/kubeadm/internal/
// controllers/remediation.go), as pure decisions: which Machine, whether it is safe now, and what to report.
// One Machine at a time: the KCP remediation-in-progress annotation blocks further remediations until the
// replacement Machine has been created by the regular scale up.
import { formatTime } from '@capi/apimachinery';
import {
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  KCP_REMEDIATION_FOR_ANNOTATION,
  KCP_REMEDIATION_IN_PROGRESS_ANNOTATION,
  OWNER_REMEDIATED_CONDITION,
  isFalse,
  isTrue,
  type ConditionInput,
  type KubeadmControlPlane,
  type KubeadmControlPlaneStatus,
  type Machine,
  isMachineToBeRemediated,
  isMachineUnhealthy,
  ownerRemediatingCondition,
} from '@capi/api';
import { isUpdatingInPlace, type ControlPlaneMachine } from './decide';

// OwnerRemediated reasons KCP sets on its Machines (upstream v1beta2 KubeadmControlPlaneMachine...Reason).
export const MACHINE_CANNOT_BE_REMEDIATED_REASON = 'CannotBeRemediated';
export const MACHINE_REMEDIATION_DEFERRED_REASON = 'RemediationDeferred';
export const MACHINE_REMEDIATION_MACHINE_DELETING_REASON = 'MachineDeleting';
export const MACHINE_REMEDIATION_INTERNAL_ERROR_REASON = 'InternalError';
// KCP Remediating condition reasons.
export { REMEDIATING_REASON, NOT_REMEDIATING_REASON } from '@capi/api';

/** spec.remediation.minHealthyPeriodSeconds default (upstream DefaultMinHealthyPeriod, 1h). */
export const DEFAULT_MIN_HEALTHY_PERIOD_SECONDS = 3600;

/** Value of the remediation-in-progress (KCP) and remediation-for (replacement Machine) annotations. */
export interface RemediationData {
  /** The Machine remediated last. */
  machine: string;
  /** RFC 3339, UTC. */
  timestamp: string;
  /** Retries for the same failing Machine (a replacement that failed again within minHealthyPeriod). */
  retryCount: number;
}

export class RemediationDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemediationDataError';
  }
}

export function parseRemediationData(annotation: string, value: string): RemediationData {
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch (e) {
    throw new RemediationDataError(
      `invalid ${annotation} annotation ${JSON.stringify(value)}: ${(e as Error).message}`,
    );
  }
  const o = v as Partial<RemediationData> | null;
  if (
    !o ||
    typeof o !== 'object' ||
    typeof o.machine !== 'string' ||
    (o.timestamp !== undefined && typeof o.timestamp !== 'string') ||
    (o.retryCount !== undefined && !Number.isInteger(o.retryCount))
  ) {
    throw new RemediationDataError(
      `invalid ${annotation} annotation ${JSON.stringify(value)}: want {"machine":string,"timestamp":RFC 3339,"retryCount":int}`,
    );
  }
  if (o.timestamp && Number.isNaN(Date.parse(o.timestamp)))
    throw new RemediationDataError(
      `invalid ${annotation} annotation ${JSON.stringify(value)}: timestamp is not RFC 3339`,
    );
  return { machine: o.machine, timestamp: o.timestamp ?? '', retryCount: o.retryCount ?? 0 };
}

export const formatRemediationData = (d: RemediationData): string =>
  JSON.stringify({ machine: d.machine, timestamp: d.timestamp, retryCount: d.retryCount });

/** MHC found a problem (HealthCheckSucceeded=False). */
export const isUnhealthy = isMachineUnhealthy;
/** Unhealthy and the owner is asked to act (OwnerRemediated=False): KCP's job (upstream MachinesToBeRemediatedByKCP). */
export const isToBeRemediated = isMachineToBeRemediated;

/** Healthy again (and not deleting) but still asking for remediation (MHC's marker or KCP's): KCP removes it. */
export const needsOwnerRemediatedCleanup = (m: Machine): boolean =>
  !m.metadata.deletionTimestamp &&
  isTrue(m, HEALTH_CHECK_SUCCEEDED_CONDITION) &&
  isFalse(m, OWNER_REMEDIATED_CONDITION);

const created = (m: Machine): number => (m.metadata.creationTimestamp ? Date.parse(m.metadata.creationTimestamp) : 0);
const oldest = (ms: readonly Machine[]): Machine | undefined =>
  [...ms].sort((a, b) => created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];

/** The oldest Machine to remediate without a Node (not provisioned), else the oldest one. */
export function selectMachineToRemediate(toBeRemediated: readonly Machine[]): Machine | undefined {
  return oldest(toBeRemediated.filter((m) => !m.status?.nodeRef)) ?? oldest(toBeRemediated);
}

/**
 * Etcd quorum after removing `target` (upstream canSafelyRemoveEtcdMember). Etcd members are approximated by the
 * control-plane Machines with a Node; a member is healthy when its Node is Ready and MHC does not report the Machine
 * unhealthy. The remaining members must keep a majority healthy: with 3, both others healthy; with 5, 3 of 4.
 */
export function canSafelyRemoveEtcdMember(machines: readonly ControlPlaneMachine[], target: string): boolean {
  const remaining = machines.filter((m) => m.machine.status?.nodeRef && m.machine.metadata.name !== target);
  const healthy = remaining.filter(
    (m) => m.nodeHealthy === true && !isUnhealthy(m.machine) && !m.machine.metadata.deletionTimestamp,
  ).length;
  const quorum = Math.floor(remaining.length / 2) + 1;
  return healthy >= quorum;
}

export interface RemediationInput {
  kcp: KubeadmControlPlane;
  /** All control-plane Machines of the KCP (deleting ones included), with Node health. */
  machines: readonly ControlPlaneMachine[];
  now: Date;
}

/** OwnerRemediated=False with a reason, as KCP writes it on a Machine. */
export interface OwnerRemediatedInput {
  reason: string;
  message?: string;
}

export type RemediationAction =
  | { type: 'none' }
  /** Nothing to do for now (target already deleting, another remediation in progress); `why` for the log. */
  | { type: 'wait'; machine: string; why: string }
  /** Not safe or not allowed: report on the Machine and go on with the other KCP operations. */
  | { type: 'block'; machine: string; condition: OwnerRemediatedInput }
  /** Delete `machine`, set OwnerRemediated=False/MachineDeleting and the in-progress annotation to `data`. */
  | { type: 'remediate'; machine: string; data: RemediationData };

export interface RemediationDecision {
  /** Machines healthy again whose KCP-written OwnerRemediated must be removed. */
  cleanup: string[];
  /** The in-progress annotation is stale (a Machine was created after it): remove it. */
  clearStaleAnnotation: boolean;
  action: RemediationAction;
}

const seconds = (v: number | undefined, dflt: number) => (v === undefined ? dflt : v) * 1000;
const deferred = (message: string): OwnerRemediatedInput => ({ reason: MACHINE_REMEDIATION_DEFERRED_REASON, message });
const cannot = (message: string): OwnerRemediatedInput => ({ reason: MACHINE_CANNOT_BE_REMEDIATED_REASON, message });

/**
 * Retry limits (upstream checkRetryLimits): a replacement Machine that fails within minHealthyPeriod of its
 * predecessor's remediation is a retry of the same failure; retries wait retryPeriod and stop at maxRetry.
 */
export function checkRetryLimits(
  kcp: KubeadmControlPlane,
  target: Machine,
  now: Date,
): { data: RemediationData; blocked?: OwnerRemediatedInput } {
  const data: RemediationData = { machine: target.metadata.name ?? '', timestamp: formatTime(now), retryCount: 0 };
  const raw = target.metadata.annotations?.[KCP_REMEDIATION_FOR_ANNOTATION];
  if (raw === undefined) return { data };
  const last = parseRemediationData(KCP_REMEDIATION_FOR_ANNOTATION, raw);
  const spec = kcp.spec.remediation ?? {};
  const minHealthyPeriod = seconds(spec.minHealthyPeriodSeconds, DEFAULT_MIN_HEALTHY_PERIOD_SECONDS);
  const retryPeriod = seconds(spec.retryPeriodSeconds, 0);
  // Without a timestamp both periods count as expired.
  const lastTime = last.timestamp
    ? Date.parse(last.timestamp)
    : now.getTime() - 2 * Math.max(minHealthyPeriod, retryPeriod);
  if (lastTime + minHealthyPeriod <= now.getTime()) return { data }; // healthy long enough: a new failure
  data.retryCount = last.retryCount;
  if (lastTime + retryPeriod > now.getTime()) {
    return {
      data,
      blocked: deferred(
        `KCP can't remediate this Machine because the operation already failed in the latest ${spec.retryPeriodSeconds ?? 0}s (RetryPeriod)`,
      ),
    };
  }
  if (spec.maxRetry !== undefined && data.retryCount >= spec.maxRetry) {
    return {
      data,
      blocked: cannot(
        `KCP can't remediate this Machine because the operation already failed ${data.retryCount} times (MaxRetry)`,
      ),
    };
  }
  data.retryCount++;
  return { data };
}

/** Why remediation of `target` must wait or cannot happen now (upstream preflight order), undefined when safe. */
function remediationBlocker(input: RemediationInput, target: Machine): OwnerRemediatedInput | undefined {
  const { kcp, machines } = input;
  const name = target.metadata.name;
  const others = machines.filter((m) => m.machine.metadata.name !== name);
  const initialized = kcp.status?.initialization?.controlPlaneInitialized === true;
  if (initialized && machines.length <= 1)
    return cannot("KCP can't remediate if current replicas are less or equal to 1");
  if (
    initialized &&
    others.some(
      (m) => !m.machine.status?.nodeRef && !m.machine.metadata.deletionTimestamp && !isToBeRemediated(m.machine),
    )
  ) {
    return deferred('KCP waiting for control plane Machine provisioning to complete before triggering remediation');
  }
  if (others.some((m) => m.machine.metadata.deletionTimestamp))
    return deferred('KCP waiting for control plane Machine deletion to complete before triggering remediation');
  if (others.some((m) => isUpdatingInPlace(m.machine)))
    return deferred('KCP waiting for control plane Machine in-place update to complete before triggering remediation');
  if (initialized && !canSafelyRemoveEtcdMember(machines, name ?? '')) {
    return cannot("KCP can't remediate this Machine because this could result in etcd losing quorum");
  }
  return undefined;
}

export function decideRemediation(input: RemediationInput): RemediationDecision {
  const { kcp, machines, now } = input;
  const cleanup = machines
    .filter((m) => needsOwnerRemediatedCleanup(m.machine))
    .map((m) => m.machine.metadata.name ?? '');
  const decision: RemediationDecision = { cleanup, clearStaleAnnotation: false, action: { type: 'none' } };
  const target = selectMachineToRemediate(machines.map((m) => m.machine).filter(isToBeRemediated));
  if (!target) return decision;
  const name = target.metadata.name ?? '';
  if (target.metadata.deletionTimestamp)
    return { ...decision, action: { type: 'wait', machine: name, why: 'the Machine is being deleted' } };

  const inProgress = kcp.metadata.annotations?.[KCP_REMEDIATION_IN_PROGRESS_ANNOTATION];
  if (inProgress !== undefined) {
    let data: RemediationData;
    try {
      data = parseRemediationData(KCP_REMEDIATION_IN_PROGRESS_ANNOTATION, inProgress);
    } catch (e) {
      return {
        ...decision,
        action: {
          type: 'block',
          machine: name,
          condition: { reason: MACHINE_REMEDIATION_INTERNAL_ERROR_REASON, message: (e as Error).message },
        },
      };
    }
    // Stale when a replacement was created but the annotation could not be removed (e.g. a crash in between).
    const since = data.timestamp ? Date.parse(data.timestamp) : 0;
    if (!machines.some((m) => created(m.machine) > since)) {
      return {
        ...decision,
        action: { type: 'wait', machine: name, why: `another remediation (of Machine ${data.machine}) is in progress` },
      };
    }
    decision.clearStaleAnnotation = true;
  }

  let retry: ReturnType<typeof checkRetryLimits>;
  try {
    retry = checkRetryLimits(kcp, target, now);
  } catch (e) {
    return {
      ...decision,
      action: {
        type: 'block',
        machine: name,
        condition: { reason: MACHINE_REMEDIATION_INTERNAL_ERROR_REASON, message: (e as Error).message },
      },
    };
  }
  const blocked = retry.blocked ?? remediationBlocker(input, target);
  if (blocked) return { ...decision, action: { type: 'block', machine: name, condition: blocked } };
  return { ...decision, action: { type: 'remediate', machine: name, data: retry.data } };
}

/** KCP Remediating: True while Machines are to be remediated (their OwnerRemediated aggregated), else False. */
export function remediatingCondition(machines: readonly Machine[]): ConditionInput {
  return ownerRemediatingCondition(machines, 'KubeadmControlPlane');
}

/**
 * status.lastRemediation: the in-progress remediation, else the newest remediation-for on a Machine, else unchanged.
 * Unparseable annotations are ignored here (the remediation decision reports them).
 */
export function lastRemediation(
  kcp: KubeadmControlPlane,
  machines: readonly Machine[],
): KubeadmControlPlaneStatus['lastRemediation'] {
  const parse = (annotation: string, v: string | undefined): RemediationData | undefined => {
    if (v === undefined) return undefined;
    try {
      return parseRemediationData(annotation, v);
    } catch {
      return undefined;
    }
  };
  const toStatus = (d: RemediationData) => ({ machine: d.machine, time: d.timestamp, retryCount: d.retryCount });
  const inProgress = parse(
    KCP_REMEDIATION_IN_PROGRESS_ANNOTATION,
    kcp.metadata.annotations?.[KCP_REMEDIATION_IN_PROGRESS_ANNOTATION],
  );
  if (inProgress?.timestamp) return toStatus(inProgress);
  const all = machines
    .map((m) => parse(KCP_REMEDIATION_FOR_ANNOTATION, m.metadata.annotations?.[KCP_REMEDIATION_FOR_ANNOTATION]))
    .filter((d): d is RemediationData => !!d?.timestamp);
  const newestTime = Math.max(...all.map((d) => Date.parse(d.timestamp)));
  const newest = all.filter((d) => Date.parse(d.timestamp) === newestTime);
  if (newest.length === 0) return kcp.status?.lastRemediation;
  // Timestamps have second precision: of remediations started in the same second, the one already reported (set
  // while it was in progress, so the later one) stays.
  const current = kcp.status?.lastRemediation;
  return toStatus(newest.find((d) => d.machine === current?.machine && d.timestamp === current?.time) ?? newest[0]);
}
