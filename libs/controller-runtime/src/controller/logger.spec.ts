import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { ApiError } from '../client/errors';
import {
  FieldLogger,
  STRUCTURED_LOGGER,
  controllerLogger,
  isConflictError,
  logReconcileError,
  reconcileContext,
} from './logger';

function recording() {
  const calls: Array<{ level: string; args: unknown[] }> = [];
  const rec =
    (level: string) =>
    (...args: unknown[]) =>
      void calls.push({ level, args });
  const sink: LoggerService = { log: rec('log'), warn: rec('warn'), error: rec('error'), debug: rec('debug') };
  return { sink, calls };
}

/** A 409 as the client raises it for a stale resourceVersion. */
const conflict = () =>
  new ApiError(409, {
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    reason: 'Conflict',
    code: 409,
    message:
      'Operation cannot be fulfilled on machines.cluster.x-k8s.io "m1": the object has been modified; please apply your changes to the latest version and try again',
  });

describe('FieldLogger', () => {
  it('passes its bound fields, merged with the call fields, as one object parameter', () => {
    const { sink, calls } = recording();
    const log = new FieldLogger(sink, { controller: 'c' }).withValues({ step: 'a' });
    log.log('hello', { n: 1 });
    log.warn('careful');
    log.error('bad', { step: 'b' });
    log.debug('detail');
    expect(calls).toEqual([
      { level: 'log', args: ['hello', { controller: 'c', step: 'a', n: 1 }] },
      { level: 'warn', args: ['careful', { controller: 'c', step: 'a' }] },
      { level: 'error', args: ['bad', { controller: 'c', step: 'b' }] },
      { level: 'debug', args: ['detail', { controller: 'c', step: 'a' }] },
    ]);
  });

  describe('through a Nest Logger', () => {
    afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

    it("renders the fields into the message when the app's logger would print an object on a line of its own", () => {
      const { sink, calls } = recording();
      Logger.overrideLogger(sink); // e.g. Nest's ConsoleLogger: an object parameter becomes an "Object(7) {...}" line
      controllerLogger('machine', { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' }).error(
        'Reconciler error',
        {
          error: 'boom',
        },
      );
      expect(calls).toEqual([
        {
          level: 'error',
          args: [
            'Reconciler error controller="machine" controllerGroup="cluster.x-k8s.io" controllerKind="Machine" error="boom"',
            undefined, // Nest's Logger.error: the (absent) stack, then the context
            'Controller(machine)',
          ],
        },
      ]);
    });

    it('passes the fields as an object when the app logger writes them as structured fields', () => {
      const { sink, calls } = recording();
      Logger.overrideLogger(Object.assign(sink, { [STRUCTURED_LOGGER]: true }));
      controllerLogger('machine', { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' }).log('hi');
      expect(calls).toEqual([
        {
          level: 'log',
          args: [
            'hi',
            { controller: 'machine', controllerGroup: 'cluster.x-k8s.io', controllerKind: 'Machine' },
            'Controller(machine)',
          ],
        },
      ]);
    });
  });
});

describe('reconcileContext', () => {
  it('binds the object under its kind and as namespace/name, a fresh reconcileID, and passes the signal on', () => {
    const { sink } = recording();
    const base = new FieldLogger(sink, { controller: 'machineset' });
    const stop = new AbortController();
    const a = reconcileContext(base, 'MachineSet', { namespace: 'ns', name: 'ms-1' }, stop.signal);
    const b = reconcileContext(base, 'MachineSet', { namespace: 'ns', name: 'ms-1' }, stop.signal);
    expect(a.log.fields).toEqual({
      controller: 'machineset',
      MachineSet: { namespace: 'ns', name: 'ms-1' },
      namespace: 'ns',
      name: 'ms-1',
      reconcileID: a.reconcileID,
    });
    expect(a.reconcileID).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.reconcileID).not.toBe(b.reconcileID);
    expect(a.signal).toBe(stop.signal);
  });

  it('a cluster-scoped object: klog.KRef without namespace, the namespace field empty (pkg/builder LogConstructor)', () => {
    const { sink } = recording();
    const ctx = reconcileContext(
      new FieldLogger(sink, {}),
      'ExtensionConfig',
      { name: 'ext' },
      new AbortController().signal,
    );
    expect(ctx.log.fields).toEqual({
      ExtensionConfig: { name: 'ext' },
      namespace: '',
      name: 'ext',
      reconcileID: ctx.reconcileID,
    });
  });
});

describe('logReconcileError', () => {
  const bound = { controller: 'machine', reconcileID: 'r1' };

  it('logs "Reconciler error" at error with the error message under `err` (reconcileHandler)', () => {
    const { sink, calls } = recording();
    logReconcileError(new FieldLogger(sink, bound), new Error('Cluster default/c1 not found'));
    logReconcileError(new FieldLogger(sink, bound), 'a thrown string');
    expect(calls).toEqual([
      { level: 'error', args: ['Reconciler error', { ...bound, err: 'Cluster default/c1 not found' }] },
      { level: 'error', args: ['Reconciler error', { ...bound, err: 'a thrown string' }] },
    ]);
  });

  it('logs a conflict, also wrapped or aggregated, at info with the same message and fields', () => {
    const { sink, calls } = recording();
    const log = new FieldLogger(sink, bound);
    logReconcileError(log, conflict());
    logReconcileError(log, new Error('failed to patch Machine', { cause: conflict() }));
    logReconcileError(log, new AggregateError([conflict(), conflict()], 'two conflicts'));
    expect(calls.map((c) => c.level)).toEqual(['log', 'log', 'log']);
    expect(calls[0].args).toEqual(['Reconciler error', { ...bound, err: conflict().message }]);
    expect(calls[1].args).toEqual(['Reconciler error', { ...bound, err: 'failed to patch Machine' }]);
  });

  it('keeps other API errors, and an aggregate with anything but conflicts, at error', () => {
    const { sink, calls } = recording();
    const log = new FieldLogger(sink, bound);
    const notFound = new ApiError(404, { message: 'not found', reason: 'NotFound', code: 404 });
    const alreadyExists = new ApiError(409, { message: 'exists', reason: 'AlreadyExists', code: 409 });
    logReconcileError(log, notFound);
    logReconcileError(log, new AggregateError([conflict(), new Error('webhook down')], 'mixed'));
    logReconcileError(log, new AggregateError([], 'empty'));
    logReconcileError(log, alreadyExists);
    expect(calls.map((c) => c.level)).toEqual(['error', 'error', 'error', 'error']);
  });

  it('tells a conflict as apierrors.IsConflict does: reason Conflict, or a 409 of no known reason', () => {
    expect(isConflictError(conflict())).toBe(true);
    expect(isConflictError(new ApiError(409, { message: 'x' }))).toBe(true);
    expect(isConflictError(new ApiError(409, { message: 'x', reason: 'AlreadyExists' }))).toBe(false);
    expect(isConflictError(new ApiError(500, { message: 'x', reason: 'InternalError' }))).toBe(false);
    expect(isConflictError(new Error('the object has been modified'))).toBe(false);
    expect(isConflictError(undefined)).toBe(false);
  });
});
