// One condition type across many objects, as upstream util/conditions NewAggregateCondition with DefaultMergeStrategy
// (aggregate.go, merge_strategies.go): issues first, then unknown, then info; the message lists at most three
// messages, each with up to three object names ("* Machines m1, m2: msg"), control plane Machines first, then
// "And N <Kinds> with other issues". `aggregate` in ./conditions is an older, shorter form kept for its callers.
import { appendTo } from '@capi/apimachinery';
import { MACHINE_CONTROL_PLANE_LABEL } from './constants';
import { indentIfMultiline, NOT_YET_REPORTED_REASON, type MergePriority } from './summary';
import type { Condition, ConditionStatus } from './schema/meta';

/** The object a condition comes from (upstream ConditionOwnerInfo) and its conditions. */
export interface AggregateSource {
  kind: string;
  name: string;
  isControlPlaneMachine?: boolean;
  conditions: readonly Condition[];
}

/** An object's owner info; `kind` is the fallback when the object has none (upstream falls back to the Go type). */
export function aggregateSourceOf(
  obj: {
    kind?: string;
    metadata: { name?: string; labels?: Record<string, string> };
    status?: { conditions?: readonly Condition[] };
  },
  kind: string,
): AggregateSource {
  const k = obj.kind || kind;
  return {
    kind: k,
    name: obj.metadata.name ?? '',
    isControlPlaneMachine: k === 'Machine' && MACHINE_CONTROL_PLANE_LABEL in (obj.metadata.labels ?? {}),
    conditions: obj.status?.conditions ?? [],
  };
}

export interface AggregateConditionOptions {
  /** Type of the resulting condition; defaults to the source type. */
  targetType?: string;
  /** Upstream NegativePolarityConditionTypes: only the source type may be listed. */
  negativePolarity?: readonly string[];
  /** Polarity of the resulting condition (TargetConditionHasPositivePolarity); default: that of the source. */
  targetPositivePolarity?: boolean;
  /** GetDefaultComputeMergeReasonFunc's three reasons; default IssuesReported / UnknownReported / InfoReported. */
  reasons?: { issue: string; unknown: string; info: string };
  /** Custom priority (GetPriorityFunc); default: by status and polarity. */
  priority?: (c: Condition) => MergePriority;
}

export interface AggregatedCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

const RANK: Record<MergePriority, number> = { Issue: 0, Unknown: 1, Info: 2 };

/** Upstream GetDefaultMergePriorityFunc. */
export function defaultPriorityFor(negativePolarity: readonly string[]): (c: Condition) => MergePriority {
  const negative = new Set(negativePolarity);
  return (c) => {
    if (c.status === 'True') return negative.has(c.type) ? 'Issue' : 'Info';
    if (c.status === 'False') return negative.has(c.type) ? 'Info' : 'Issue';
    return 'Unknown';
  };
}

interface Owned {
  owner: AggregateSource;
  condition: Condition;
  /** lastTransitionTime in ms (0 when unset), parsed once: the sort compares it n log n times. */
  time: number;
}

/**
 * Upstream NewAggregateCondition. Throws (as upstream returns an error) when `sources` is empty or the negative
 * polarity option names another type.
 */
export function newAggregateCondition(
  sources: readonly AggregateSource[],
  sourceType: string,
  options: AggregateConditionOptions = {},
): AggregatedCondition {
  if (sources.length === 0) throw new Error("sourceObjs can't be empty");
  const negative = options.negativePolarity ?? [];
  if (negative.length !== 0 && (negative[0] !== sourceType || negative.length > 1)) {
    throw new Error(`negativePolarityConditionTypes can only be set to ["${sourceType}"]`);
  }
  const positive = options.targetPositivePolarity ?? !negative.includes(sourceType);
  const priority = options.priority ?? defaultPriorityFor(negative);
  const reasons = options.reasons ?? { issue: 'IssuesReported', unknown: 'UnknownReported', info: 'InfoReported' };

  const inScope: Owned[] = sources.map((owner) => {
    const condition = owner.conditions.find((c) => c.type === sourceType) ?? {
      type: sourceType,
      status: 'Unknown' as const,
      reason: NOT_YET_REPORTED_REASON,
      message: `Condition ${sourceType} not yet reported`,
      lastTransitionTime: '',
    };
    return { owner, condition, time: condition.lastTransitionTime ? Date.parse(condition.lastTransitionTime) || 0 : 0 };
  });
  // sortConditions: one type only, so by lastTransitionTime, older first (stable).
  inScope.sort((a, b) => a.time - b.time);

  const issues: Owned[] = [];
  const unknowns: Owned[] = [];
  const infos: Owned[] = [];
  for (const o of inScope) {
    const p = priority(o.condition);
    (p === 'Issue' ? issues : p === 'Unknown' ? unknowns : infos).push(o);
  }

  let status: ConditionStatus;
  if (issues.length > 0) status = positive ? 'False' : 'True';
  else if (unknowns.length > 0) status = 'Unknown';
  else status = positive ? 'True' : 'False';
  const reason = issues.length > 0 ? reasons.issue : unknowns.length > 0 ? reasons.unknown : reasons.info;

  const n = { left: 3 };
  const messages: string[] = [];
  if (issues.length > 0 || unknowns.length > 0) {
    messages.push(
      ...aggregateMessages([...issues, ...unknowns], n, false, priority, {
        Issue: 'with other issues',
        Unknown: 'with status unknown',
      }),
    );
  } else if (infos.length > 0) {
    messages.push(...aggregateMessages(infos, n, true, priority, { Info: 'with additional info' }));
  }
  return { type: options.targetType ?? sourceType, status, reason, message: messages.join('\n') };
}

