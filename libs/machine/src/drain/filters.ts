// Which Pods of a Node a drain evicts, skips or waits for (upstream core/reconcilers/machine/drain/filters.go, itself
// kept close to kubectl's k8s.io/kubectl/pkg/drain/filters.go). Pure: what the filters need from the clusters (the
// DaemonSets Pods point to, the Namespaces, the MachineDrainRules) is read beforehand by drain.ts.
import {
  MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN,
  MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP,
  MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED,
  POD_DRAIN_LABEL,
  type MachineDrainRule,
  type MachineDrainRuleDrainBehavior,
} from '@capi/api';
import { appendTo, type KubeObject, type OwnerReference } from '@capi/apimachinery';
import { machineDrainRuleAppliesToPod } from './rules';

export const DAEMON_SET_ORPHANED_WARNING = 'evicting orphaned DaemonSet-managed Pod';
export const DAEMON_SET_WARNING = 'ignoring DaemonSet-managed Pod';
export const LOCAL_STORAGE_WARNING = 'evicting Pod with local storage';
export const UNMANAGED_WARNING = 'evicting Pod that has no controller';

/** corev1.MirrorPodAnnotationKey: set by the kubelet on the API object of a static Pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** The fields of a core/v1 Pod the drain reads. */
export interface PodObject extends KubeObject {
  spec?: {
    nodeName?: string;
    volumes?: Array<{ name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }>;
    [k: string]: unknown;
  };
  status?: { phase?: string; [k: string]: unknown };
}

export type PodDeleteStatusReason = 'Okay' | 'Skip' | 'WaitCompleted' | 'Warning' | 'Error';

/** PodDeleteStatus: the drain behavior of one Pod (errors carry none). */
export interface PodDeleteStatus {
  drainBehavior?: MachineDrainRuleDrainBehavior;
  /** Only for Drain and WaitCompleted. */
  drainOrder?: number;
  reason: PodDeleteStatusReason;
  message?: string;
}

export interface PodDelete {
  pod: PodObject;
  status: PodDeleteStatus;
}

export const podDeleteStatusOkay = (order = 0): PodDeleteStatus => ({
  drainBehavior: MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN,
  drainOrder: order,
  reason: 'Okay',
});
export const podDeleteStatusSkip = (): PodDeleteStatus => ({
  drainBehavior: MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP,
  reason: 'Skip',
});
export const podDeleteStatusWaitCompleted = (): PodDeleteStatus => ({
  drainBehavior: MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED,
  drainOrder: 0,
  reason: 'WaitCompleted',
});
export const podDeleteStatusWithWarning = (
  behavior: MachineDrainRuleDrainBehavior,
  message: string,
): PodDeleteStatus => ({
  drainBehavior: behavior,
  ...(behavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN ? { drainOrder: 0 } : {}),
  reason: 'Warning',
  message,
});
export const podDeleteStatusWithError = (message: string): PodDeleteStatus => ({ reason: 'Error', message });

/** klog.KObj(pod).String(): `namespace/name`, or the name alone without a namespace. */
export const podKey = (pod: KubeObject): string =>
  pod.metadata.namespace ? `${pod.metadata.namespace}/${pod.metadata.name}` : (pod.metadata.name ?? '');

/** The Pods of a Node sorted into those that have to go (Drain, WaitCompleted) and those that are skipped. */
export class PodDeleteList {
  constructor(readonly items: PodDelete[] = []) {}

  /** The Pods that have to go away before the Node counts as drained. */
  pods(): PodObject[] {
    return this.items
      .filter(
        (i) =>
          i.status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN ||
          i.status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED,
      )
      .map((i) => i.pod);
  }

  /**
   * The Pods ignored by the drain: DaemonSet Pods, static Pods, Pods deleted long ago on an unreachable Node, Pods
   * labelled `cluster.x-k8s.io/drain: skip`, Pods whose first matching MachineDrainRule says Skip.
   */
  skippedPods(): PodObject[] {
    return this.items
      .filter((i) => i.status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP)
      .map((i) => i.pod);
  }

  /** One error per distinct message of the Pods a filter failed on (Go's map order: here first seen first). */
  errors(): Error[] {
    const failed = new Map<string, string[]>();
    for (const i of this.items) {
      if (i.status.reason !== 'Error') continue;
      const msg = i.status.message || 'unexpected error';
      appendTo(failed, msg, `${i.pod.metadata.namespace}/${i.pod.metadata.name}`);
    }
    return [...failed].map(([msg, pods]) => new Error(`Pods with error ${JSON.stringify(msg)}: ${pods.join(', ')}`));
  }
}

/** What a DaemonSet lookup found: whether it exists, or the error reading it. */
export type DaemonSetLookup = { exists: boolean } | { error: string };

export interface FilterInput {
  nowMs: number;
  /** Pods deleted more than this many seconds ago are skipped (0: never). */
  skipWaitForDeleteTimeoutSeconds: number;
  /** By `namespace/name` of the DaemonSets Pods name as their controller. */
  daemonSets: ReadonlyMap<string, DaemonSetLookup>;
  /** The workload cluster's Namespaces by name. */
  namespaces: ReadonlyMap<string, KubeObject>;
  /** The MachineDrainRules that apply to the Machine, sorted by name. */
  rules: readonly MachineDrainRule[];
}

export type PodFilter = (pod: PodObject, input: FilterInput) => PodDeleteStatus;

