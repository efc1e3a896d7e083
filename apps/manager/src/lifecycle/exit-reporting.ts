// Every way the manager process ends reports itself: a signal (graceful shutdown, exit 0), an uncaught exception or
// unhandled rejection (stack, exit 1), a start-up failure (its cause, exit 1), an exit request from inside (the
// registry warm-up) and, as the last word from process.on('exit'), the exit code with the reason recorded for it.
// An exit nobody explained (a bare process.exit() somewhere, or the event loop running dry) still gets a line, with
// the caller's stack for process.exit, so an "unexplained exit" can be traced. Only SIGKILL (and OOM kills) go
// unreported; a parent (tools/scripts/start.mjs) reports those.
import { JsonLogger } from '../logging/logger';

/** Signals that shut the manager down gracefully (controller-runtime handles SIGINT/SIGTERM; SIGHUP ends a closed terminal's session). */
export const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

/** Exit codes of the manager process. */
export const EXIT_CODES = { ok: 0, failure: 1, badFlags: 2 } as const;

export interface ExitReason {
  code: number;
  reason: string;
  /** Extra fields for the last line (signal, error stack, caller's stack). */
  fields?: Record<string, unknown>;
}

// Listeners of different events take different arguments.
type Listener = (...args: any[]) => void;

/** The part of `process` exit reporting hooks into (a fake in unit tests). */
export interface ProcessLike {
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  exit(code?: number): never;
  exitCode?: number | string | null;
}

export interface ExitReportingOptions {
  /** Where the lines go (default: a JSON logger on stderr, synchronous so lines written in 'exit' are not lost). */
  log?: JsonLogger;
  process?: ProcessLike;
  /** Graceful shutdown run on the first signal (closing the Nest app); set later with setShutdown(). */
  shutdown?: () => Promise<void>;
}

/**
 * Installs the process hooks. `exit(code, reason)` is the one way code inside the manager ends the process; the
 * reason is logged once, by the 'exit' hook.
 */
export class ExitReporting {
  private readonly log: JsonLogger;
  private readonly proc: ProcessLike;
  private shutdownFn?: () => Promise<void>;
  private reason?: ExitReason;
  private shuttingDown = false;
  private readonly originalExit: (code?: number) => never;
  private readonly listeners: Array<[string, Listener]> = [];
  private installed = false;

  constructor(opts: ExitReportingOptions = {}) {
    this.log = opts.log ?? JsonLogger.create({ level: 'info' });
    this.proc = opts.process ?? (process as unknown as ProcessLike);
    this.shutdownFn = opts.shutdown;
    this.originalExit = this.proc.exit.bind(this.proc);
  }

  install(): this {
    if (this.installed) return this;
    this.installed = true;
    for (const signal of SHUTDOWN_SIGNALS) this.listen(signal, () => void this.onSignal(signal));
    this.listen('uncaughtException', (error: Error) => this.onFatal('uncaught exception', error));
    this.listen('unhandledRejection', (error: unknown) => this.onFatal('unhandled promise rejection', error));
    this.listen('exit', (code: number) => this.onExit(code));
    // A process.exit() from code that did not go through exit(): keep its caller's stack for the last line.
    this.proc.exit = ((code?: number) => {
      if (!this.reason) {
        const c = code ?? Number(this.proc.exitCode ?? 0);
        this.reason = {
          code: c,
          reason: 'process.exit() called without a reported reason',
          fields: {
            caller: new Error('process.exit').stack
              ?.split('\n')
              .slice(2, 8)
              .map((l) => l.trim()),
          },
        };
      }
      return this.originalExit(code);
    }) as ProcessLike['exit'];
    return this;
  }

  /** Removes the hooks (tests). */
  uninstall(): void {
    for (const [event, fn] of this.listeners.splice(0)) this.proc.off(event, fn);
    this.proc.exit = this.originalExit;
    this.installed = false;
  }

  /** What a signal runs before exiting (closing the app: controllers, endpoints, embedded API server). */
  setShutdown(shutdown: () => Promise<void>): void {
    this.shutdownFn = shutdown;
  }

  /** Records why the process ends and ends it; the first reason wins. */
  exit(code: number, reason: string, fields?: Record<string, unknown>): never {
    this.reason ??= { code, reason, fields };
    return this.originalExit(this.reason.code);
  }

  /** Stops gracefully (shutdown, then exit with `code`); a failing shutdown exits 1 with its error. */
  async shutdownAndExit(code: number, reason: string, fields?: Record<string, unknown>): Promise<never> {
    this.shuttingDown = true;
    try {
      await this.shutdownFn?.();
    } catch (e) {
      return this.exit(EXIT_CODES.failure, `${reason}; shutdown failed: ${errorMessage(e)}`, {
        ...fields,
        stack: errorStack(e),
      });
    }
    return this.exit(code, reason, fields);
  }

  /** The reason recorded so far (tests). */
  recorded(): ExitReason | undefined {
    return this.reason;
  }

  private listen(event: string, fn: Listener): void {
    this.proc.on(event, fn);
    this.listeners.push([event, fn]);
  }

  private async onSignal(signal: ShutdownSignal): Promise<void> {
    if (this.shuttingDown) {
      // As controller-runtime's signal handler: a second signal exits at once.
      this.exit(EXIT_CODES.failure, `received ${signal} again during shutdown; exiting without waiting`, { signal });
      return;
    }
    this.log.info('received signal, shutting down', { logger: 'manager', signal });
    await this.shutdownAndExit(EXIT_CODES.ok, `received ${signal}; shut down gracefully`, { signal });
  }

  private onFatal(what: string, error: unknown): void {
    this.exit(EXIT_CODES.failure, `${what}: ${errorMessage(error)}`, { stack: errorStack(error) });
  }

  private onExit(code: number): void {
    const reason = this.reason ?? {
      code,
      reason: 'the event loop has nothing left to run (no server, timer or watch is open)',
    };
    const fields = { logger: 'manager', code, reason: reason.reason, ...reason.fields };
    if (code === 0) this.log.info('manager exiting', fields);
    else this.log.error('manager exiting', fields);
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function errorStack(e: unknown): string | undefined {
  return e instanceof Error ? e.stack : undefined;
}
