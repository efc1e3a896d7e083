// Control-plane component and etcd health of a KCP's Machines, from what the workload cluster reports (upstream
// controlplane/kubeadm/pkg/workload_cluster_conditions.go UpdateStaticPodConditions / UpdateEtcdConditions, v1beta2
// conditions). Pure: the reconciler reads Nodes, static Pods, etcd members and alarms and passes them in.
import {
  getCondition,
  type ConditionInput,
  type KubeadmConfig,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { appendTo, listToString } from '@capi/apimachinery';
import { ALARM_TYPE_NAME, AlarmType, memberNames } from '@capi/etcd';
import {
  CONTROL_PLANE_COMPONENTS_HEALTHY_CONDITION,
  ETCD_CLUSTER_HEALTHY_CONDITION,
  MACHINE_API_SERVER_POD_HEALTHY_CONDITION,
  MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION,
  MACHINE_ETCD_MEMBER_HEALTHY_CONDITION,
  MACHINE_ETCD_POD_HEALTHY_CONDITION,
  MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION,
  MACHINE_SCHEDULER_POD_HEALTHY_CONDITION,
} from './constants';
import { nodeKubeadmLabelsAndTaintsCondition } from './node-kubeadm-condition';
import type { StaticPod, WorkloadNode } from './workload-cluster';
import type { EtcdMembersAndAlarms } from './workload-etcd';

/** A read that may have failed: the value, or why it could not be read. */
export type Observed<T> = { value: T } | { error: string };

export interface ControlPlaneHealthInput {
  machines: readonly Machine[];
  /** All Nodes of the workload cluster. */
  nodes: Observed<WorkloadNode[]>;
  /** kube-system static Pods by name (`<component>-<node>`). */
  pods: Observed<ReadonlyMap<string, StaticPod>>;
  /**
   * The etcd members, leader and alarms read through a member of the Machines' Nodes, or why not; undefined when no
   * Node was there to ask.
   */
  etcd?: EtcdMembersAndAlarms;
  etcdManaged: boolean;
  /** Per Machine name: its KubeadmConfig, when read (decides whether the Node must carry kubeadm's taint). */
  kubeadmConfigs?: ReadonlyMap<string, KubeadmConfig>;
}

export interface ControlPlaneHealth {
  /** Per Machine name: the health conditions KCP sets on it. */
  machines: Map<string, ConditionInput[]>;
  /** ControlPlaneComponentsHealthy and (managed etcd) EtcdClusterHealthy. */
  kcp: ConditionInput[];
}

const COMPONENTS: [string, string][] = [
  ['kube-apiserver', MACHINE_API_SERVER_POD_HEALTHY_CONDITION],
  ['kube-controller-manager', MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION],
  ['kube-scheduler', MACHINE_SCHEDULER_POD_HEALTHY_CONDITION],
];

/** Etcd runs on the control-plane Machines unless the KCP points at an external etcd. */
export const isEtcdManaged = (kcp: KubeadmControlPlane): boolean => {
  const etcd = (kcp.spec.kubeadmConfigSpec?.clusterConfiguration as { etcd?: { external?: unknown } } | undefined)
    ?.etcd;
  return etcd?.external === undefined;
};

/** The conditions preflight requires to be True on every Machine (upstream allMachineHealthConditions). */
export function requiredHealthConditions(etcdManaged: boolean): string[] {
  const pods = podConditionTypes(etcdManaged);
  return etcdManaged ? [...pods, MACHINE_ETCD_MEMBER_HEALTHY_CONDITION] : pods;
}

const podConditionTypes = (etcdManaged: boolean): string[] => [
  ...COMPONENTS.map(([, c]) => c),
  ...(etcdManaged ? [MACHINE_ETCD_POD_HEALTHY_CONDITION] : []),
];
const podComponents = (etcdManaged: boolean): [string, string][] =>
  etcdManaged ? [...COMPONENTS, ['etcd', MACHINE_ETCD_POD_HEALTHY_CONDITION]] : COMPONENTS;

export const staticPodName = (component: string, nodeName: string): string => `${component}-${nodeName}`;

const unknown = (type: string, message: string): ConditionInput => ({
  type,
  status: 'Unknown',
  reason: 'InspectionFailed',
  message,
});

function waitingForNode(m: Machine): string {
  return m.spec.providerID
    ? `Waiting for a Node with spec.providerID ${m.spec.providerID} to exist`
    : `Waiting for ${m.spec.infrastructureRef.kind} to report spec.providerID`;
}

const CONTAINER_FAILURE_REASONS = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'InvalidImageName',
]);