/** metav1.GetControllerOf. */
export const controllerOf = (obj: KubeObject): OwnerReference | undefined =>
  obj.metadata.ownerReferences?.find((r) => r.controller === true);

const finished = (pod: PodObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** The DaemonSet a running Pod is controlled by (`namespace/name`), which daemonSetFilter looks up. */
export function daemonSetKeyOf(pod: PodObject): string | undefined {
  const ref = controllerOf(pod);
  if (!ref || ref.kind !== 'DaemonSet' || finished(pod)) return undefined;
  return `${pod.metadata.namespace}/${ref.name}`;
}

export const skipDeletedFilter: PodFilter = (pod, { nowMs, skipWaitForDeleteTimeoutSeconds: skip }) => {
  const deleted = pod.metadata.deletionTimestamp ? Date.parse(pod.metadata.deletionTimestamp) : NaN;
  // int(time.Since(deletionTimestamp).Seconds()) > skip: whole seconds, strictly more.
  if (skip > 0 && !Number.isNaN(deleted) && Math.trunc((nowMs - deleted) / 1000) > skip) return podDeleteStatusSkip();
  return podDeleteStatusOkay();
};

export const daemonSetFilter: PodFilter = (pod, { daemonSets }) => {
  const key = daemonSetKeyOf(pod);
  if (!key) return podDeleteStatusOkay();
  const found = daemonSets.get(key);
  if (!found) return podDeleteStatusWithError(`DaemonSet ${key} was not looked up`);
  if ('error' in found) return podDeleteStatusWithError(found.error);
  // An orphaned DaemonSet Pod (its DaemonSet is gone) is evicted with a warning.
  if (!found.exists)
    return podDeleteStatusWithWarning(MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN, DAEMON_SET_ORPHANED_WARNING);
  return podDeleteStatusWithWarning(MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP, DAEMON_SET_WARNING);
};

export const mirrorPodFilter: PodFilter = (pod) =>
  MIRROR_POD_ANNOTATION in (pod.metadata.annotations ?? {}) ? podDeleteStatusSkip() : podDeleteStatusOkay();

export const localStorageFilter: PodFilter = (pod) => {
  if (!(pod.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined && v.emptyDir !== null))
    return podDeleteStatusOkay();
  if (finished(pod)) return podDeleteStatusOkay();
  return podDeleteStatusWithWarning(MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN, LOCAL_STORAGE_WARNING);
};

export const unreplicatedFilter: PodFilter = (pod) => {
  if (finished(pod) || controllerOf(pod)) return podDeleteStatusOkay();
  return podDeleteStatusWithWarning(MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN, UNMANAGED_WARNING);
};

export const drainLabelFilter: PodFilter = (pod) => {
  const value = pod.metadata.labels?.[POD_DRAIN_LABEL];
  if (value === undefined) return podDeleteStatusOkay();
  // strings.EqualFold; "wait-completed" with its first "-" removed (unknown values are ignored).
  if (value.toLowerCase() === 'skip') return podDeleteStatusSkip();
  if (value.replace('-', '').toLowerCase() === 'waitcompleted') return podDeleteStatusWaitCompleted();
  return podDeleteStatusOkay();
};

export const machineDrainRulesFilter: PodFilter = (pod, { namespaces, rules }) => {
  const namespace = namespaces.get(pod.metadata.namespace ?? '');
  if (!namespace) return podDeleteStatusWithError('Pod Namespace does not exist');
  for (const rule of rules) {
    if (!machineDrainRuleAppliesToPod(rule, pod, namespace)) continue;
    const behavior = rule.spec.drain.behavior as string;
    switch (behavior) {
      case MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN:
        return podDeleteStatusOkay(rule.spec.drain.order ?? 0);
      case MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP:
        return podDeleteStatusSkip();
      case MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED:
        return podDeleteStatusWaitCompleted();
      default:
        return podDeleteStatusWithError(
          `MachineDrainRule ${JSON.stringify(rule.metadata.name)} has unknown spec.drain.behavior: ${JSON.stringify(behavior)}`,
        );
    }
  }
  return podDeleteStatusOkay();
};

/** The filters in upstream's order: kubectl drain's first, then the drain label and the MachineDrainRules. */
export const DRAIN_FILTERS: readonly PodFilter[] = [
  skipDeletedFilter,
  daemonSetFilter,
  mirrorPodFilter,
  localStorageFilter,
  unreplicatedFilter,
  drainLabelFilter,
  machineDrainRulesFilter,
];

/**
 * Upstream filterPods: the first filter that says Skip or WaitCompleted decides; otherwise the last filter's status,
 * with the warnings of all filters joined when the Pod is drained.
 */
export function filterPods(
  pods: readonly PodObject[],
  input: FilterInput,
  filters: readonly PodFilter[] = DRAIN_FILTERS,
): PodDeleteList {
  return new PodDeleteList(
    pods.map((pod) => {
      let status: PodDeleteStatus = podDeleteStatusOkay();
      const warnings: string[] = [];
      for (const filter of filters) {
        status = filter(pod, input);
        if (
          status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP ||
          status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED
        )
          break;
        if (status.reason === 'Warning' && status.message) warnings.push(status.message);
      }
      if (
        status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN &&
        (status.reason === 'Okay' || status.reason === 'Warning') &&
        warnings.length > 0
      )
        status = { ...status, reason: 'Warning', message: warnings.join(', ') };
      return { pod, status };
    }),
  );
}
