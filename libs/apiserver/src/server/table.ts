// meta.k8s.io/v1 Table responses for `kubectl get`: built-in kinds through kube's printers (printers.ts), custom
// resources through their CRD's additionalPrinterColumns (apiextensions-apiserver tableconvertor).
import { toStorage } from './conversion';
import { builtinPrinter, NAME_COLUMN, type Printer, type TableColumn } from './printers';
import type { ResourceInfo } from './registry';
import { type KubeObject, timestampSince } from '@capi/apimachinery';

const TOKEN = /\[\?\(@\.[^)]*\)\]|\[\d+\]|\['(?:[^'\\]|\\.)*'\]|\["(?:[^"\\]|\\.)*"\]|\.[^.[]+/g;

/**
 * Evaluates the simple JSONPath forms printer columns use: `.a.b`, `.a[0].b`, `.a[?(@.type=="Ready")].status`,
 * `.metadata.labels['x\.io/name']`.
 */
export function evalJsonPath(obj: unknown, path: string): unknown {
  const tokens =
    path
      .replace(/^\{?\$?/, '')
      .replace(/\}$/, '')
      .match(TOKEN) ?? [];
  let cur: any = obj;
  for (const t of tokens) {
    if (cur == null) return undefined;
    if (t.startsWith('[?')) {
      const m = /^\[\?\(@\.([\w.]+)\s*==\s*["']?([^"']*)["']?\)\]$/.exec(t);
      if (!m || !Array.isArray(cur)) return undefined;
      cur = cur.find((item) => String(evalJsonPath(item, `.${m[1]}`)) === m[2]);
    } else if (t.startsWith("['") || t.startsWith('["')) cur = cur[t.slice(2, -2).replace(/\\(.)/g, '$1')];
    else if (t.startsWith('[')) cur = Array.isArray(cur) ? cur[Number(t.slice(1, -1))] : undefined;
    else cur = cur[t.slice(1)];
  }
  return cur;
}

export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

type PrinterColumn = ResourceInfo['printerColumns'][number];

/** A CRD declaring no columns gets Age (like apiextensions-apiserver's serveDefaultColumnsIfEmpty). */
const DEFAULT_CRD_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];

/** A cell of a CRD column: typed like the column, null when the path finds nothing (tableconvertor cellForJSONValue). */
function crdCell(c: PrinterColumn, v: unknown, now: Date): unknown {
  if (v === undefined || v === null) return null;
  switch (c.type) {
    case 'string':
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return typeof v === 'string' ? timestampSince(v, now) : null;
    default:
      return null;
  }
}

function crdPrinter(info: ResourceInfo): Printer {
  const declared = info.printerColumns.length > 0 ? info.printerColumns : DEFAULT_CRD_COLUMNS;
  const columns: TableColumn[] = [
    NAME_COLUMN,
    ...declared.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns,
    cells: (o, now) => [o.metadata?.name, ...declared.map((c) => crdCell(c, evalJsonPath(o, c.jsonPath), now))],
  };
}

export function toTable(
  info: ResourceInfo,
  objects: Record<string, any>[],
  listMeta: Record<string, any>,
  now = new Date(),
) {
  const printer = info.custom ? crdPrinter(info) : builtinPrinter(info.group, info.kind);
  const rows = objects.map((o) => ({
    // Built-in printers read the stored (core) shape, e.g. involvedObject of an events.k8s.io Event.
    cells: printer.cells(info.custom ? o : toStorage(info, o as KubeObject), now),
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
  }));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions: printer.columns, rows };
}