/** The condition of one static Pod (upstream updateStaticPodCondition). */
export function staticPodCondition(type: string, pod: StaticPod | undefined): ConditionInput {
  if (!pod) return { type, status: 'False', reason: 'DoesNotExist', message: 'Pod does not exist' };
  const cond = (t: string) => pod.conditions.find((c) => c.type === t)?.status ?? 'Unknown';
  const failing = pod.containers.filter((c) => c.waitingReason && CONTAINER_FAILURE_REASONS.has(c.waitingReason));
  switch (pod.phase) {
    case 'Pending':
      if (cond('PodScheduled') !== 'True')
        return { type, status: 'False', reason: 'Provisioning', message: 'Waiting to be scheduled' };
      if (cond('Initialized') !== 'True')
        return { type, status: 'False', reason: 'Provisioning', message: 'Running init containers' };
      if (failing.length > 0)
        return {
          type,
          status: 'False',
          reason: 'Failed',
          message: failing.map((c) => c.waitingMessage ?? c.waitingReason).join(', '),
        };
      return { type, status: 'False', reason: 'Provisioning' };
    case 'Running': {
      if (cond('Ready') === 'True') return { type, status: 'True', reason: 'Running' };
      if (failing.length > 0)
        return {
          type,
          status: 'False',
          reason: 'Failed',
          message: failing.map((c) => c.waitingMessage ?? c.waitingReason).join(', '),
        };
      const waiting = pod.containers.map((c) => c.waitingMessage ?? c.waitingReason).filter((m): m is string => !!m);
      return {
        type,
        status: 'False',
        reason: 'Provisioning',
        message: waiting.length > 0 ? waiting.join(', ') : 'Waiting to be ready',
      };
    }
    case 'Succeeded':
    case 'Failed':
      return { type, status: 'False', reason: 'Failed', message: 'All the containers have been terminated' };
    default:
      return { type, status: 'Unknown', reason: 'InspectionFailed', message: 'Pod is reporting Unknown status' };
  }
}

/**
 * Per Machine the static Pod conditions and NodeKubeadmLabelsAndTaintsSet (upstream UpdateStaticPodConditions). A
 * Machine's Node counts whether or not it carries the control-plane label (that is what the Node condition reports).
 */
function podConditions(
  input: ControlPlaneHealthInput,
  nodes: WorkloadNode[],
  pods: Observed<ReadonlyMap<string, StaticPod>>,
): { machines: Map<string, ConditionInput[]>; nodeConditions: Map<string, ConditionInput>; kcpErrors: string[] } {
  const types = podConditionTypes(input.etcdManaged);
  const out = new Map<string, ConditionInput[]>();
  const nodeConditions = new Map<string, ConditionInput>();
  const nodeType = MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION;
  const cpNodes = nodes.filter((n) => n.controlPlane);
  for (const m of input.machines) {
    const name = m.metadata.name ?? '';
    const nodeName = m.status?.nodeRef?.name;
    const node = nodeName ? nodes.find((n) => n.name === nodeName) : undefined;
    const kubeadmConfig = input.kubeadmConfigs?.get(name);
    const all = (message: string) => {
      nodeConditions.set(name, unknown(nodeType, message));
      out.set(
        name,
        types.map((type) => unknown(type, message)),
      );
    };
    if (m.metadata.deletionTimestamp) {
      nodeConditions.set(
        name,
        node
          ? nodeKubeadmLabelsAndTaintsCondition(m, node, kubeadmConfig)
          : { type: nodeType, status: 'False', reason: 'Deleting', message: 'Machine is deleting' },
      );
      out.set(
        name,
        types.map((type) => ({ type, status: 'False', reason: 'Deleting', message: 'Machine is deleting' })),
      );
    } else if (!nodeName) all(waitingForNode(m));
    else if (!node) all(`Node ${nodeName} does not exist`);
    else if (node.unreachable) all(`Node ${node.name} is unreachable`);
    else {
      nodeConditions.set(name, nodeKubeadmLabelsAndTaintsCondition(m, node, kubeadmConfig));
      if (node.readyStatus === 'Unknown')
        out.set(
          name,
          types.map((type) => unknown(type, 'Node Ready condition is Unknown, Pod data might be stale')),
        );
      else if ('error' in pods)
        out.set(
          name,
          types.map((type) => unknown(type, 'Please check controller logs for errors')),
        );
      else
        out.set(
          name,
          podComponents(input.etcdManaged).map(([component, type]) =>
            staticPodCondition(type, pods.value.get(staticPodName(component, node.name))),
          ),
        );
    }
  }
  return { machines: out, nodeConditions, kcpErrors: nodesWithoutMachine(input.machines, cpNodes) };
}

