import { badRequest } from './status';

/** One requirement of a label selector (kube syntax: `a=b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`). */
export type LabelRequirement =
  | { key: string; op: 'eq' | 'neq'; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists' };

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

export function parseLabelSelector(sel: string | undefined): LabelRequirement[] {
  if (!sel) return [];
  return splitTopLevel(sel).map((part) => {
    let m = /^([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part);
    if (m)
      return {
        key: m[1],
        op: m[2] as 'in' | 'notin',
        values: m[3]
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      };
    m = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(part);
    if (m) return { key: m[1], op: m[2] === '!=' ? 'neq' : 'eq', value: m[3] };
    m = /^(!?)([^\s!=(),]+)$/.exec(part);
    if (m) return { key: m[2], op: m[1] ? 'notexists' : 'exists' };
    throw badRequest(`unable to parse requirement: invalid label selector "${sel}"`);
  });
}

export function matchesLabels(labels: Record<string, string> | undefined, reqs: LabelRequirement[]): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'eq':
        return has && l[r.key] === r.value;
      case 'neq':
        return !has || l[r.key] !== r.value;
      case 'in':
        return has && r.values.includes(l[r.key]);
      case 'notin':
        return !has || !r.values.includes(l[r.key]);
      case 'exists':
        return has;
      case 'notexists':
        return !has;
    }
  });
}

export interface FieldRequirement {
  path: string[];
  op: 'eq' | 'neq';
  value: string;
}

/** Field selectors: `metadata.name=x`, `metadata.namespace!=y`, `status.phase=Running`, `spec.nodeName=n` (simple dotted fields). */
export function parseFieldSelector(sel: string | undefined): FieldRequirement[] {
  if (!sel) return [];
  return splitTopLevel(sel).map((part) => {
    const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid field selector: "${sel}"`);
    return { path: m[1].split('.'), op: m[2] === '!=' ? 'neq' : 'eq', value: m[3] };
  });
}

export function matchesFields(obj: Record<string, any>, reqs: FieldRequirement[]): boolean {
  return reqs.every((r) => {
    let v: any = obj;
    for (const p of r.path) v = v == null ? undefined : v[p];
    const s = v == null ? '' : String(v);
    return r.op === 'eq' ? s === r.value : s !== r.value;
  });
}
