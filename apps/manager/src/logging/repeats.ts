// Folds bursts of identical log records. A burst is legitimate work: e.g. while a MachineSet or KubeadmControlPlane
// marks a Machine for an in-place update it writes the Machine, its InfraMachine and its BootstrapConfig one after
// another, each write reconciles the Machine, and each reconcile logs upstream's Info line
// (core/reconcilers/machine/machine_controller_inplace_update.go: "waiting for owning controller to mark UpdateMachine
// hook as pending") — about ten identical lines in 100 ms. Reconciling fewer times would change the controllers'
// behaviour to tidy the log, so the log folds them instead, as syslog's "last message repeated N times" does.
import type { DestinationStream } from 'pino';

/** Fields that differ on every record of a burst and do not make it distinct. */
const VOLATILE_FIELDS = ['time', 'reconcileID'];

export interface RepeatFilterOptions {
  /** How long after a printed record identical ones are folded into its summary. */
  windowMs: number;
  now?: () => number;
}

/** Filters with a summary not yet written: written on process exit, so a folded error line is never lost. */
const pending = new Set<RepeatFilter>();
let exitHookInstalled = false;

/**
 * A pino destination that prints a record, then folds records equal to it (level, msg and fields apart from time and
 * reconcileID) that follow within the window into one summary record: the last of them with `repeated: N` (the
 * number folded), written before the next different record or when the window ends. Lines that are not JSON pass.
 */
export class RepeatFilter implements DestinationStream {
  private current?: { key: string; until: number; count: number; last?: Record<string, unknown> };
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(
    private readonly dest: DestinationStream,
    private readonly opts: RepeatFilterOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  write(line: string): void {
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line);
    } catch {
      this.flush();
      this.dest.write(line);
      return;
    }
    const key = keyOf(rec);
    const now = this.now();
    const cur = this.current;
    if (cur && cur.key === key && now < cur.until) {
      cur.count++;
      cur.last = rec;
      if (cur.count === 1) this.armTimer(cur.until - now);
      return;
    }
    this.flush();
    this.dest.write(line);
    this.current = { key, until: now + this.opts.windowMs, count: 0 };
  }

  /** Writes the summary of the folded records, if any, and ends the window. */
  flush(): void {
    const cur = this.current;
    this.current = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    pending.delete(this);
    if (cur?.last && cur.count > 0) this.dest.write(`${JSON.stringify({ ...cur.last, repeated: cur.count })}\n`);
  }

  private armTimer(ms: number): void {
    pending.add(this);
    installExitHook();
    this.timer = setTimeout(() => this.flush(), Math.max(0, ms));
    this.timer.unref();
  }
}

function keyOf(rec: Record<string, unknown>): string {
  const rest = { ...rec };
  for (const f of VOLATILE_FIELDS) delete rest[f];
  return JSON.stringify(rest);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const f of [...pending]) f.flush();
  });
}
