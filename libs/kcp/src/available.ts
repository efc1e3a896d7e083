// The KubeadmControlPlane Available condition (upstream controlplane/kubeadm/internal/controllers/status.go
// setAvailableCondition, v1beta2 reasons and messages, and compareMachinesAndMembers of workload_cluster_conditions.go
// for whether the etcd members match the Machines). Pure: the health conditions just computed for the Machines, the
// etcd members and Nodes read from the workload cluster come in as arguments.
import {
  AVAILABLE_CONDITION,
  AVAILABLE_REASON,
  NOT_AVAILABLE_REASON,
  setCondition,
  type Condition,
  type ConditionInput,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import {
  MACHINE_API_SERVER_POD_HEALTHY_CONDITION,
  MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION,
  MACHINE_ETCD_MEMBER_HEALTHY_CONDITION,
  MACHINE_ETCD_POD_HEALTHY_CONDITION,
  MACHINE_SCHEDULER_POD_HEALTHY_CONDITION,
} from './constants';
import type { EtcdMember, WorkloadNode } from './workload-cluster';

export const AVAILABLE_INSPECTION_FAILED_REASON = 'InspectionFailed';
/** Upstream KubeadmControlPlaneInitializedCondition (its lastTransitionTime delays "Failed to get etcd members"). */
export const KCP_INITIALIZED_CONDITION = 'Initialized';

/** A new Node gets two minutes to show up as an etcd member before the mismatch counts. */
const NEW_NODE_GRACE_MS = 2 * 60_000;
/** A just-initialized control plane gets two minutes before not reading etcd members counts. */
const JUST_INITIALIZED_GRACE_MS = 2 * 60_000;
/** While Available is True, a component issue surfaces in its message only once it lasted this long (no flakes). */
const SURFACE_AFTER_MS = 10_000;

const K8S_COMPONENTS = [
  MACHINE_API_SERVER_POD_HEALTHY_CONDITION,
  MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION,
  MACHINE_SCHEDULER_POD_HEALTHY_CONDITION,
];
// With managed etcd the API server talks to its local member only: a Machine's control plane is healthy if all is.
const K8S_COMPONENTS_MANAGED_ETCD = [
  ...K8S_COMPONENTS,
  MACHINE_ETCD_MEMBER_HEALTHY_CONDITION,
  MACHINE_ETCD_POD_HEALTHY_CONDITION,
];

/**
 * Upstream compareMachinesAndMembers (the Available part): a Machine whose Node exists for more than two minutes
 * without an etcd member, or a member without a Machine while no Machine is provisioning, is a mismatch. Members
 * that could not be read count as a mismatch once a Machine has a Node.
 */
export function etcdMembersMatchMachines(
  machines: readonly Machine[],
  nodes: readonly WorkloadNode[] | undefined,
  members: readonly EtcdMember[] | undefined,
  now: Date,
): boolean {
  if (!members) return !machines.some((m) => m.status?.nodeRef);
  for (const m of machines) {
    const nodeName = m.status?.nodeRef?.name;
    if (!nodeName || members.some((x) => x.name === nodeName) || m.metadata.deletionTimestamp) continue;
    const node = nodes?.find((n) => n.name === nodeName);
    const created = node?.creationTimestamp ? Date.parse(node.creationTimestamp) : Number.NaN;
    if (!Number.isNaN(created) && now.getTime() - created > NEW_NODE_GRACE_MS) return false;
  }
  const provisioning = machines.some((m) => !m.status?.nodeRef);
  for (const member of members) {
    if (!machines.some((m) => m.status?.nodeRef?.name === member.name) && !provisioning) return false;
  }
  return true;
}

export interface AvailableInput {
  kcp: KubeadmControlPlane;
  /** status.initialization.controlPlaneInitialized as this reconcile computes it. */
  initialized: boolean;
  etcdManaged: boolean;
  /** The etcd members; undefined when they could not be read. */
  etcdMembers: readonly EtcdMember[] | undefined;
  etcdMembersAndMachinesAreMatching: boolean;
  /** The Machines with the health conditions this reconcile computed for them (see withHealth). */
  machines: readonly Machine[];
  /** Upstream requires the CertificatesAvailable condition True. */
  certificatesAvailable: boolean;
  now: Date;
}

const conditionOf = (m: Machine, type: string): Condition | undefined =>
  m.status?.conditions?.find((c) => c.type === type);
const isTrue = (m: Machine, type: string) => conditionOf(m, type)?.status === 'True';

/** An issue is reported while Available is True only when one of the conditions is not True for more than 10 s. */
function shouldSurfaceWhenAvailableTrue(m: Machine, types: string[], now: Date): boolean {
  const since = types
    .map((t) => conditionOf(m, t))
    .filter((c): c is Condition => !!c && c.status !== 'True')
    .map((c) => Date.parse(c.lastTransitionTime));
  if (since.length === 0) return false;
  return now.getTime() - Math.min(...since) > SURFACE_AFTER_MS;
}

/** The Machine with `health` set on it (a condition keeps its lastTransitionTime unless its status changes). */
export function withHealth(m: Machine, health: readonly ConditionInput[], now: Date): Machine {
  let conditions = m.status?.conditions;
  for (const h of health) conditions = setCondition(conditions, h, { now: () => now.getTime() });
  return { ...m, status: { ...(m.status ?? {}), conditions } } as Machine;
}

const notAvailable = (message: string): ConditionInput => ({
  type: AVAILABLE_CONDITION,
  status: 'False',
  reason: NOT_AVAILABLE_REASON,
  message,
});

export function availableCondition(input: AvailableInput): ConditionInput {
  const { kcp, etcdManaged, etcdMembers, machines, now } = input;
  if (!input.initialized) return notAvailable('Control plane not yet initialized');

  if (etcdManaged) {
    if (!etcdMembers) {
      const init = kcp.status?.conditions?.find((c) => c.type === KCP_INITIALIZED_CONDITION);
      if (init?.status === 'True' && now.getTime() - Date.parse(init.lastTransitionTime) < JUST_INITIALIZED_GRACE_MS)
        return notAvailable('Waiting for etcd to report the list of members');
      return {
        type: AVAILABLE_CONDITION,
        status: 'Unknown',
        reason: AVAILABLE_INSPECTION_FAILED_REASON,
        message: 'Failed to get etcd members',
      };
    }
    if (!input.etcdMembersAndMachinesAreMatching)
      return notAvailable('The list of etcd members does not match the list of Machines and Nodes');
  }

  // The Kubernetes control plane: Machines without a providerID yet are still provisioning and do not count.
  const components = etcdManaged ? K8S_COMPONENTS_MANAGED_ETCD : K8S_COMPONENTS;
  let k8sHealthy = 0;
  let k8sNotHealthy = 0;
  let k8sNotReportedYet = 0;
  for (const m of machines) {
    if (!m.spec.providerID) continue;
    if (components.every((t) => isTrue(m, t))) k8sHealthy++;
    else if (shouldSurfaceWhenAvailableTrue(m, components, now)) k8sNotHealthy++;
    else k8sNotReportedYet++;
  }

  // Etcd: the members are the source of truth (they may not match the Machines while one is provisioning).
  let voting = 0;
  let learners = 0;
  let etcdHealthy = 0;
  let etcdNotHealthy = 0;
  let etcdNotReportedYet = 0;
  const members = etcdManaged ? (etcdMembers ?? []) : [];
  if (etcdManaged) {
    let provisioning = machines.filter((m) => !m.status?.nodeRef);
    for (const member of members) {
      // A learner, or a member without a name yet (about to join), does not count for quorum.
      if (member.isLearner || member.name === '') learners++;
      else voting++;
      // Without a name there is no Machine to match: a transient state taken as healthy.
      if (member.name === '') {
        etcdHealthy++;
        continue;
      }
      let machine = machines.find((m) => m.status?.nodeRef?.name === member.name);
      if (!machine) {
        // KCP creates one Machine at a time: a single provisioning Machine is the one hosting this member.
        if (provisioning.length !== 1) {
          etcdNotHealthy++;
          continue;
        }
        machine = provisioning[0];
        provisioning = [];
      }
      if (isTrue(machine, MACHINE_ETCD_MEMBER_HEALTHY_CONDITION)) etcdHealthy++;
      else if (shouldSurfaceWhenAvailableTrue(machine, [MACHINE_ETCD_MEMBER_HEALTHY_CONDITION], now)) etcdNotHealthy++;
      else etcdNotReportedYet++;
    }
  }
  const quorum = Math.floor(voting / 2) + 1;
  const learnersMsg = learners > 0 ? ` ${learners} learner etcd member,` : '';
  const etcdMessage = (healthy: number) =>
    healthy === 1
      ? `* 1 of ${members.length} etcd members is healthy,${learnersMsg} at least ${quorum} healthy member required for etcd quorum`
      : `* ${healthy} of ${members.length} etcd members are healthy,${learnersMsg} at least ${quorum} healthy member required for etcd quorum`;

  const deleting = !!kcp.metadata.deletionTimestamp;
  if (!deleting && (!etcdManaged || etcdHealthy >= quorum) && k8sHealthy >= 1 && input.certificatesAvailable) {
    // Issues not yet reported (under 10 s) count as healthy in these messages.
    const messages: string[] = [];
    if (etcdManaged && etcdNotHealthy > 0) messages.push(etcdMessage(etcdHealthy + etcdNotReportedYet));
    if (k8sNotHealthy > 0) {
      const n = k8sHealthy + k8sNotReportedYet;
      messages.push(
        n === 1
          ? `* 1 of ${machines.length} Machines has healthy control plane components, at least 1 required`
          : `* ${n} of ${machines.length} Machines have healthy control plane components, at least 1 required`,
      );
    }
    return {
      type: AVAILABLE_CONDITION,
      status: 'True',
      reason: AVAILABLE_REASON,
      ...(messages.length ? { message: messages.join('\n') } : {}),
    };
  }

  const messages: string[] = [];
  if (deleting) messages.push('* Control plane metadata.deletionTimestamp is set');
  if (!input.certificatesAvailable) messages.push('* Control plane certificates are not available');
  if (etcdManaged && etcdHealthy < quorum) {
    messages.push(
      etcdHealthy === 0
        ? `* There are no healthy etcd member,${learnersMsg} at least ${quorum} healthy member required for etcd quorum`
        : etcdMessage(etcdHealthy),
    );
  }
  if (k8sHealthy < 1)
    messages.push('* There are no Machines with healthy control plane components, at least 1 required');
  return notAvailable(messages.join('\n'));
}
