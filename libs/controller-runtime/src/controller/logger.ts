import { randomUUID } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import { groupOf } from '@capi/apimachinery';
import { isApiError, isConflict } from '../client/errors';
import type {
  ControllerHandle,
  GroupVersionKind,
  LogFields,
  ReconcileContext,
  ReconcileLogger,
  Request,
} from './types';

/**
 * Marks a Nest LoggerService that writes an object parameter as structured fields of the same record (the manager's
 * JsonLogger, apps/manager/src/logging/logger.ts). Other loggers (Nest's ConsoleLogger) print an object parameter on
 * a line of its own, so the fields are rendered into the message instead: one line per record either way.
 */
export const STRUCTURED_LOGGER = Symbol.for('capi.StructuredLogger');

/** Reads the logger a Nest `Logger` instance writes to (Nest keeps it in a protected static). */
class NestLoggerTarget extends Logger {
  static current(): LoggerService | undefined {
    return Logger.staticInstanceRef;
  }
}

function acceptsFields(sink: LoggerService): boolean {
  // A plain Nest Logger forwards to the app's logger (app.useLogger); any other sink was handed in on purpose and
  // gets the fields as an object.
  if (!(sink instanceof Logger && sink.constructor === Logger)) return true;
  const target = NestLoggerTarget.current();
  return !!target && (target as { [STRUCTURED_LOGGER]?: boolean })[STRUCTURED_LOGGER] === true;
}

/** `msg key="value" Kind={"name":...}`: logr's key/value pairs as the text format prints them. */
export function inlineFields(message: string, fields: LogFields): string {
  const kv = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return kv.length ? `${message} ${kv.join(' ')}` : message;
}

/**
 * ReconcileLogger over a Nest LoggerService: the bound fields travel as one object parameter, which the manager's
 * JsonLogger writes as JSON keys; for a logger without STRUCTURED_LOGGER they are appended to the message.
 */
export class FieldLogger implements ReconcileLogger {
  constructor(
    private readonly sink: LoggerService,
    readonly fields: Readonly<LogFields> = {},
  ) {}

  log(message: string, fields?: LogFields): void {
    this.emit('log', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.emit('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.emit('error', message, fields);
  }
  debug(message: string, fields?: LogFields): void {
    this.emit('debug', message, fields);
  }
  withValues(fields: LogFields): ReconcileLogger {
    return new FieldLogger(this.sink, this.merged(fields));
  }

  private emit(level: 'log' | 'warn' | 'error' | 'debug', message: string, fields: LogFields | undefined): void {
    const write = this.sink[level]?.bind(this.sink);
    if (!write) return;
    const all = this.merged(fields);
    if (acceptsFields(this.sink)) write(message, all);
    else write(inlineFields(message, all));
  }

  private merged(fields: LogFields | undefined): LogFields {
    return fields ? { ...this.fields, ...fields } : { ...this.fields };
  }
}

/**
 * A controller's logger: controller-runtime's builder binds controller, controllerGroup and controllerKind
 * (pkg/builder/controller.go, the LogConstructor). Nest context `Controller(<name>)`, as the controller logged before.
 */
export function controllerLogger(name: string, forKind: GroupVersionKind): ReconcileLogger {
  return new FieldLogger(new Logger(`Controller(${name})`), {
    controller: name,
    controllerGroup: groupOf(forKind.apiVersion),
    controllerKind: forKind.kind,
  });
}

/**
 * The context of one reconcile (reconcileHandler in pkg/internal/controller/controller.go, with the builder's
 * LogConstructor): the object under its kind as klog.KRef (`namespace` omitted when empty), then `namespace` (empty for
 * a cluster-scoped object, as upstream) and `name`, and a fresh reconcileID.
 */
export function reconcileContext(
  log: ReconcileLogger,
  kind: string,
  req: Request,
  signal: AbortSignal,
  controller?: ControllerHandle,
): ReconcileContext {
  const reconcileID = randomUUID();
  const ref = req.namespace ? { name: req.name, namespace: req.namespace } : { name: req.name };
  return {
    signal,
    reconcileID,
    log: log.withValues({ [kind]: ref, namespace: req.namespace ?? '', name: req.name, reconcileID }),
    ...(controller ? { controller } : {}),
  };
}

/** knownReasons of k8s.io/apimachinery/pkg/api/errors/errors.go: a 409 with one of these is not a conflict. */
const KNOWN_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StorageReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/**
 * Whether a reconcile failed on an optimistic-concurrency conflict (409: "the object has been modified"), also when
 * wrapped (`cause`) or the only kind of error in an AggregateError. As apierrors.IsConflict: reason Conflict, or a 409
 * whose reason is not a known one (AlreadyExists is a 409 but not a conflict).
 */
export function isConflictError(e: unknown, depth = 0): boolean {
  if (depth > 10 || !e) return false;
  if (isApiError(e)) return e.reason === 'Conflict' || (isConflict(e) && !KNOWN_REASONS.has(e.reason ?? ''));
  if (e instanceof AggregateError)
    return e.errors.length > 0 && e.errors.every((inner) => isConflictError(inner, depth + 1));
  return e instanceof Error && isConflictError(e.cause, depth + 1);
}

/** The error as zapr writes it under `error`: its message (err.Error()). */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The line of a failed reconcile: controller-runtime's `log.Error(err, "Reconciler error")` (reconcileHandler), the
 * error under `error` (zapr's key) and the reconcile's fields bound on `log`.
 *
 * A conflict is the same line at info. Upstream Cluster API treats conflicts as the expected cost of optimistic
 * concurrency, not as failures: util/patch/patch.go retries condition patches on apierrors.IsConflict without an
 * error, the ClusterResourceSet reconciler logs a binding conflict with log.Info and requeues
 * (core/reconcilers/clusterresourceset/clusterresourceset_controller.go), the MachineDeployment reconciler skips a
 * conflict on a deleting MachineSet. The retry (rate-limited requeue) and the error metrics are unchanged; only
 * error-level alerting no longer fires on a write that lost a race and succeeds on the next reconcile.
 */
export function logReconcileError(log: ReconcileLogger, error: unknown): void {
  // `err`: the key Cluster API's JSON logs use (k8s.io/component-base/logs/json sets zapr.ErrorKey("err")).
  const fields = { err: errorText(error) };
  if (isConflictError(error)) log.log('Reconciler error', fields);
  else log.error('Reconciler error', fields);
}