/** Control-plane Nodes no Machine points at; not an error while a Machine still waits for its Node. */
function nodesWithoutMachine(machines: readonly Machine[], cpNodes: WorkloadNode[]): string[] {
  if (machines.some((m) => !m.status?.nodeRef)) return [];
  return cpNodes
    .filter((n) => !machines.some((m) => m.status?.nodeRef?.name === n.name))
    .map((n) => `Control plane Node ${n.name} does not have a corresponding Machine`);
}

/** Go's %s of a []string: "[a b]". */
const goList = (items: readonly string[]): string => `[${items.join(' ')}]`;

/**
 * Upstream updateManagedEtcdConditions (v1beta2): provisioning and deleting Machines first, then the others from the
 * members and alarms read through one member, then compareMachinesAndMembers (a Machine's Node without a member
 * overrides its condition; a member without a Machine is a KCP error).
 */
function etcdConditions(input: ControlPlaneHealthInput): {
  machines: Map<string, ConditionInput[]>;
  kcpErrors: string[];
} {
  const type = MACHINE_ETCD_MEMBER_HEALTHY_CONDITION;
  const out = new Map<string, ConditionInput[]>();
  const set = (m: Machine, c: Omit<ConditionInput, 'type'>) => out.set(m.metadata.name ?? '', [{ type, ...c }]);
  for (const m of input.machines) if (!m.status?.nodeRef?.name) set(m, unknown(type, waitingForNode(m)));
  for (const m of input.machines)
    if (m.metadata.deletionTimestamp) set(m, { status: 'False', reason: 'Deleting', message: 'Machine is deleting' });
  const active = input.machines.filter((m) => m.status?.nodeRef?.name && !m.metadata.deletionTimestamp);
  const read = input.etcd;
  // No Node to ask (read undefined) leaves the members unknown, as upstream's nil list.
  const members = read && 'members' in read ? read.members : undefined;
  if (!read || 'members' in read) {
    for (const m of active) {
      const nodeName = m.status!.nodeRef!.name;
      const member = members?.find((x) => x.name === nodeName);
      if (!member)
        set(m, {
          status: 'False',
          reason: 'NotHealthy',
          message: `Etcd reports the cluster is composed by ${goList(memberNames(members ?? []))}, but the etcd member hosted on Machine ${m.metadata.name} (${nodeName}) is not included`,
        });
      else if (member.isLearner)
        set(m, { status: 'False', reason: 'NotHealthy', message: 'Waiting for learner etcd member to be promoted' });
      else {
        const alarms = (read?.alarms ?? [])
          .filter((a) => a.memberId === member.id && a.type !== AlarmType.None)
          .map((a) => ALARM_TYPE_NAME[a.type] ?? String(a.type));
        if (alarms.length > 0)
          set(m, { status: 'False', reason: 'NotHealthy', message: `Etcd reports alarms: ${alarms.join(', ')}` });
        else set(m, { status: 'True', reason: 'Healthy' });
      }
    }
  } else {
    for (const m of active) {
      // Without a message (the leader was not among the members) the conditions stay as they were.
      const previous = getCondition(m, type);
      if (read.machineMessage) set(m, unknown(type, read.machineMessage));
      else if (previous)
        set(m, { status: previous.status, reason: previous.reason ?? '', message: previous.message || undefined });
    }
  }
  const kcpErrors: string[] = [];
  if (members) {
    for (const m of input.machines) {
      const nodeName = m.status?.nodeRef?.name;
      if (nodeName && !members.some((x) => x.name === nodeName))
        set(m, {
          status: 'False',
          reason: 'NotHealthy',
          message: `Etcd doesn't have an etcd member for Node ${nodeName}`,
        });
    }
    for (const member of members) {
      if (input.machines.some((m) => m.status?.nodeRef?.name && m.status.nodeRef.name === member.name)) continue;
      const name = member.name === '' ? `${member.id} (Name not yet assigned)` : member.name;
      kcpErrors.push(`Etcd member ${name} does not have a corresponding Machine`);
    }
  }
  return { machines: out, kcpErrors };
}

