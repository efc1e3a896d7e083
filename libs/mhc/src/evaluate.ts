// Health of one MachineHealthCheck target as a pure function (upstream machinehealthcheck_targets.go needsRemediation).
// No in-place special case, as upstream: a Machine being updated is checked like any other (Node conditions and the
// node startup timeout included); a stuck update is caught by configuring e.g. Updating=True as a Machine condition.
import {
  INFRASTRUCTURE_READY_CONDITION,
  MACHINE_CONTROL_PLANE_LABEL,
  NODE_DELETED_REASON,
  NODE_STARTUP_TIMEOUT_REASON,
  REMEDIATE_MACHINE_ANNOTATION,
  UNHEALTHY_MACHINE_REASON,
  UNHEALTHY_NODE_REASON,
  getCondition,
  isTrue,
  type Condition,
  type Machine,
  type MachineHealthCheckSpec,
} from '@capi/api';

/** Default of spec.checks.nodeStartupTimeoutSeconds (upstream DefaultNodeStartupTimeoutSeconds). */
export const DEFAULT_NODE_STARTUP_TIMEOUT_SECONDS = 600;
export const CLUSTER_CONTROL_PLANE_INITIALIZED_CONDITION = 'ControlPlaneInitialized';
export const CLUSTER_INFRASTRUCTURE_READY_CONDITION = 'InfrastructureReady';
export const HAS_REMEDIATE_ANNOTATION_REASON = 'HasRemediateAnnotation';

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** The parts of a core/v1 Node the checks read. */
export interface NodeLike {
  metadata: { name?: string };
  status?: { conditions?: NodeCondition[] };
}

/** The parts of a Cluster the checks read. */
export interface ClusterLike {
  metadata: { name?: string };
  status?: {
    conditions?: Condition[];
    initialization?: { infrastructureProvisioned?: boolean; controlPlaneInitialized?: boolean };
  };
}

// v1beta2 Clusters report both conditions and status.initialization; this project's embedded Cluster logic only
// writes the initialization flags, so either counts.
export const isControlPlaneInitialized = (c: ClusterLike): boolean =>
  isTrue(c.status?.conditions, CLUSTER_CONTROL_PLANE_INITIALIZED_CONDITION) ||
  c.status?.initialization?.controlPlaneInitialized === true;
export const isInfrastructureReady = (c: ClusterLike): boolean =>
  isTrue(c.status?.conditions, CLUSTER_INFRASTRUCTURE_READY_CONDITION) ||
  c.status?.initialization?.infrastructureProvisioned === true;

export type MachineChecks = NonNullable<MachineHealthCheckSpec['checks']>;

export interface TargetInput {
  machine: Pick<Machine, 'metadata' | 'status'>;
  /** The Node of status.nodeRef; undefined when there is no nodeRef (or the workload cluster was not read). */
  node?: NodeLike;
  /** status.nodeRef is set but the Node does not exist in the workload cluster. */
  nodeMissing?: boolean;
  cluster: ClusterLike;
  checks?: MachineChecks;
  now: Date;
}

export type TargetHealth =
  /** Passes every check: HealthCheckSucceeded=True. */
  | { state: 'Healthy' }
  /** Fails a check: HealthCheckSucceeded=False with reason/message, remediation requested. */
  | { state: 'Unhealthy'; reason: string; message: string }
  /** Neither healthy nor unhealthy (yet): a condition runs towards its timeout, no Node yet, cluster not ready... */
  | { state: 'Pending'; detail: string; nextCheckMs?: number };

