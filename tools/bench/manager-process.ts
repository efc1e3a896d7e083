// The manager of the rollout and etcd-chaos benches as a child process (manager-child.ts, compiled once per bench run
// as deploy/build.mjs compiles the image's manager, so that its memory and CPU are what the image's would be, without
// swc and the TypeScript compiler it loads) against an API server given by --kubeconfig, and what the benches read of
// it: its log (UpdateMachine completions as the manager logs them, counted as tools/fuzz/manager-chaos counts them; the
// updater's host updates; error lines) and its /metrics (failed requests, reconcile errors).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { countCompletions } from '../fuzz/manager-chaos';
import { buildCompiledManager } from '../kube/manager-process';

const REPO_ROOT = resolve(__dirname, '../..');
/** <out>/tools/bench/manager-child.js once built (see compiledChild). */
let compiled: string | undefined;
/** SIGTERM, then SIGKILL after this long. */
const STOP_GRACE_MS = 10_000;

export interface ManagerErrorLine {
  time: number;
  msg: string;
}

/**
 * Builds manager-child.ts with deploy/build.mjs into a folder of its own under dist/ (so the repository's
 * node_modules resolve; removed when this process exits) the first time a manager starts; the path of its .js.
 */
function compiledChild(): string {
  if (compiled) return compiled;
  mkdirSync(join(REPO_ROOT, 'dist'), { recursive: true });
  const out = mkdtempSync(join(REPO_ROOT, 'dist', 'bench-manager-'));
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  process.stderr.write(`building the manager as the image does (deploy/build.mjs) into ${out}\n`);
  buildCompiledManager(out, join(__dirname, 'tsconfig.manager-child.json'));
  compiled = join(out, 'tools/bench/manager-child.js');
  return compiled;
}

export class BenchManagerProcess {
  private out = '';
  private carry = '';
  private err = '';
  private exit?: { code: number | null; signal: NodeJS.Signals | null };
  readonly exited: Promise<void>;
  /** Error-level and warning log lines, in order. */
  readonly errors: ManagerErrorLine[] = [];
  readonly warnings: ManagerErrorLine[] = [];
  /** Per Machine: host updates performed afresh, and idempotent repeats of a completed one. */
  readonly freshUpdates = new Map<string, number>();
  readonly repeatedUpdates = new Map<string, number>();

  private constructor(
    private readonly proc: ChildProcess,
    readonly metricsUrl: string,
    private readonly logFile: WriteStream,
  ) {
    this.exited = new Promise((r) =>
      proc.once('exit', (code, signal) => {
        this.exit = { code, signal };
        logFile.end();
        r();
      }),
    );
    proc.stderr!.on('data', (d) => {
      this.err = (this.err + String(d)).slice(-4000);
      logFile.write(d);
    });
    proc.stdout!.on('data', (d) => {
      logFile.write(d);
      this.onStdout(String(d));
    });
  }

