import { EventEmitter } from 'node:events';
import { JsonLogger } from '../logging/logger';
import { ExitReporting, type ProcessLike } from './exit-reporting';

/** A process stand-in: exit() emits 'exit' like Node's and records the code instead of ending the test run. */
class FakeProcess extends EventEmitter implements ProcessLike {
  exitCode?: number;
  exits: number[] = [];
  exit = ((code?: number) => {
    const c = code ?? this.exitCode ?? 0;
    this.exits.push(c);
    this.emit('exit', c);
    return undefined as never;
  }) as ProcessLike['exit'];
}

function setup(shutdown?: () => Promise<void>) {
  const lines: Record<string, unknown>[] = [];
  const log = JsonLogger.create({ destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  const proc = new FakeProcess();
  const reporting = new ExitReporting({ log, process: proc, shutdown }).install();
  const last = () => lines.filter((l) => l.msg === 'manager exiting');
  return { lines, proc, reporting, last };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('ExitReporting', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s shuts down gracefully, exits 0 and says so', async (signal) => {
    let closed = false;
    const { lines, proc, last } = setup(async () => void (closed = true));
    proc.emit(signal);
    await settle();
    expect(closed).toBe(true);
    expect(proc.exits).toEqual([0]);
    expect(lines[0]).toMatchObject({ msg: 'received signal, shutting down', signal });
    expect(last()).toEqual([
      expect.objectContaining({ level: 'info', code: 0, signal, reason: `received ${signal}; shut down gracefully` }),
    ]);
  });

  it('a second signal during shutdown exits 1 at once; a failing shutdown exits 1 with its error', async () => {
    const a = setup(() => new Promise(() => undefined)); // never finishes
    a.proc.emit('SIGTERM');
    await settle();
    expect(a.proc.exits).toEqual([]);
    a.proc.emit('SIGINT');
    expect(a.proc.exits).toEqual([1]);
    expect(a.last()).toEqual([
      expect.objectContaining({
        level: 'error',
        code: 1,
        reason: 'received SIGINT again during shutdown; exiting without waiting',
      }),
    ]);

    const b = setup(async () => {
      throw new Error('embedded API server would not stop');
    });
    b.proc.emit('SIGTERM');
    await settle();
    expect(b.proc.exits).toEqual([1]);
    expect(b.last()).toEqual([
      expect.objectContaining({
        code: 1,
        reason: 'received SIGTERM; shut down gracefully; shutdown failed: embedded API server would not stop',
      }),
    ]);
  });

  it('an uncaught exception or unhandled rejection exits 1 with the stack', () => {
    const a = setup();
    a.proc.emit('uncaughtException', new Error('boom'));
    expect(a.proc.exits).toEqual([1]);
    expect(a.last()).toEqual([
      expect.objectContaining({
        level: 'error',
        code: 1,
        reason: 'uncaught exception: boom',
        stack: expect.stringContaining('Error: boom'),
      }),
    ]);
    const b = setup();
    b.proc.emit('unhandledRejection', 'not an error');
    expect(b.last()).toEqual([
      expect.objectContaining({ code: 1, reason: 'unhandled promise rejection: not an error' }),
    ]);
  });

  it('exit(code, reason) records the first reason; a bare process.exit() is reported with its caller', () => {
    const a = setup();
    a.reporting.exit(1, 'ExtensionConfig registry warm-up failed');
    expect(a.last()).toEqual([expect.objectContaining({ code: 1, reason: 'ExtensionConfig registry warm-up failed' })]);

    const b = setup();
    (function somewhereDeepInside() {
      b.proc.exit(3);
    })();
    expect(b.proc.exits).toEqual([3]);
    const [rec] = b.last();
    expect(rec).toMatchObject({ level: 'error', code: 3, reason: 'process.exit() called without a reported reason' });
    expect(String((rec.caller as string[])[0])).toContain('exit-reporting.spec.ts'); // the caller's frame, not the hook's
  });

  it('an exit nobody explained (the event loop ran dry) still gets its last line', () => {
    const { proc, last } = setup();
    proc.emit('exit', 0);
    expect(last()).toEqual([
      expect.objectContaining({
        level: 'info',
        code: 0,
        reason: expect.stringMatching(/^the event loop has nothing left to run/),
      }),
    ]);
  });

  it('uninstall removes every hook', () => {
    const { proc, reporting } = setup();
    const exit = proc.exit;
    reporting.uninstall();
    for (const e of ['SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection', 'exit'])
      expect(proc.listenerCount(e)).toBe(0);
    expect(proc.exit).not.toBe(exit);
  });
});
