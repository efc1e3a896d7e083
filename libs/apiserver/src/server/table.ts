// meta.k8s.io/v1 Table responses for `kubectl get` (Name, CRD additionalPrinterColumns, Age).
import type { ResourceInfo } from './registry';

/** Evaluates the simple JSONPath forms printer columns use: `.a.b`, `.a[0].b`, `.a[?(@.type=="Ready")].status`. */
export function evalJsonPath(obj: unknown, path: string): unknown {
  const tokens = path.replace(/^\{?\$?/, '').replace(/\}$/, '').match(/\[\?\(@\.[^)]*\)\]|\[\d+\]|\.[^.[]+/g) ?? [];
  let cur: any = obj;
  for (const t of tokens) {
    if (cur == null) return undefined;
    if (t.startsWith('[?')) {
      const m = /^\[\?\(@\.([\w.]+)\s*==\s*["']?([^"']*)["']?\)\]$/.exec(t);
      if (!m || !Array.isArray(cur)) return undefined;
      cur = cur.find((item) => String(evalJsonPath(item, `.${m[1]}`)) === m[2]);
    } else if (t.startsWith('[')) cur = Array.isArray(cur) ? cur[Number(t.slice(1, -1))] : undefined;
    else cur = cur[t.slice(1)];
  }
  return cur;
}

export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

function age(ts: string | undefined, now: Date): string {
  if (!ts) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(ts)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function toTable(info: ResourceInfo, objects: Record<string, any>[], listMeta: Record<string, any>, now = new Date()) {
  const columns = info.printerColumns.filter((c) => c.jsonPath !== '.metadata.creationTimestamp');
  const columnDefinitions = [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    ...columns.map((c) => ({ name: c.name, type: c.type === 'date' ? 'string' : c.type, format: '', description: c.description ?? '', priority: c.priority ?? 0 })),
    { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp of the object.', priority: 0 },
  ];
  const rows = objects.map((o) => ({
    cells: [
      o.metadata?.name,
      ...columns.map((c) => {
        const v = evalJsonPath(o, c.jsonPath);
        if (c.type === 'date') return age(typeof v === 'string' ? v : undefined, now);
        return v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : v;
      }),
      age(o.metadata?.creationTimestamp, now),
    ],
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
  }));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions, rows };
}
