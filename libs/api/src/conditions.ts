// metav1.Condition helpers (upstream util/conditions v1beta2: get/set/mirror/aggregate), clock injectable.
import { appendTo, formatTime, listToString, realClock, type PassiveClock } from '@capi/apimachinery';
import type { Condition, ConditionStatus } from './schema/meta';

export type { Condition, ConditionStatus };

/** What a caller decides; lastTransitionTime is computed. */
export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  observedGeneration?: number;
}

/** Anything with v1beta2 conditions under status. */
export interface ConditionsHolder {
  kind?: string;
  metadata: { name?: string; generation?: number };
  status?: { conditions?: Condition[] };
}

type Source = ConditionsHolder | readonly Condition[] | undefined;

const conditionsOf = (s: Source): readonly Condition[] =>
  s === undefined
    ? []
    : Array.isArray(s)
      ? (s as readonly Condition[])
      : ((s as ConditionsHolder).status?.conditions ?? []);

export function getCondition(source: Source, type: string): Condition | undefined {
  return conditionsOf(source).find((c) => c.type === type);
}

export const isTrue = (source: Source, type: string): boolean => getCondition(source, type)?.status === 'True';
export const isFalse = (source: Source, type: string): boolean => getCondition(source, type)?.status === 'False';
/** Unknown or absent. */
export const isUnknown = (source: Source, type: string): boolean => {
  const c = getCondition(source, type);
  return c === undefined || c.status === 'Unknown';
};

/**
 * Returns a new list with `input` set. lastTransitionTime changes only when status changes (or the condition is new);
 * an unchanged condition keeps its object identity so callers can detect "nothing to write".
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  clock: PassiveClock = realClock,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === input.type);
  const existing = i >= 0 ? list[i] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    ...(input.observedGeneration !== undefined ? { observedGeneration: input.observedGeneration } : {}),
    lastTransitionTime:
      existing && existing.status === input.status ? existing.lastTransitionTime : formatTime(clock.now()),
    reason: input.reason,
    ...(input.message ? { message: input.message } : {}),
  };
  if (existing && conditionsEqual(existing, next)) return list;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

function conditionsEqual(a: Condition, b: Condition): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    (a.message ?? '') === (b.message ?? '') &&
    a.observedGeneration === b.observedGeneration &&
    a.lastTransitionTime === b.lastTransitionTime
  );
}

/** Sets the condition on an object in place; observedGeneration defaults to metadata.generation. */
export function setConditionOn(obj: ConditionsHolder, input: ConditionInput, clock: PassiveClock = realClock): void {
  const observedGeneration = input.observedGeneration ?? obj.metadata.generation;
  obj.status = obj.status ?? {};
  obj.status.conditions = setCondition(obj.status.conditions, { ...input, observedGeneration }, clock);
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export interface MirrorOptions {
  /** Type of the resulting condition; defaults to the source type. */
  targetType?: string;
  /** Used when the source object has no such condition. */
  fallback?: { status: ConditionStatus; reason: string; message?: string };
}

/**
 * Mirrors `sourceType` of `source` as a condition input for another object.
 * Missing source condition → fallback, or Unknown with a "not yet reported" message.
 */
export function mirror(source: ConditionsHolder, sourceType: string, options: MirrorOptions = {}): ConditionInput {
  const type = options.targetType ?? sourceType;
  const c = getCondition(source, sourceType);
  if (!c) {
    const fb = options.fallback ?? {
      status: 'Unknown' as const,
      reason: 'NotYetReported',
      message: `Condition ${sourceType} not yet reported${source.kind ? ` from ${source.kind}` : ''}`,
    };
    return { type, ...fb };
  }
  return { type, status: c.status, reason: c.reason, ...(c.message ? { message: c.message } : {}) };
}

export interface AggregateOptions {
  targetType: string;
  trueReason: string;
  falseReason: string;
  unknownReason: string;
  /** Condition when there are no objects at all (e.g. MachinesUpToDate → Unknown/NoReplicas). */
  noObjects?: { status: ConditionStatus; reason: string; message?: string };
  /** Noun for messages, plural form; default "Machines". */
  kindPlural?: string;
  /** Names listed per message line before "... (N more)". Default 3. */
  maxNamesPerLine?: number;
}

/**
 * Summarises `sourceType` over many objects (positive polarity): any False → False, else any Unknown/absent →
 * Unknown, else True. The message groups the offending objects by their message, worst first.
 */
export function aggregate(
  objects: readonly ConditionsHolder[],
  sourceType: string,
  options: AggregateOptions,
): ConditionInput {
  const { targetType } = options;
  if (objects.length === 0) {
    return {
      type: targetType,
      ...(options.noObjects ?? { status: 'Unknown', reason: options.unknownReason, message: 'No objects' }),
    };
  }
  const byStatus: Record<'False' | 'Unknown', Map<string, string[]>> = { False: new Map(), Unknown: new Map() };
  for (const o of objects) {
    const c = getCondition(o, sourceType);
    const status = c?.status ?? 'Unknown';
    if (status === 'True') continue;
    const msg = c ? c.message || c.reason : `Condition ${sourceType} not yet reported`;
    const group = byStatus[status];
    appendTo(group, msg, o.metadata.name ?? '');
  }
  const kindPlural = options.kindPlural ?? 'Machines';
  const maxNames = options.maxNamesPerLine ?? 3;
  const lines = (groups: Map<string, string[]>): string[] =>
    [...groups.entries()]
      .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
      .map(([msg, names]) => {
        const sorted = [...names].sort();
        const noun = sorted.length === 1 ? kindPlural.replace(/s$/, '') : kindPlural;
        return `* ${noun} ${listToString(sorted, maxNames)}: ${msg}`;
      });
  if (byStatus.False.size > 0) {
    return {
      type: targetType,
      status: 'False',
      reason: options.falseReason,
      message: [...lines(byStatus.False), ...lines(byStatus.Unknown)].join('\n'),
    };
  }
  if (byStatus.Unknown.size > 0) {
    return {
      type: targetType,
      status: 'Unknown',
      reason: options.unknownReason,
      message: lines(byStatus.Unknown).join('\n'),
    };
  }
  return { type: targetType, status: 'True', reason: options.trueReason };
}
