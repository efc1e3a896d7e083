// Cordon a Node, find the Pods to drain and evict them (upstream core/reconcilers/machine/drain/drain.go Helper).
// The decisions are pure (filters.ts, rules.ts, eviction-result.ts); this file reads and writes: the workload
// cluster's Pods, Namespaces and DaemonSets, the management cluster's MachineDrainRules, Evictions.
import { MachineDrainRuleGVK, type MachineDrainRule } from '@capi/api';
import { appendTo, type KubeObject, type PassiveClock } from '@capi/apimachinery';
import { isNotFound, type Client, type ReconcileLogger } from '@capi/controller-runtime';
import {
  emptyEvictionResult,
  evictionOutcome,
  planEviction,
  podListToString,
  type EvictionResult,
} from './eviction-result';
import { daemonSetKeyOf, filterPods, type DaemonSetLookup, type PodDeleteList, type PodObject } from './filters';
import { aggregate, matchingMachineDrainRules } from './rules';

/** Evictions are triggered for at most this long per call; the rest waits for the next reconcile. */
export const EVICTION_TIMEOUT_MS = 10_000;
const POD_PAGE_SIZE = 100;

export interface DrainHelperOptions {
  /** The management cluster (MachineDrainRules). */
  client: Client;
  /** The workload cluster. */
  remoteClient: Client;
  /**
   * Grace period of the evictions: 0 deletes at once; negative (the default) leaves each Pod's
   * terminationGracePeriodSeconds.
   */
  gracePeriodSeconds?: number;
  /** Pods whose deletionTimestamp is more than this many seconds old are skipped (0, the default: never). */
  skipWaitForDeleteTimeoutSeconds?: number;
  clock: PassiveClock;
  /** Overrides EVICTION_TIMEOUT_MS (tests). */
  evictionTimeoutMs?: number;
}

export class DrainHelper {
  constructor(private readonly opts: DrainHelperOptions) {}

