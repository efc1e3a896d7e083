// Pure pieces of the demo: one progress line per Machine change, the per-step outcome (kept in place / replaced /
// new) and the checks the demo's exit code is based on.
import {
  DELETING_CONDITION,
  MACHINE_CONTROL_PLANE_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  PAUSED_CONDITION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UPDATING_CONDITION,
  UP_TO_DATE_CONDITION,
  READY_CONDITION,
  type Condition,
  type Machine,
} from '@capi/api';

/** Conditions whose healthy state is False (negative polarity); every other Machine condition must be True. */
export const NEGATIVE_CONDITIONS: ReadonlySet<string> = new Set([
  UPDATING_CONDITION,
  DELETING_CONDITION,
  PAUSED_CONDITION,
]);

export interface MachineView {
  name: string;
  uid: string;
  /** "cp" or the MachineDeployment name. */
  group: string;
  phase: string;
  version: string;
  upToDate: string;
  updating: string;
  ready: string;
  deleting: boolean;
  /** The Deleting condition's reason and message while the Machine is being deleted (e.g. DrainingNode). */
  deletingReason?: string;
  deletingMessage?: string;
  updateInProgress: boolean;
}

const status = (conditions: Condition[] | undefined, type: string): string =>
  conditions?.find((c) => c.type === type)?.status ?? '-';

export function machineView(m: Machine): MachineView {
  const conditions = m.status?.conditions as Condition[] | undefined;
  const labels = m.metadata.labels ?? {};
  return {
    name: m.metadata.name ?? '?',
    uid: m.metadata.uid ?? '',
    group: MACHINE_CONTROL_PLANE_LABEL in labels ? 'cp' : (labels[MACHINE_DEPLOYMENT_NAME_LABEL] ?? '-'),
    phase: m.status?.phase ?? 'Pending',
    version: m.spec?.version ?? '-',
    upToDate: status(conditions, UP_TO_DATE_CONDITION),
    updating: status(conditions, UPDATING_CONDITION),
    ready: status(conditions, READY_CONDITION),
    deleting: !!m.metadata.deletionTimestamp,
    ...(m.metadata.deletionTimestamp ? deletingDetail(conditions) : {}),
    updateInProgress: UPDATE_IN_PROGRESS_ANNOTATION in (m.metadata.annotations ?? {}),
  };
}

function deletingDetail(conditions: Condition[] | undefined): Pick<MachineView, 'deletingReason' | 'deletingMessage'> {
  const c = conditions?.find((x) => x.type === DELETING_CONDITION && x.status === 'True');
  return c ? { deletingReason: c.reason, deletingMessage: c.message } : {};
}

export const shortUid = (uid: string) => uid.slice(0, 8);

/** What a progress line shows; a change in any of these fields prints a new line. */
const displayed = (v: MachineView) =>
  [v.phase, v.version, v.upToDate, v.updating, v.ready, v.deleting, v.deletingReason, v.updateInProgress].join('|');

const LINE_WIDTH = 120;
const fitLine = (l: string) => (l.length > LINE_WIDTH ? `${l.slice(0, LINE_WIDTH - 1)}…` : l);

/**
 * The live lines' columns and their widths (a longer value pushes the rest of its line right; the line is cut at
 * LINE_WIDTH). No GROUP column: a Machine's name starts with its owner's (KCP `demo-cp`, MachineSet `demo-md-0-…`).
 * NOTE: the Deleting condition's reason while the Machine is deleted (e.g. DrainingNode), and `update-in-progress`
 * while the in-place update annotation is set.
 */
const COLUMNS: ReadonlyArray<{ header: string; width: number; right?: boolean }> = [
  { header: 'TIME', width: 7, right: true },
  { header: 'EVENT', width: 7 },
  { header: 'MACHINE', width: 26 },
  { header: 'PHASE', width: 12 },
  { header: 'VERSION', width: 8 },
  { header: 'UPTODATE', width: 8 },
  { header: 'UPDATING', width: 8 },
  { header: 'READY', width: 5 },
  { header: 'UID', width: 8 },
  { header: 'NOTE', width: 0 },
];

