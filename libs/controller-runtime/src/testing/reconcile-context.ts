// Test helper: the context a Controller gives each reconcile, for tests that call reconcile() directly.
import { Logger, type LoggerService } from '@nestjs/common';
import { FieldLogger, reconcileContext } from '../controller/logger';
import type { LogFields, ReconcileContext, Request } from '../controller/types';

export interface LoggedLine {
  level: 'log' | 'warn' | 'error' | 'debug';
  message: string;
  fields: LogFields;
}

export interface TestReconcileContextOptions {
  /** Abort it to play a stopping controller; default: never aborted. */
  signal?: AbortSignal;
  /** Collects the reconcile's log lines here instead of writing them to Nest's logger. */
  lines?: LoggedLine[];
  /** Controller name bound on the logger (default "test"). */
  controller?: string;
  /** Kind of the reconciled object, bound as upstream does (default "Object"). */
  kind?: string;
}

/** A fresh ReconcileContext for `req` (a new reconcileID each call), bound as the Controller binds it. */
export function testReconcileContext(
  req: Request = { name: 'test' },
  opts: TestReconcileContextOptions = {},
): ReconcileContext {
  const controller = opts.controller ?? 'test';
  const sink: LoggerService = opts.lines ? collecting(opts.lines) : new Logger(`Controller(${controller})`);
  const signal = opts.signal ?? new AbortController().signal;
  return reconcileContext(new FieldLogger(sink, { controller }), opts.kind ?? 'Object', req, signal);
}

function collecting(lines: LoggedLine[]): LoggerService {
  const push =
    (level: LoggedLine['level']) =>
    (message: unknown, fields?: unknown): void =>
      void lines.push({ level, message: String(message), fields: (fields ?? {}) as LogFields });
  return { log: push('log'), warn: push('warn'), error: push('error'), debug: push('debug') };
}