  /** Sets spec.unschedulable on the Node (nothing when it is set already). */
  async cordonNode(node: KubeObject, log?: ReconcileLogger): Promise<void> {
    if ((node.spec as { unschedulable?: boolean } | undefined)?.unschedulable) return;
    log?.log('Cordoning Node');
    try {
      await this.opts.remoteClient.patch({ apiVersion: 'v1', kind: 'Node', name: node.metadata.name! }, 'merge', {
        spec: { unschedulable: true },
      });
    } catch (e) {
      throw new Error(`failed to cordon Node: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * The Node's Pods (all namespaces, paginated by `spec.nodeName`), each with its drain behavior. Throws when a list
   * fails or a filter failed for some Pod (unknown Namespace, unknown MachineDrainRule behavior, ...).
   */
  async getPodsForEviction(cluster: KubeObject, machine: KubeObject, nodeName: string): Promise<PodDeleteList> {
    const { remoteClient } = this.opts;
    const pods: PodObject[] = [];
    let cont: string | undefined;
    do {
      let page;
      try {
        page = await remoteClient.list<PodObject>('v1', 'Pod', {
          matchingFields: { 'spec.nodeName': nodeName },
          limit: POD_PAGE_SIZE,
          continue: cont,
        });
      } catch (e) {
        throw new Error(`failed to get Pods for eviction: ${(e as Error).message}`, { cause: e });
      }
      pods.push(...page.items);
      cont = page.metadata?.continue || undefined;
    } while (cont);
    if (pods.length === 0) return filterPods([], this.filterInput(new Map(), new Map(), []));

    let rules: MachineDrainRule[];
    try {
      rules = await this.matchingRules(cluster, machine);
    } catch (e) {
      throw new Error(`failed to get Pods for eviction: ${(e as Error).message}`, { cause: e });
    }
    let namespaces: Map<string, KubeObject>;
    try {
      const list = await remoteClient.list('v1', 'Namespace');
      namespaces = new Map(list.items.map((ns) => [ns.metadata.name!, ns]));
    } catch (e) {
      throw new Error(`failed to get Pods for eviction: failed to list Namespaces: ${(e as Error).message}`, {
        cause: e,
      });
    }
    const daemonSets = await this.lookupDaemonSets(pods);
    const list = filterPods(pods, this.filterInput(daemonSets, namespaces, rules));
    const errs = list.errors();
    if (errs.length > 0) throw new Error(`failed to get Pods for eviction: ${aggregate(errs.map((e) => e.message))}`);
    return list;
  }

  /**
   * One round of evictions: the Pods of the lowest drain order without deletionTimestamp are evicted (for at most
   * EVICTION_TIMEOUT_MS), the others are reported as waiting.
   */
  async evictPods(list: PodDeleteList, log?: ReconcileLogger): Promise<EvictionResult> {
    const plan = planEviction(list.items);
    const res = emptyEvictionResult();
    log?.log(
      `Drain not completed yet, there are still Pods on the Node that have to be drained: podsToTriggerEvictionNow=${listOf(plan.evictNow)} podsToTriggerEvictionLater=${listOf(plan.evictLater)} podsWithDeletionTimestamp=${listOf(plan.withDeletionTimestamp)} podsToWaitCompletedNow=${listOf(plan.waitCompletedNow)} podsToWaitCompletedLater=${listOf(plan.waitCompletedLater)}`,
    );
    res.podsIgnored.push(...plan.ignored.map((pd) => pd.pod));
    res.podsDeletionTimestampSet.push(...plan.withDeletionTimestamp.map((pd) => pd.pod));
    const timeoutMs = this.opts.evictionTimeoutMs ?? EVICTION_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const fail = (message: string, pod: PodObject) => appendTo(res.podsFailedEviction, message, pod);
    for (const { pod } of plan.evictNow) {
      if (Date.now() >= deadline) {
        fail(`eviction timeout of ${timeoutMs / 1000}s reached, eviction will be retried`, pod);
        continue;
      }
      const error = await this.evictPod(pod).then(
        () => undefined,
        (e: unknown) => e ?? new Error('eviction failed'),
      );
      const outcome = evictionOutcome(error);
      if (outcome.kind === 'evicted') res.podsDeletionTimestampSet.push(pod);
      else if (outcome.kind === 'notFound') res.podsNotFound.push(pod);
      else fail(outcome.message, pod);
    }
    res.podsToTriggerEvictionLater.push(...plan.evictLater.map((pd) => pd.pod));
    res.podsToWaitCompletedNow.push(...plan.waitCompletedNow.map((pd) => pd.pod));
    res.podsToWaitCompletedLater.push(...plan.waitCompletedLater.map((pd) => pd.pod));
    return res;
  }

  /** POST a policy/v1 Eviction to pods/<name>/eviction. */
  private async evictPod(pod: PodObject): Promise<void> {
    const grace = this.opts.gracePeriodSeconds ?? -1;
    await this.opts.remoteClient.createSubresource(
      { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, namespace: pod.metadata.namespace },
      'eviction',
      {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
        deleteOptions: grace >= 0 ? { gracePeriodSeconds: grace } : {},
      },
    );
  }

  /** The MachineDrainRules of the Machine's namespace that apply to it (read through the controller's client). */
  private async matchingRules(cluster: KubeObject, machine: KubeObject): Promise<MachineDrainRule[]> {
    let items: MachineDrainRule[];
    try {
      items = (
        await this.opts.client.list<MachineDrainRule>(MachineDrainRuleGVK.apiVersion, MachineDrainRuleGVK.kind, {
          namespace: machine.metadata.namespace,
        })
      ).items;
    } catch (e) {
      throw new Error(`failed to list MachineDrainRules: ${(e as Error).message}`, { cause: e });
    }
    return matchingMachineDrainRules(items, machine, cluster);
  }

  /** Reads each DaemonSet running Pods name as their controller, once. */
  private async lookupDaemonSets(pods: readonly PodObject[]): Promise<Map<string, DaemonSetLookup>> {
    const out = new Map<string, DaemonSetLookup>();
    for (const pod of pods) {
      const key = daemonSetKeyOf(pod);
      if (!key || out.has(key)) continue;
      const [namespace, name] = [pod.metadata.namespace, key.slice(key.indexOf('/') + 1)];
      try {
        await this.opts.remoteClient.get({ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace, name });
        out.set(key, { exists: true });
      } catch (e) {
        out.set(key, isNotFound(e) ? { exists: false } : { error: (e as Error).message });
      }
    }
    return out;
  }

  private filterInput(
    daemonSets: Map<string, DaemonSetLookup>,
    namespaces: Map<string, KubeObject>,
    rules: MachineDrainRule[],
  ) {
    return {
      nowMs: this.opts.clock.now(),
      skipWaitForDeleteTimeoutSeconds: this.opts.skipWaitForDeleteTimeoutSeconds ?? 0,
      daemonSets,
      namespaces,
      rules,
    };
  }
}

const listOf = (pds: readonly { pod: PodObject }[]): string =>
  podListToString(
    pds.map((pd) => pd.pod),
    5,
  );
