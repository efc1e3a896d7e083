// Every exit of the real manager process explains itself: the last stderr record is "manager exiting" with the exit
// code and the reason (an unexplained exit of the whole process tree was seen once, with nothing logged).
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { finish, logRecords, repoRoot, runManager, waitForLog } from '../support/manager-process';

// Each spawn compiles main.ts with swc; allow for two busy shared cores.
jest.setTimeout(30_000);

/** Smallest manager that starts: embedded API server in memory, no controllers, endpoints on free ports. */
const MINIMAL = [
  '--controllers=',
  '--data-dir=',
  '--embedded-provider=false',
  '--metrics-bind-address=127.0.0.1:0',
  '--health-addr=127.0.0.1:0',
];
const CRASH_PRELOAD = join(repoRoot, 'apps/manager/test/support/crash-preload.ts');

const lastRecord = (stderr: string) => logRecords(stderr).pop();

describe('manager process exit reporting', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s: graceful shutdown, exit 0, the signal named',
    async (signal) => {
      const child = runManager(MINIMAL);
      const done = finish(child);
      await waitForLog(child, 'manager started');
      child.kill(signal);
      const r = await done;
      expect(r.code).toBe(0);
      const records = logRecords(r.stderr);
      expect(records).toContainEqual(expect.objectContaining({ msg: 'received signal, shutting down', signal }));
      expect(records.pop()).toMatchObject({
        level: 'info',
        msg: 'manager exiting',
        code: 0,
        signal,
        reason: `received ${signal}; shut down gracefully`,
      });
    },
  );

  it.each([
    ['exception', 'uncaught exception: test crash: uncaught exception'],
    ['rejection', 'unhandled promise rejection: test crash: unhandled rejection'],
  ])('an %s exits 1 with the error and its stack', async (how, reason) => {
    const child = runManager(MINIMAL, { preload: [CRASH_PRELOAD], env: { CAPI_TEST_CRASH: how } });
    const done = finish(child);
    await waitForLog(child, 'manager started');
    child.kill('SIGUSR2');
    const r = await done;
    expect(r.code).toBe(1);
    expect(lastRecord(r.stderr)).toMatchObject({
      level: 'error',
      msg: 'manager exiting',
      code: 1,
      reason,
      stack: expect.stringContaining('crash-preload.ts'),
    });
  });

  it('a process.exit() from code that gave no reason is reported with its code and caller', async () => {
    const child = runManager(MINIMAL, { preload: [CRASH_PRELOAD], env: { CAPI_TEST_CRASH: 'exit' } });
    const done = finish(child);
    await waitForLog(child, 'manager started');
    child.kill('SIGUSR2');
    const r = await done;
    expect(r.code).toBe(7);
    const last = lastRecord(r.stderr)!;
    expect(last).toMatchObject({
      level: 'error',
      msg: 'manager exiting',
      code: 7,
      reason: 'process.exit() called without a reported reason',
    });
    expect(String(last.caller)).toContain('crash-preload.ts');
  });

  it('a fatal start-up error names its cause, then exits 1 with it', async () => {
    const r = await finish(
      runManager([
        '--kubeconfig=/nonexistent/kubeconfig',
        '--controllers=mhc',
        '--metrics-bind-address=0',
        '--health-addr=0',
      ]),
    );
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('error: '))).toEqual([
      'error: invalid --kubeconfig: cannot read /nonexistent/kubeconfig: ENOENT',
    ]);
    expect(lastRecord(r.stderr)).toMatchObject({
      msg: 'manager exiting',
      code: 1,
      reason: 'start-up failed: invalid --kubeconfig: cannot read /nonexistent/kubeconfig: ENOENT',
    });
  });
});

describe('manager process: a busy endpoint port', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => busy.close(() => r())));

  it.each([
    ['--metrics-bind-address', 'metrics', ['--health-addr=127.0.0.1:0']],
    ['--health-addr', 'health probes', ['--metrics-bind-address=127.0.0.1:0']],
  ])('%s on a busy port: one error line naming the flag, exit 1', async (flag, what, others) => {
    const r = await finish(
      runManager([
        '--controllers=',
        '--data-dir=',
        '--embedded-provider=false',
        ...others,
        `${flag}=127.0.0.1:${port}`,
      ]),
    );
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([
      `error: cannot serve ${what} on 127.0.0.1:${port}: address already in use (another process, e.g. a second manager, listens there) [EADDRINUSE]; choose another address with ${flag}=host:port (0 disables it)`,
    ]);
    expect(lastRecord(r.stderr)).toMatchObject({ level: 'error', msg: 'manager exiting', code: 1 });
  });
});
