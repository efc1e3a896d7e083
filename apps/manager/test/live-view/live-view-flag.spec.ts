// --live-view-address on the real entry point: a malformed value and a busy port stop the manager with one line
// naming the flag; a given non-loopback host is used, with a warning, and the view answers there.
import { createServer, type Server } from 'node:net';
import { get } from '../support/http';
import { finish, logRecords, runManager as run } from '../support/manager-process';

jest.setTimeout(90_000);

// The API server and the view only: no controllers, no provider, no metrics or health endpoints.
const MINIMAL = [
  '--controllers=',
  '--data-dir=',
  '--embedded-provider=false',
  '--metrics-bind-address=0',
  '--health-addr=0',
];

describe('--live-view-address', () => {
  it('exits 2 with one line for a malformed address', async () => {
    const r = await finish(run(['--live-view-address=8090']));
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'error: invalid --live-view-address: "8090" must be host:port or :port (empty turns it off)',
    ]);
  });

  it('exits 1 with one line naming the flag when the port is taken', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const r = await finish(run([...MINIMAL, `--live-view-address=127.0.0.1:${port}`]));
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('error: '))).toEqual([
        `error: cannot serve the live view on 127.0.0.1:${port}: EADDRINUSE; choose another address with --live-view-address=host:port (empty turns it off)`,
      ]);
    } finally {
      holder.close();
    }
  });

  it('serves on a given non-loopback host with a warning, prints the URL, and stops on SIGTERM', async () => {
    const child = run([...MINIMAL, '--live-view-address=0.0.0.0:0']);
    const done = finish(child);
    try {
      let stdout = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (c) => {
          stdout += c;
          const m = /^Live view: (http:\/\/\S+)$/m.exec(stdout);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`manager exited (${code}) before printing the URL`)));
      });
      const port = Number(new URL(url).port);
      expect(url).toBe(`http://0.0.0.0:${port}/`);
      const state = await get(port, '/api/state');
      expect(state.status).toBe(200);
      expect(JSON.parse(state.body)).toMatchObject({ clusters: [], series: [] });
      child.kill('SIGTERM');
      const r = await done;
      expect(r.code).toBe(0);
      const warnings = logRecords(r.stderr).filter((rec) => rec.logger === 'live-view' && rec.level === 'warn');
      expect(warnings.map((w) => w.msg)).toEqual([
        expect.stringMatching(/listens on 0\.0\.0\.0, not a loopback address/),
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
