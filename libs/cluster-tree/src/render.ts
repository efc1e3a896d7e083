// The tree as a text table, laid out as `clusterctl describe cluster` prints it (upstream internal/util/tree/tree.go
// PrintObjectTree: tree prefixes ├─ └─ │, left-aligned columns padded by one space, multi-line messages continued on
// rows of their own), plus the in-place columns. No colours.
import { timestampSince } from '@capi/apimachinery';
import { describeUpdaters } from './in-place';
import type { ClusterTree, TreeNode } from './model';

const FIRST = '├─';
const LAST = '└─';
const PIPE = '│ ';
const INDENT = '  ';

export const TREE_COLUMNS = [
  'NAME',
  'REPLICAS',
  'AVAILABLE',
  'READY',
  'UP TO DATE',
  'STATUS',
  'REASON',
  'SINCE',
  'UPDATING',
  'UPDATER',
  'PENDING HOOKS',
  'UPDATING SINCE',
  'MESSAGE',
] as const;

/** The row name: `Kind namespace/name, version` (getRowName), the group name for Workers / Other. */
export function rowName(node: TreeNode): string {
  if (node.virtual) return node.name;
  let name = `${node.kind} ${node.namespace ? `${node.namespace}/` : ''}${node.name}`;
  if (node.version) name += `, ${node.version}`;
  return node.deleting ? `!! DELETED !! ${name}` : name;
}

/** One row's cells (NAME without its tree prefix), in TREE_COLUMNS order, and further lines of the message. */
export function rowCells(node: TreeNode, now: Date): { cells: string[]; moreMessage: string[] } {
  const c = node.condition;
  const ip = node.inPlace;
  const isMachine = node.kind === 'Machine' && !node.virtual;
  const [message0 = '', ...moreMessage] = (c?.message ?? '').split('\n');
  const cells = [
    rowName(node),
    node.replicas ?? '',
    node.available ?? '',
    node.ready ?? '',
    node.upToDate ?? '',
    c?.status ?? '',
    c?.reason ?? '',
    c ? timestampSince(c.lastTransitionTime, now) : '',
    isMachine ? (ip?.updating ? 'True' : 'False') : '',
    ip?.updating ? describeUpdaters(ip) : '',
    ip?.pendingHooks.join(',') ?? '',
    ip?.since ? timestampSince(ip.since, now) : '',
    message0,
  ];
  return { cells, moreMessage };
}

/** The table, one line per row, trailing spaces trimmed; `now` makes the SINCE ages (and tests) deterministic. */
export function renderClusterTree(tree: ClusterTree, now: Date): string {
  const rows: string[][] = [[...TREE_COLUMNS]];
  const walk = (node: TreeNode, prefix: string, continuation: string) => {
    const { cells, moreMessage } = rowCells(node, now);
    cells[0] = prefix + cells[0];
    rows.push(cells);
    const childPipe = node.children.length ? PIPE : INDENT;
    for (const line of moreMessage) rows.push([continuation + childPipe, ...cells.slice(1, -1).map(() => ''), line]);
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      walk(child, continuation + (last ? LAST : FIRST), continuation + (last ? INDENT : PIPE));
    });
  };
  walk(tree.root, '', '');
  const widths = TREE_COLUMNS.map((_, i) => Math.max(...rows.map((r) => [...r[i]].length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - [...cell].length + 1)))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}
