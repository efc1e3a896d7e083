// One requirement of a label selector: its validation, matching and string form
// (k8s.io/apimachinery/pkg/labels/selector.go NewRequirement, Requirement.Matches, Requirement.String).
import { isLabelKey, isLabelValue } from '../validation/content';
import { aggregate, invalid, notSupported, type FieldPath } from '../validation/field';

/** selection.Operator values (k8s.io/apimachinery/pkg/selection/operator.go). */
export type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

const BINARY_OPERATORS: readonly Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const UNARY_OPERATORS: readonly Operator[] = ['exists', '!'];
/** Listed in errors in this order, as upstream's validRequirementOperators. */
export const BINARY_OPERATOR_LIST = BINARY_OPERATORS.join(', ');
const VALID_OPERATORS: readonly string[] = [...BINARY_OPERATORS, ...UNARY_OPERATORS];

export type Labels = Readonly<Record<string, string>>;

/** Thrown for a selector apimachinery rejects; the message is upstream's (kube-apiserver answers 400 with it). */
export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  /** As given (the parser's are sorted and without duplicates); the empty string is a valid value. */
  readonly values: readonly string[];
}

/** strconv.ParseInt(s, 10, 64): undefined when not a 64-bit decimal integer. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** The key check alone (the parser validates a key before reading its operator). */
export function labelKeyError(key: string, path: FieldPath): string | undefined {
  const errs = isLabelKey(key);
  return errs.length ? invalid(path, key, errs.join('; ')) : undefined;
}

/**
 * NewRequirement: the key must be a valid label key; `in`/`notin` need values, `=`/`==`/`!=` exactly one, `exists`/`!`
 * none, `gt`/`lt` one integer; every value must be a valid label value. Throws LabelSelectorError with all problems.
 */
export function newRequirement(key: string, operator: string, values: readonly string[] | undefined): Requirement {
  const errs: string[] = [];
  const keyError = labelKeyError(key, 'key');
  if (keyError) errs.push(keyError);
  const vals = values ?? [];
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0)
        errs.push(invalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1)
        errs.push(invalid('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0)
        errs.push(invalid('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1)
        errs.push(invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(notSupported('operator', operator, VALID_OPERATORS));
  }
  vals.forEach((v, i) => {
    const valueErrs = isLabelValue(v);
    if (valueErrs.length) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length) throw new LabelSelectorError(aggregate(errs));
  return { key, operator: operator as Operator, values: [...vals] };
}

/** Requirement.Matches: a missing label satisfies `notin`, `!=` and `!` only. */
export function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(labels[r.key]);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(labels[r.key]);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(labels[r.key]);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** Requirement.String: "k in (a,b)", "k!=v", "!k", ... with set values sorted. */
export function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
  }
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  switch (r.operator) {
    case 'in':
      return `${r.key} in (${values})`;
    case 'notin':
      return `${r.key} notin (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}