/** Go's time.Duration.String() for whole seconds ("10s", "5m0s", "1h30m0s"). */
export function formatSeconds(total: number): string {
  const s = Math.max(0, Math.floor(total));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${m}m${sec}s`;
  if (m > 0) return `${m}m${sec}s`;
  return `${sec}s`;
}

const SECOND = 1000;
const parseTime = (t: string | undefined): number | undefined => {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
};

interface CheckResult {
  messages: string[];
  /** ms until a condition running towards its timeout expires (+1 s, as upstream); undefined when none. */
  nextCheckMs?: number;
  reason?: string;
}

const minDefined = (...values: (number | undefined)[]): number | undefined => {
  const v = values.filter((x): x is number => x !== undefined && x > 0);
  return v.length ? Math.min(...v) : undefined;
};

/** A condition that has had `status` since `since`: unhealthy once strictly past the timeout, else time to go. */
function timeoutCheck(
  since: number | undefined,
  timeoutSeconds: number,
  now: number,
): { expired: boolean; nextCheckMs?: number } {
  // A condition without a parsable lastTransitionTime counts from now: it cannot have been bad for long.
  const start = since ?? now;
  const deadline = start + timeoutSeconds * SECOND;
  if (deadline < now) return { expired: true };
  return { expired: false, nextCheckMs: deadline - now + SECOND };
}

function machineChecks(input: TargetInput): CheckResult {
  const now = input.now.getTime();
  const messages: string[] = [];
  let next: number | undefined;
  for (const c of input.checks?.unhealthyMachineConditions ?? []) {
    const mc = getCondition(input.machine.status?.conditions, c.type);
    if (!mc || mc.status !== c.status) continue;
    const r = timeoutCheck(parseTime(mc.lastTransitionTime), c.timeoutSeconds, now);
    if (r.expired) {
      messages.push(
        `Condition ${c.type} on Machine is reporting status ${c.status} with reason ${mc.reason} for more than ${formatSeconds(c.timeoutSeconds)}`,
      );
    } else next = minDefined(next, r.nextCheckMs);
  }
  return messages.length ? { messages, reason: UNHEALTHY_MACHINE_REASON } : { messages, nextCheckMs: next };
}

/** Node startup reference: the latest of Machine creation, cluster initialized/infra ready and Machine infra ready. */
function nodeStartupReference(input: TargetInput): number {
  let ref = parseTime(input.machine.metadata.creationTimestamp) ?? input.now.getTime();
  const consider = (holder: readonly Condition[] | undefined, type: string) => {
    const c = getCondition(holder, type);
    const t = c?.status === 'True' ? parseTime(c.lastTransitionTime) : undefined;
    if (t !== undefined && t > ref) ref = t;
  };
  consider(input.cluster.status?.conditions, CLUSTER_CONTROL_PLANE_INITIALIZED_CONDITION);
  consider(input.cluster.status?.conditions, CLUSTER_INFRASTRUCTURE_READY_CONDITION);
  consider(input.machine.status?.conditions, INFRASTRUCTURE_READY_CONDITION);
  return ref;
}

function nodeChecks(input: TargetInput): CheckResult {
  const now = input.now.getTime();
  if (input.nodeMissing) {
    return {
      messages: [`Node ${input.machine.status?.nodeRef?.name ?? ''} has been deleted`],
      reason: NODE_DELETED_REASON,
    };
  }
  if (!input.node) {
    const timeout = input.checks?.nodeStartupTimeoutSeconds ?? DEFAULT_NODE_STARTUP_TIMEOUT_SECONDS;
    if (timeout === 0) return { messages: [] }; // startup timeout disabled
    const r = timeoutCheck(nodeStartupReference(input), timeout, now);
    if (r.expired)
      return {
        messages: [`Node failed to report startup in ${formatSeconds(timeout)}`],
        reason: NODE_STARTUP_TIMEOUT_REASON,
      };
    return { messages: [], nextCheckMs: r.nextCheckMs };
  }
  const messages: string[] = [];
  let next: number | undefined;
  for (const c of input.checks?.unhealthyNodeConditions ?? []) {
    const nc = input.node.status?.conditions?.find((x) => x.type === c.type);
    if (!nc || nc.status !== c.status) continue;
    const r = timeoutCheck(parseTime(nc.lastTransitionTime), c.timeoutSeconds, now);
    if (r.expired) {
      messages.push(
        `Condition ${c.type} on Node is reporting status ${c.status} with reason ${nc.reason ?? ''} for more than ${formatSeconds(c.timeoutSeconds)}`,
      );
    } else next = minDefined(next, r.nextCheckMs);
  }
  return messages.length ? { messages, reason: UNHEALTHY_NODE_REASON } : { messages, nextCheckMs: next };
}

/** Upstream's condition message: every failed check as a bullet. */
export function healthCheckFailedMessage(messages: readonly string[]): string {
  return `Health check failed:\n${messages.map((m) => `  * ${m}`).join('\n')}`;
}

/** Decides the health of one target at `now`. */
export function evaluateTarget(input: TargetInput): TargetHealth {
  const { machine, cluster } = input;
  if (REMEDIATE_MACHINE_ANNOTATION in (machine.metadata.annotations ?? {})) {
    return {
      state: 'Unhealthy',
      reason: HAS_REMEDIATE_ANNOTATION_REASON,
      message: `Health check failed: marked for remediation via ${REMEDIATE_MACHINE_ANNOTATION} annotation`,
    };
  }
  // Don't penalize Machines before the control plane is initialized (except control plane Machines themselves,
  // so the first one can be remediated) or before the cluster infrastructure is ready.
  const isControlPlane = MACHINE_CONTROL_PLANE_LABEL in (machine.metadata.labels ?? {});
  if (!isControlPlaneInitialized(cluster) && !isControlPlane) {
    return { state: 'Pending', detail: 'control plane not yet initialized' };
  }
  if (!isInfrastructureReady(cluster)) {
    return { state: 'Pending', detail: 'cluster infrastructure not yet ready' };
  }

  const m = machineChecks(input);
  const n = nodeChecks(input);
  if (m.messages.length > 0)
    return { state: 'Unhealthy', reason: m.reason!, message: healthCheckFailedMessage([...m.messages, ...n.messages]) };
  if (n.messages.length > 0)
    return { state: 'Unhealthy', reason: n.reason!, message: healthCheckFailedMessage(n.messages) };

  const next = minDefined(m.nextCheckMs, n.nextCheckMs);
  if (next !== undefined) return { state: 'Pending', detail: 'a check may fail soon', nextCheckMs: next };
  // Healthy only with a Node and not deleting (upstream); otherwise nothing to say yet.
  if (!input.node) return { state: 'Pending', detail: 'no Node yet (node startup timeout disabled)' };
  if (machine.metadata.deletionTimestamp) return { state: 'Pending', detail: 'Machine is deleting' };
  return { state: 'Healthy' };
}