const row = (cells: readonly string[]): string =>
  fitLine(
    cells
      .map((c, i) => (COLUMNS[i].right ? c.padStart(COLUMNS[i].width) : c.padEnd(COLUMNS[i].width)))
      .join(' ')
      .trimEnd(),
  );

/** The line naming the columns of progressLine. */
export const progressHeader = (): string => row(COLUMNS.map((c) => c.header));

/** One live line for a Machine: `time` is the elapsed time shown first (e.g. "+12.3s"). */
export function progressLine(event: string, v: MachineView, time = ''): string {
  const note = [v.deleting ? (v.deletingReason ?? 'deleting') : '', v.updateInProgress ? 'update-in-progress' : '']
    .filter(Boolean)
    .join(',');
  return row([time, event, v.name, v.phase, v.version, v.upToDate, v.updating, v.ready, shortUid(v.uid), note]);
}

/**
 * While a Machine's Node is drained, what holds the drain up: the bullets of the DrainingNode message (upstream's
 * "* Pod default/sample-x: cannot evict pod as it would violate the pod's disruption budget. ..."), indented.
 */
export function drainLines(v: MachineView): string[] {
  if (v.deletingReason !== 'DrainingNode' || !v.deletingMessage) return [];
  return v.deletingMessage
    .split('\n')
    .filter((l) => l.startsWith('* ') || l.startsWith('After above Pods'))
    .map((l) => fitLine(`         drain ${v.name}: ${l}`));
}

/**
 * Turns watch events into progress lines, printing a Machine again only when a displayed field changed, and what
 * holds up the drain of its Node when that changes. The header line comes before the first line, and again before the
 * first line after section() (the demo calls it at each phase, whose banner interrupts the table).
 */
export class ProgressTracker {
  private readonly last = new Map<string, string>();
  private readonly lastDrain = new Map<string, string>();
  private headerDue = true;

  /** `elapsed` gives the TIME column (e.g. "+12.3s"). */
  constructor(private readonly elapsed: () => string = () => '') {}

  section(): void {
    this.headerDue = true;
  }

  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', m: Machine): string | undefined {
    const out = this.lines(type, m);
    if (out.length === 0) return undefined;
    if (this.headerDue) out.unshift(progressHeader());
    this.headerDue = false;
    return out.join('\n');
  }

  private lines(type: 'ADDED' | 'MODIFIED' | 'DELETED', m: Machine): string[] {
    const v = machineView(m);
    if (type === 'DELETED') {
      this.last.delete(v.uid);
      this.lastDrain.delete(v.uid);
      return [progressLine('DELETED', v, this.elapsed())];
    }
    const out: string[] = [];
    const key = displayed(v);
    if (this.last.get(v.uid) !== key) {
      out.push(progressLine(this.last.has(v.uid) ? 'CHANGED' : 'ADDED', v, this.elapsed()));
      this.last.set(v.uid, key);
    }
    const drain = drainLines(v);
    if (drain.length > 0 && this.lastDrain.get(v.uid) !== drain.join('\n')) {
      out.push(...drain);
      this.lastDrain.set(v.uid, drain.join('\n'));
    }
    return out;
  }
}

export type Outcome = 'kept in place' | 'replaced' | 'new';

export interface OutcomeRow {
  step: string;
  name: string;
  group: string;
  uid: string;
  outcome: Outcome;
  /** Version before → after (kept Machines) or the Machine's version. */
  version: string;
}

