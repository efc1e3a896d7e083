import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import { STRUCTURED_LOGGER } from '@capi/controller-runtime';
import type { LogLevel } from '../config/config';
import { RepeatFilter } from './repeats';

/** Structured fields controllers attach to their log lines (controller-runtime's names). */
export interface LogFields {
  controller?: string;
  reconcileID?: string;
  /** The reconciled object, e.g. { namespace, name } or "ns/name". */
  object?: { namespace?: string; name: string } | string;
  [key: string]: unknown;
}

export const LOGGER = Symbol.for('capi.Logger');

export interface JsonLoggerOptions {
  level?: LogLevel;
  format?: 'json' | 'text';
  /** Where lines go (default stderr); tests pass a collecting stream. */
  destination?: DestinationStream;
  /** Identical records within this window are printed once, then summarised (repeats.ts); 0 prints every one. */
  repeatWindowMs?: number;
}

/** Default window for folding identical records. */
export const DEFAULT_REPEAT_WINDOW_MS = 1000;

/**
 * Nest LoggerService writing one JSON object a line (pino). Nest's trailing `context` argument becomes the
 * `logger` field; an object parameter (a controller's reconcile fields: controller, controllerGroup, controllerKind,
 * `<Kind>`, namespace, name, reconcileID, error) becomes top-level keys of the same record, as controller-runtime's
 * zap logger writes logr's key/value pairs; `child()` binds fields.
 */
export class JsonLogger implements LoggerService {
  /** Controllers' FieldLogger passes fields as an object parameter (libs/controller-runtime/src/controller/logger.ts). */
  readonly [STRUCTURED_LOGGER] = true;

  private constructor(private readonly pino: Pino) {}

  static create(opts: JsonLoggerOptions = {}): JsonLogger {
    const dest = opts.destination ?? pino.destination({ dest: 2, sync: true });
    const rendered = opts.format === 'text' ? textStream(dest) : dest;
    const windowMs = opts.repeatWindowMs ?? DEFAULT_REPEAT_WINDOW_MS;
    const out = windowMs > 0 ? new RepeatFilter(rendered, { windowMs }) : rendered;
    return new JsonLogger(
      pino(
        {
          level: opts.level ?? 'info',
          base: undefined,
          messageKey: 'msg',
          timestamp: pino.stdTimeFunctions.isoTime,
          formatters: { level: (label) => ({ level: label }) },
        },
        out,
      ),
    );
  }

  child(fields: LogFields): JsonLogger {
    return new JsonLogger(this.pino.child(fields));
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
  /** Log with explicit structured fields. */
  info(msg: string, fields: LogFields = {}): void {
    this.pino.info(fields, msg);
  }

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    rest: unknown[],
  ): void {
    // Nest calls (message, ...params, context); for error() a stack string may precede the context.
    const params = [...rest];
    const fields: Record<string, unknown> = {};
    if (params.length > 0 && typeof params[params.length - 1] === 'string') fields.logger = params.pop();
    for (const p of params) {
      if (p instanceof Error) fields.err = p;
      else if (typeof p === 'string') fields.stack = p;
      else if (p && typeof p === 'object') Object.assign(fields, p);
    }
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, message.message);
    } else if (message && typeof message === 'object') {
      this.pino[level]({ ...fields, ...message });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

/**
 * Renders pino's JSON lines as "time LEVEL [logger] msg key=value ..." for humans (a folded burst's summary as
 * "msg (repeated N times) ..."). Values are JSON: the object under its Kind reads `Machine={"name":"m1",...}`.
 */
function textStream(dest: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line);
      } catch {
        return dest.write(line);
      }
      const { time, level, msg, logger, repeated, ...rest } = rec;
      const kv = Object.entries(rest).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      const said = typeof repeated === 'number' ? `${msg} (repeated ${repeated} times)` : msg;
      const head = [time, String(level).toUpperCase(), logger ? `[${logger}]` : undefined, said].filter(
        (x) => x !== undefined && x !== '',
      );
      return dest.write(`${[...head, ...kv].join(' ')}\n`);
    },
  };
}

/** Nest's own start-up contexts: their lines ("X dependencies initialized") are debug detail for an operator. */
const NEST_STARTUP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'NestApplicationContext']);

/**
 * The logger Nest uses while the application context is created, before the LOGGER provider exists. Nest's start-up
 * lines go to debug; its ExceptionHandler line for a failing provider too, because main reports that failure as one
 * `error:` line and the exit record.
 */
export class NestStartupLogger implements LoggerService {
  readonly [STRUCTURED_LOGGER] = true;

  constructor(private readonly out: JsonLogger) {}

  private demoted(rest: unknown[]): boolean {
    const context = rest[rest.length - 1];
    return typeof context === 'string' && (NEST_STARTUP_CONTEXTS.has(context) || context === 'ExceptionHandler');
  }
  log(message: unknown, ...rest: unknown[]): void {
    if (this.demoted(rest)) this.out.debug(message, ...rest);
    else this.out.log(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    if (this.demoted(rest)) this.out.debug(message, ...rest);
    else this.out.error(message, ...rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.out.warn(message, ...rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.out.debug(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.out.verbose(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.out.fatal(message, ...rest);
  }
}
