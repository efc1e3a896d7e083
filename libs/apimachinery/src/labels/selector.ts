// Label selectors: the parsed string form (labels.Parse) and metav1.LabelSelector (LabelSelectorAsSelector), with
// apimachinery's matching and string form (k8s.io/apimachinery/pkg/labels/selector.go,
// pkg/apis/meta/v1/helpers.go).
import { parseRequirements } from './parser';
import {
  LabelSelectorError,
  newRequirement,
  requirementMatches,
  requirementString,
  type Labels,
  type Requirement,
} from './requirement';

/** metav1.LabelSelectorRequirement; operator In, NotIn, Exists or DoesNotExist. */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: readonly string[];
}

/** metav1.LabelSelector: matchLabels and matchExpressions are ANDed. */
export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface Selector {
  matches(labels: Labels | undefined): boolean;
  /** True when the selector does not restrict anything (matches every label set). */
  readonly empty: boolean;
  /** Sorted by key; none for a selector that selects nothing. */
  readonly requirements: readonly Requirement[];
  /** The value `key` must have (`=`, `==`, or `in` with one value as its first requirement), if any. */
  requiresExactMatch(key: string): string | undefined;
  /** The string form (the `labelSelector` query parameter); "" for everything and for nothing. */
  toString(): string;
}

class RequirementsSelector implements Selector {
  readonly requirements: readonly Requirement[];

  constructor(requirements: readonly Requirement[]) {
    // Sorted by key for a deterministic string form; JavaScript's sort is stable for equal keys.
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Labels | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }

  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    const exact = r && (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1;
    return exact ? r.values[0] : undefined;
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

const NOTHING: Selector = {
  matches: () => false,
  empty: false,
  requirements: [],
  requiresExactMatch: () => undefined,
  toString: () => '',
};
const EVERYTHING: Selector = new RequirementsSelector([]);

/** labels.Everything(). */
export const everything = (): Selector => EVERYTHING;
/** labels.Nothing(). */
export const nothing = (): Selector => NOTHING;

/**
 * labels.Parse: "a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1"; "" selects everything. Throws LabelSelectorError with
 * upstream's message for anything kube-apiserver rejects.
 */
export function parseSelector(selector: string): Selector {
  return new RequirementsSelector(parseRequirements(selector));
}

const OPERATORS: Record<string, string> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: `undefined`/`null` selects nothing, `{}` everything. Keys, values and operators are
 * validated as upstream; a violation throws LabelSelectorError.
 */
export function labelSelectorAsSelector(selector: LabelSelector | undefined | null): Selector {
  if (selector === undefined || selector === null) return NOTHING;
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    requirements.push(newRequirement(key, '=', [value]));
  for (const e of selector.matchExpressions ?? []) {
    const operator = Object.prototype.hasOwnProperty.call(OPERATORS, e.operator) ? OPERATORS[e.operator] : undefined;
    if (!operator) throw new LabelSelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    requirements.push(newRequirement(e.key, operator, e.values?.length ? e.values : undefined));
  }
  return requirements.length ? new RequirementsSelector(requirements) : EVERYTHING;
}

/** Whether `labels` satisfy `selector` (see labelSelectorAsSelector; invalid selectors throw). */
export function matchesLabelSelector(selector: LabelSelector | undefined | null, labels: Labels | undefined): boolean {
  return labelSelectorAsSelector(selector).matches(labels);
}

/** The `labelSelector=` query form of a LabelSelector (see labelSelectorAsSelector; invalid selectors throw). */
export function formatLabelSelector(selector: LabelSelector): string {
  return labelSelectorAsSelector(selector).toString();
}