/** A plural of a Kind, enough for Kubernetes kinds (upstream uses flect.Pluralize). */
export function pluralizeKind(kind: string): string {
  if (/(s|x|z|ch|sh)$/.test(kind)) return `${kind}es`;
  if (/[^aeiou]y$/.test(kind)) return `${kind.slice(0, -1)}ies`;
  return `${kind}s`;
}

/** Upstream aggregateMessages. */
function aggregateMessages(
  conditions: readonly Owned[],
  n: { left: number },
  dropEmpty: boolean,
  priority: (c: Condition) => MergePriority,
  otherMessages: Partial<Record<MergePriority, string>>,
): string[] {
  const byKind = new Map<string, Map<string, string[]>>();
  const messagePriority = new Map<string, MergePriority>();
  const mustGoFirst = new Set<string>();
  const cpMachines = new Set<string>();
  for (const { owner, condition } of conditions) {
    const m = condition.message ?? '';
    if (dropEmpty && m === '') continue;
    const forKind = byKind.get(owner.kind) ?? new Map<string, string[]>();
    byKind.set(owner.kind, forKind);
    appendTo(forKind, m, owner.name);
    if (owner.isControlPlaneMachine) {
      cpMachines.add(owner.name);
      mustGoFirst.add(m);
    }
    // The same message with different priorities takes the highest (issue, then unknown, then info).
    const current = messagePriority.get(m);
    const next = priority(condition);
    if (current === undefined || RANK[next] < RANK[current]) messagePriority.set(m, next);
  }

  const out: string[] = [];
  for (const kind of [...byKind.keys()].sort()) {
    const kindPlural = pluralizeKind(kind);
    const forKind = byKind.get(kind) as Map<string, string[]>;
    const index = [...forKind.keys()].sort((i, j) => compareMessages(i, j, mustGoFirst, messagePriority, forKind));
    const others = new Map<MergePriority, number>();
    for (const m of index) {
      const objects = forKind.get(m) as string[];
      const p = messagePriority.get(m) as MergePriority;
      if (n.left === 0) {
        others.set(p, (others.get(p) ?? 0) + objects.length);
        continue;
      }
      const first = firstObjects(objects, 3, cpMachines);
      let msg: string;
      if (objects.length === 1) msg = `* ${kind} ${first[0]}:`;
      else if (objects.length <= 3) msg = `* ${kindPlural} ${first.join(', ')}:`;
      else msg = `* ${kindPlural} ${first.join(', ')}, ... (${objects.length - 3} more):`;
      out.push(msg + indentIfMultiline(m));
      n.left--;
    }
    for (const p of ['Issue', 'Unknown', 'Info'] as const) {
      const other = others.get(p);
      const text = otherMessages[p];
      if (other === undefined || text === undefined) continue;
      if (other === 1) out.push(`And ${other} ${kind} ${text}`);
      if (other > 1) out.push(`And ${other} ${kindPlural} ${text}`);
    }
  }
  return out;
}

function compareMessages(
  i: string,
  j: string,
  mustGoFirst: ReadonlySet<string>,
  priority: ReadonlyMap<string, MergePriority>,
  objects: ReadonlyMap<string, string[]>,
): number {
  const fi = mustGoFirst.has(i);
  const fj = mustGoFirst.has(j);
  if (fi !== fj) return fi ? -1 : 1;
  const pi = RANK[priority.get(i) as MergePriority];
  const pj = RANK[priority.get(j) as MergePriority];
  if (pi !== pj) return pi - pj;
  const ni = (objects.get(i) as string[]).length;
  const nj = (objects.get(j) as string[]).length;
  if (ni !== nj) return nj - ni;
  const ki = (objects.get(i) as string[]).join(',');
  const kj = (objects.get(j) as string[]).join(',');
  return ki < kj ? -1 : ki > kj ? 1 : 0;
}

/**
 * The first `n` names in upstream's order (control plane Machines first, then by name), picked in one pass: only
 * they are shown, and a message can name thousands of Machines.
 */
function firstObjects(objects: readonly string[], n: number, cpMachines: ReadonlySet<string>): string[] {
  const first: string[] = [];
  for (const o of objects) {
    if (first.length === n && compareObjects(o, first[n - 1], cpMachines) >= 0) continue;
    let i = Math.min(first.length, n - 1);
    while (i > 0 && compareObjects(o, first[i - 1], cpMachines) < 0) i--;
    first.splice(i, 0, o);
    if (first.length > n) first.pop();
  }
  return first;
}

function compareObjects(i: string, j: string, cpMachines: ReadonlySet<string>): number {
  const ci = cpMachines.has(i);
  const cj = cpMachines.has(j);
  if (ci !== cj) return ci ? -1 : 1;
  return i < j ? -1 : i > j ? 1 : 0;
}
