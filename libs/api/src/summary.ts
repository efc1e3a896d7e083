// Summary of several conditions of one object into one (upstream util/conditions NewSummaryCondition with the
// default merge strategy): issues first, then unknown, then info; the message lists every issue/unknown condition
// in the order of the given types, as "* Type: message".
import { getCondition, type ConditionInput, type ConditionStatus } from './conditions';
import type { Condition } from './schema/meta';

export type MergePriority = 'Issue' | 'Unknown' | 'Info';

export interface SummaryOptions {
  targetType: string;
  /** Condition types in scope, in order of relevance (the message follows this order). */
  forConditionTypes: readonly string[];
  /** Types whose normal state is False (e.g. Deleting). */
  negativePolarity?: readonly string[];
  /** Types that are left out when missing instead of counting as Unknown "Condition not yet reported". */
  ignoreTypesIfMissing?: readonly string[];
  /** Replaces a condition of the same type for the summary only (e.g. a shorter Deleting message). */
  overrides?: readonly Condition[];
  /** Custom priority; return undefined to use the default (polarity based). */
  priority?: (c: Condition) => MergePriority | undefined;
  /** Post-processes the "* Type: message" lines. */
  transformMessages?: (lines: string[]) => string[];
  reasons: { issue: string; unknown: string; info: string };
}

/** Upstream NotYetReportedReason: a condition in scope that the object does not report. */
export const NOT_YET_REPORTED_REASON = 'NotYetReported';

const BULLET = /\s*\*\s+/;

/** Upstream indentIfMultiline: a multiline or bulleted message goes on its own indented lines. */
export function indentIfMultiline(m: string): string {
  if (!m.includes('\n') && !BULLET.test(m)) return ` ${m}`;
  const lines = m.split('\n');
  const withoutBullet = lines.some((l) => !BULLET.test(l));
  return '\n' + lines.map((l) => (withoutBullet ? (BULLET.test(l) ? '    ' : '  * ') : '  ') + l).join('\n');
}

export function defaultMergePriority(c: Condition, negativePolarity: ReadonlySet<string>): MergePriority {
  if (c.status === 'Unknown') return 'Unknown';
  const normal: ConditionStatus = negativePolarity.has(c.type) ? 'False' : 'True';
  return c.status === normal ? 'Info' : 'Issue';
}

export function summarize(conditions: readonly Condition[] | undefined, options: SummaryOptions): ConditionInput {
  const negative = new Set(options.negativePolarity ?? []);
  const ignoreIfMissing = new Set(options.ignoreTypesIfMissing ?? []);
  const inScope: Condition[] = [];
  for (const type of options.forConditionTypes) {
    const c = options.overrides?.find((o) => o.type === type) ?? getCondition(conditions, type);
    if (c) inScope.push(c);
    else if (!ignoreIfMissing.has(type)) {
      inScope.push({
        type,
        status: 'Unknown',
        reason: NOT_YET_REPORTED_REASON,
        message: 'Condition not yet reported',
        lastTransitionTime: '',
      });
    }
  }
  const priorityOf = (c: Condition) => options.priority?.(c) ?? defaultMergePriority(c, negative);
  const priorities = inScope.map(priorityOf);
  const status: ConditionStatus = priorities.includes('Issue')
    ? 'False'
    : priorities.includes('Unknown')
      ? 'Unknown'
      : 'True';
  const reason =
    status === 'False' ? options.reasons.issue : status === 'Unknown' ? options.reasons.unknown : options.reasons.info;
  let lines: string[] = [];
  inScope.forEach((c, i) => {
    // Info is only shown when there is nothing worse, and only when it says something.
    if (priorities[i] === 'Info' && (status !== 'True' || !c.message)) return;
    lines.push(`* ${c.type}:${c.message ? indentIfMultiline(c.message) : ` ${c.reason}`}`);
  });
  if (options.transformMessages) lines = options.transformMessages(lines);
  const message = lines.join('\n');
  return { type: options.targetType, status, reason, ...(message ? { message } : {}) };
}