/** Per Machine of a step: kept (same UID before and after), replaced (gone), new (appeared). */
export function stepOutcome(step: string, before: readonly Machine[], after: readonly Machine[]): OutcomeRow[] {
  const afterByUid = new Map(after.map((m) => [m.metadata.uid!, machineView(m)]));
  const beforeUids = new Set(before.map((m) => m.metadata.uid!));
  const rows: OutcomeRow[] = [];
  for (const m of before) {
    const v = machineView(m);
    const now = afterByUid.get(v.uid);
    rows.push(
      now
        ? {
            step,
            name: v.name,
            group: v.group,
            uid: v.uid,
            outcome: 'kept in place',
            version: v.version === now.version ? v.version : `${v.version} -> ${now.version}`,
          }
        : { step, name: v.name, group: v.group, uid: v.uid, outcome: 'replaced', version: v.version },
    );
  }
  for (const [uid, v] of afterByUid)
    if (!beforeUids.has(uid))
      rows.push({ step, name: v.name, group: v.group, uid, outcome: 'new', version: v.version });
  return rows;
}

export function renderSummary(rows: readonly OutcomeRow[]): string {
  const header = ['STEP', 'MACHINE', 'GROUP', 'UID', 'OUTCOME', 'VERSION'];
  const cells = rows.map((r) => [r.step, r.name, r.group, shortUid(r.uid), r.outcome, r.version]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}

/** Why a Machine is not settled: each condition not in its healthy state, or an in-flight update/deletion. */
export function machineProblems(m: Machine, expectedVersion?: string): string[] {
  const name = m.metadata.name;
  const out: string[] = [];
  if (m.metadata.deletionTimestamp) out.push(`${name}: being deleted`);
  if (UPDATE_IN_PROGRESS_ANNOTATION in (m.metadata.annotations ?? {})) out.push(`${name}: update in progress`);
  if (m.status?.phase !== 'Running') out.push(`${name}: phase ${m.status?.phase ?? 'unset'}`);
  if (expectedVersion && m.spec?.version !== expectedVersion)
    out.push(`${name}: version ${m.spec?.version} (want ${expectedVersion})`);
  const conditions = (m.status?.conditions ?? []) as Condition[];
  for (const required of [READY_CONDITION, UP_TO_DATE_CONDITION])
    if (!conditions.some((c) => c.type === required)) out.push(`${name}: no ${required} condition`);
  for (const c of conditions) {
    const want = NEGATIVE_CONDITIONS.has(c.type) ? 'False' : 'True';
    if (c.status !== want) out.push(`${name}: ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`);
  }
  return out;
}

/** Outcome violations of a step: which rows do not have the expected outcome (for Machines present before it). */
export function outcomeProblems(rows: readonly OutcomeRow[], expected: 'kept in place' | 'replaced'): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.outcome === 'new' && expected === 'kept in place')
      out.push(`${r.step}: ${r.name} is new, expected every Machine to be updated in place`);
    if (r.outcome !== 'new' && r.outcome !== expected)
      out.push(`${r.step}: ${r.name} was ${r.outcome}, expected ${expected}`);
  }
  return out;
}

/** The KCP conditions summarising control-plane health from the workload cluster (static Pods, etcd members). */
export const CONTROL_PLANE_HEALTH_CONDITIONS = ['ControlPlaneComponentsHealthy', 'EtcdClusterHealthy'] as const;

/** "ControlPlaneComponentsHealthy=True, EtcdClusterHealthy=True" and, per condition not True, why (for settling). */
export function controlPlaneHealth(kcp: { metadata: { name?: string }; status?: unknown } | undefined): {
  line: string;
  problems: string[];
} {
  const conditions = ((kcp?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
  const problems: string[] = [];
  const parts = CONTROL_PLANE_HEALTH_CONDITIONS.map((type) => {
    const c = conditions.find((x) => x.type === type);
    if (c?.status !== 'True')
      problems.push(
        `KubeadmControlPlane ${kcp?.metadata.name ?? ''}: ${type}=${c?.status ?? 'unset'}${c?.message ? ` (${c.message.replace(/\s*\n\s*/g, ' ')})` : ''}`,
      );
    return `${type}=${c?.status ?? '-'}`;
  });
  return { line: parts.join(', '), problems };
}
