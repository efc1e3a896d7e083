// Label selector string form (as in ?labelSelector=): "a=b,c!=d,e in (x,y),f notin (z),g,!h".

export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface SelectorRequirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: SelectorOperator; values?: string[] }[];
}

export class SelectorParseError extends Error {
  constructor(selector: string, detail: string) {
    super(`invalid label selector "${selector}": ${detail}`);
    this.name = 'SelectorParseError';
  }
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;
const VALUE = /^([a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?)?$/;

/** Parses the string form; throws SelectorParseError on malformed input. Empty string selects everything. */
export function parseSelector(selector: string): SelectorRequirement[] {
  const parts = splitTopLevel(selector, selector);
  return parts.map((raw) => parseRequirement(raw.trim(), selector));
}

export function matchesSelector(
  requirements: SelectorRequirement[],
  labels: Record<string, string> | undefined,
): boolean {
  const l = labels ?? {};
  return requirements.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.operator) {
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      case 'In':
        return has && r.values.includes(l[r.key]);
      case 'NotIn':
        return !has || !r.values.includes(l[r.key]);
    }
  });
}

/** Converts a metav1.LabelSelector to the string form (sorted keys for stable output). */
export function labelSelectorToString(sel: LabelSelector): string {
  const parts = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}=${sel.matchLabels![k]}`);
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    else throw new SelectorParseError(JSON.stringify(sel), `unknown operator ${String(e.operator)}`);
  }
  return parts.join(',');
}

function splitTopLevel(s: string, whole: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0 || depth > 1) throw new SelectorParseError(whole, 'unbalanced parentheses');
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw new SelectorParseError(whole, 'unbalanced parentheses');
  out.push(cur);
  if (out.length === 1 && out[0].trim() === '') return [];
  return out;
}

function parseRequirement(raw: string, whole: string): SelectorRequirement {
  if (!raw) throw new SelectorParseError(whole, 'empty requirement');
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(raw);
  if (set) {
    const values = set[3].split(',').map((v) => v.trim());
    if (values.length === 0 || values.some((v) => !v))
      throw new SelectorParseError(whole, `empty value list for "${set[1]}"`);
    return req(whole, set[1], set[2] === 'in' ? 'In' : 'NotIn', values);
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(raw);
  if (eq) return req(whole, eq[1], eq[2] === '!=' ? 'NotIn' : 'In', [eq[3]]);
  if (raw.startsWith('!')) return req(whole, raw.slice(1).trim(), 'DoesNotExist', []);
  return req(whole, raw, 'Exists', []);
}

function req(whole: string, key: string, operator: SelectorOperator, values: string[]): SelectorRequirement {
  if (!KEY.test(key)) throw new SelectorParseError(whole, `invalid key "${key}"`);
  for (const v of values)
    if (!VALUE.test(v) || v.length > 63) throw new SelectorParseError(whole, `invalid value "${v}"`);
  return { key, operator, values };
}
