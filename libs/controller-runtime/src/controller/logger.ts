import { randomUUID } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import { groupOf } from '@capi/apimachinery';
import type { GroupVersionKind, LogFields, ReconcileContext, ReconcileLogger, Request } from './types';

/**
 * ReconcileLogger over a Nest LoggerService: the bound fields travel as one object parameter, which the manager's
 * JsonLogger (apps/manager/src/logging/logger.ts) writes as JSON keys and Nest's console logger prints after the line.
 */
export class FieldLogger implements ReconcileLogger {
  constructor(
    private readonly sink: LoggerService,
    readonly fields: Readonly<LogFields> = {},
  ) {}

  log(message: string, fields?: LogFields): void {
    this.sink.log(message, this.merged(fields));
  }
  warn(message: string, fields?: LogFields): void {
    this.sink.warn(message, this.merged(fields));
  }
  error(message: string, fields?: LogFields): void {
    this.sink.error(message, this.merged(fields));
  }
  debug(message: string, fields?: LogFields): void {
    this.sink.debug?.(message, this.merged(fields));
  }
  withValues(fields: LogFields): ReconcileLogger {
    return new FieldLogger(this.sink, this.merged(fields));
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
 * The context of one reconcile (reconcileHandler in pkg/internal/controller/controller.go): the object under its kind
 * (klog.KRef) and as namespace/name, and a fresh reconcileID.
 */
export function reconcileContext(
  log: ReconcileLogger,
  kind: string,
  req: Request,
  signal: AbortSignal,
): ReconcileContext {
  const reconcileID = randomUUID();
  const ref = req.namespace ? { name: req.name, namespace: req.namespace } : { name: req.name };
  return {
    signal,
    reconcileID,
    log: log.withValues({ [kind]: ref, ...ref, reconcileID }),
  };
}