/** "a, b, c, ... (2 more)": upstream's ListToString with a limit of 3. */
const listNames = (names: string[]): string => listToString(names, 3);

/** Upstream aggregateConditionsFromMachinesToKCP: issues and unknowns surface, grouped by identical message. */
export function aggregateToKcp(
  machines: readonly Machine[],
  conditions: Map<string, ConditionInput[]>,
  kcpErrors: string[],
  type: string,
  note: string,
): ConditionInput {
  let errors = 0;
  let unknowns = 0;
  let infos = 0;
  const byMessage = new Map<string, string[]>();
  for (const m of machines) {
    const name = m.metadata.name ?? '';
    const own = conditions.get(name) ?? [];
    const lines: string[] = [];
    for (const c of own) {
      if (c.status === 'True') infos++;
      else if (c.status === 'False') {
        errors++;
        lines.push(`  * ${c.type}: ${c.message || `condition is ${c.status}`}`);
      } else if (!m.spec.providerID)
        infos++; // still provisioning: no noise
      else {
        unknowns++;
        lines.push(`  * ${c.type}: ${c.message || `condition is ${c.status}`}`);
      }
    }
    if (lines.length === 0) continue;
    const distinct = new Set(own.map((c) => c.message ?? ''));
    const message =
      own.length > 1 && distinct.size === 1 ? `  * Control plane components: ${[...distinct][0]}` : lines.join('\n');
    appendTo(byMessage, message, name);
  }
  const ordered = [...byMessage.entries()].sort(
    (a, b) =>
      b[1].length - a[1].length ||
      [...a[1]]
        .sort()
        .join(',')
        .localeCompare([...b[1]].sort().join(',')),
  );
  const parts = ordered.map(
    ([message, names]) => `* Machine${names.length > 1 ? 's' : ''} ${listNames([...names].sort())}:\n${message}`,
  );
  for (const e of kcpErrors) parts.push(`* ${e}`);
  const message = parts.join('\n');
  if (kcpErrors.length > 0 || errors > 0) return { type, status: 'False', reason: 'NotHealthy', message };
  if (unknowns > 0) return { type, status: 'Unknown', reason: 'HealthUnknown', message };
  if (infos > 0) return { type, status: 'True', reason: 'Healthy' };
  return { type, status: 'Unknown', reason: 'HealthUnknown', message: `No Machines reporting ${note} status` };
}

/** Machine and KCP health conditions; a failed Node read makes everything Unknown (InspectionFailed). */
export function computeControlPlaneHealth(input: ControlPlaneHealthInput): ControlPlaneHealth {
  const machines = new Map<string, ConditionInput[]>();
  const { nodes } = input;
  if ('error' in nodes) {
    const podTypes = podConditionTypes(input.etcdManaged);
    for (const m of input.machines) {
      const conds = [
        unknown(MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION, 'Failed to get the Node'),
        ...podTypes.map((type) => unknown(type, `Failed to get the Node hosting the Pod: ${nodes.error}`)),
      ];
      if (input.etcdManaged)
        conds.push(unknown(MACHINE_ETCD_MEMBER_HEALTHY_CONDITION, 'Failed to get the Node hosting the etcd member'));
      machines.set(m.metadata.name ?? '', conds);
    }
    const kcp: ConditionInput[] = [
      unknown(
        CONTROL_PLANE_COMPONENTS_HEALTHY_CONDITION,
        `Failed to get Nodes hosting control plane components: ${nodes.error}`,
      ),
    ];
    if (input.etcdManaged)
      kcp.push(unknown(ETCD_CLUSTER_HEALTHY_CONDITION, 'Failed to get Nodes hosting the etcd cluster'));
    return { machines, kcp };
  }
  const pods = podConditions(input, nodes.value, input.pods);
  for (const [name, conds] of pods.machines) machines.set(name, [pods.nodeConditions.get(name)!, ...conds]);
  const kcp = [
    aggregateToKcp(
      input.machines,
      pods.machines,
      pods.kcpErrors,
      CONTROL_PLANE_COMPONENTS_HEALTHY_CONDITION,
      'control plane',
    ),
  ];
  if (input.etcdManaged) {
    const etcd = etcdConditions(input);
    for (const [name, conds] of etcd.machines) appendTo(machines, name, ...conds);
    kcp.push(
      aggregateToKcp(input.machines, etcd.machines, etcd.kcpErrors, ETCD_CLUSTER_HEALTHY_CONDITION, 'etcd member'),
    );
  }
  return { machines, kcp };
}
