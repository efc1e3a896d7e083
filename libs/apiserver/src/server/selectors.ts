import { LabelSelectorError, parseSelector, type Selector } from '@capi/apimachinery';
import { badRequest } from './status';

/**
 * The `labelSelector` parameter, parsed by apimachinery's labels.Parse; anything it rejects is a 400 with its message,
 * as kube-apiserver answers (the parameter decoding in k8s.io/apiserver/pkg/endpoints/handlers/get.go).
 */
export function parseLabelSelector(sel: string | undefined): Selector {
  try {
    return parseSelector(sel ?? '');
  } catch (e) {
    if (e instanceof LabelSelectorError) throw badRequest(e.message);
    throw e;
  }
}

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