  /**
   * Starts the manager with `flags`, its whole output going to `logPath`; resolves once it printed {"ready":true},
   * rejects if it exits or times out first.
   */
  static async start(
    flags: string[],
    metricsPort: number,
    readyTimeoutMs: number,
    logPath: string,
  ): Promise<BenchManagerProcess> {
    const proc = spawn(
      process.execPath,
      [compiledChild(), ...flags, `--metrics-bind-address=127.0.0.1:${metricsPort}`],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const m = new BenchManagerProcess(proc, `http://127.0.0.1:${metricsPort}/metrics`, createWriteStream(logPath));
    const deadline = Date.now() + readyTimeoutMs;
    while (!m.out.includes('{"ready":true}')) {
      if (m.exit)
        throw new Error(`the manager exited before it was ready (${m.exit.code ?? m.exit.signal}): ${m.stderrTail()}`);
      if (Date.now() > deadline) {
        await m.stop();
        throw new Error(`the manager was not ready within ${readyTimeoutMs / 1000} s: ${m.stderrTail()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return m;
  }

  /** Its process id (for its RSS and CPU time), undefined once it exited. */
  get pid(): number | undefined {
    return this.exit ? undefined : this.proc.pid;
  }

  get alive(): boolean {
    return !this.exit;
  }

  describeExit(): string {
    return this.exit ? `the manager exited (${this.exit.code ?? this.exit.signal}): ${this.stderrTail()}` : 'running';
  }

  stderrTail(): string {
    return this.err.trim().split('\n').slice(-3).join(' | ');
  }

  /** "<namespace>/<machine>" → UpdateMachine completions the manager logged. */
  completions(): Map<string, number> {
    return countCompletions(this.out);
  }

  /**
   * "<namespace>/<machine>" → in-place updates the manager finished as an orphan (UpdateMachine pending, no
   * update-in-progress annotation): what is left when a completion's first write (the Machine's annotation) was
   * committed but its answer lost, e.g. etcd's "request timed out" during a leader change.
   */
  orphanCleanups(): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of this.out.matchAll(/([\w.-]+\/[\w.-]+): UpdateMachine pending without/g))
      out.set(m[1], (out.get(m[1]) ?? 0) + 1);
    return out;
  }

  private onStdout(chunk: string): void {
    const lines = (this.carry + chunk).split('\n');
    this.carry = lines.pop()!;
    for (const line of lines) {
      if (/UpdateMachine hook completed|UpdateMachine pending without/.test(line) || line.startsWith('{"ready"'))
        this.out += `${line}\n`;
      else if (line.startsWith('{"updater"')) {
        const u = JSON.parse(line) as { machine: string; fresh: boolean };
        const counts = u.fresh ? this.freshUpdates : this.repeatedUpdates;
        counts.set(u.machine, (counts.get(u.machine) ?? 0) + 1);
      } else if (/^\{"level":"(error|fatal|warn)"/.test(line)) {
        const to = line.startsWith('{"level":"warn"') ? this.warnings : this.errors;
        try {
          const j = JSON.parse(line) as { time?: string; msg?: string };
          to.push({ time: j.time ? Date.parse(j.time) : Date.now(), msg: String(j.msg ?? '') });
        } catch {
          to.push({ time: Date.now(), msg: line });
        }
      }
    }
  }

  /** Its /metrics now (Prometheus text). */
  metricsText(): Promise<string> {
    return new Promise<string>((resolveText, reject) => {
      const req = request(this.metricsUrl, { timeout: 5000 }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          res.statusCode === 200 ? resolveText(body) : reject(new Error(`metrics: HTTP ${res.statusCode}`)),
        );
      });
      req.on('timeout', () => req.destroy(new Error('metrics: no answer within 5 s')));
      req.on('error', reject);
      req.end();
    });
  }

  /** The manager's counters now: rest_client_requests_total by code and controller_runtime_reconcile_errors_total by controller. */
  async metrics(): Promise<{ requestsByCode: Map<string, number>; reconcileErrors: Map<string, number> }> {
    const text = await this.metricsText();
    const requestsByCode = new Map<string, number>();
    const reconcileErrors = new Map<string, number>();
    for (const line of text.split('\n')) {
      const req = /^rest_client_requests_total\{([^}]*)\} (\S+)$/.exec(line);
      const code = req && /code="([^"]*)"/.exec(req[1]);
      if (req && code) requestsByCode.set(code[1], (requestsByCode.get(code[1]) ?? 0) + Number(req[2]));
      const rec = /^controller_runtime_reconcile_errors_total\{controller="([^"]*)"\} (\S+)$/.exec(line);
      if (rec) reconcileErrors.set(rec[1], Number(rec[2]));
    }
    return { requestsByCode, reconcileErrors };
  }

  /** SIGTERM, SIGKILL after a grace period; resolves once it is gone. */
  async stop(): Promise<void> {
    if (this.exit) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** For an exit hook: no waiting. */
  killNow(): void {
    if (!this.exit) this.proc.kill('SIGKILL');
  }
}
