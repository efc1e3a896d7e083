// metav1.LabelSelector evaluation and string form (apimachinery LabelSelectorAsSelector / labels.Selector.String()).
import type { LabelSelector, LabelSelectorRequirement } from './schema/meta';

export type { LabelSelector, LabelSelectorRequirement };

export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

// matchLabels become `Equals` ("k=v"); a matchExpression In stays "k in (v)" even with one value, as upstream.
type Operator = 'Equals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export interface Selector {
  matches(labels: Record<string, string> | undefined): boolean;
  /** Empty selector: matches everything. */
  readonly empty: boolean;
  /** The selector as a `labelSelector` query string; "" for everything. */
  toString(): string;
}

const OPERATORS: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

function toRequirements(selector: LabelSelector): Requirement[] {
  const reqs: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    reqs.push({ key, operator: 'Equals', values: [value] });
  for (const e of selector.matchExpressions ?? []) {
    if (!OPERATORS.includes(e.operator))
      throw new LabelSelectorError(`"${e.operator}" is not a valid label selector operator`);
    const values = [...new Set(e.values ?? [])].sort();
    if ((e.operator === 'In' || e.operator === 'NotIn') && values.length === 0) {
      throw new LabelSelectorError(
        `values: Invalid value: for 'in', 'notin' operators, values set can't be empty (key ${e.key})`,
      );
    }
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length > 0) {
      throw new LabelSelectorError(
        `values: Invalid value: values set must be empty for exists and does not exist (key ${e.key})`,
      );
    }
    reqs.push({ key: e.key, operator: e.operator as Operator, values });
  }
  // labels.Selector keeps requirements sorted by key (stable for equal keys).
  return reqs
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (a.r.key < b.r.key ? -1 : a.r.key > b.r.key ? 1 : a.i - b.i))
    .map((x) => x.r);
}

function requirementMatches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'Equals':
    case 'In':
      return has && r.values.includes(labels[r.key]);
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'Equals':
      return `${r.key}=${r.values[0]}`;
    case 'In':
      return `${r.key} in (${r.values.join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${r.values.join(',')})`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
  }
}

const NOTHING: Selector = { matches: () => false, empty: false, toString: () => '' };

/**
 * Converts a LabelSelector to a Selector. `undefined` selects nothing, `{}` selects everything (as apimachinery).
 * Invalid operators or values throw LabelSelectorError.
 */
export function labelSelectorAsSelector(selector: LabelSelector | undefined | null): Selector {
  if (selector === undefined || selector === null) return NOTHING;
  const reqs = toRequirements(selector);
  const str = reqs.map(requirementString);
  return {
    empty: reqs.length === 0,
    matches: (labels) => reqs.every((r) => requirementMatches(r, labels ?? {})),
    toString: () => str.join(','),
  };
}

export function matchesLabelSelector(
  selector: LabelSelector | undefined | null,
  labels: Record<string, string> | undefined,
): boolean {
  return labelSelectorAsSelector(selector).matches(labels);
}

/** The `labelSelector=` query form of a LabelSelector. */
export function formatLabelSelector(selector: LabelSelector): string {
  return labelSelectorAsSelector(selector).toString();
}
