// `npm run kube:up` on bad input: one `error:` line and a non-zero exit, before anything is started.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@capi/kube-control-plane';
import { oneLine } from './up';

const root = join(__dirname, '../..');

function runUp(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'up.ts'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

jest.setTimeout(60_000);

describe('kube:up on bad input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-up-'));
  let busy: Server | undefined;
  afterAll(() => {
    busy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an unknown flag or a bad port: exit 2 with one error line', async () => {
    for (const args of [['--nope'], ['--port=http']]) {
      const r = await runUp(['--dir', dir, ...args]);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: /);
    }
  });

  it('a busy port: exit 1 naming the port and --port, nothing started', async () => {
    busy = createServer();
    await new Promise<void>((r) => busy!.listen(0, '127.0.0.1', r));
    const { port } = busy.address() as { port: number };
    const r = await runUp(['--dir', dir, `--port=${port}`]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error: port ${port} on 127.0.0.1 is not free (EADDRINUSE): pass --port with a free one`,
    );
    expect(r.stdout).not.toContain('starting etcd');
  });

  it('missing binaries: exit 1 saying which and how to build them', async () => {
    const r = await runUp(['--dir', dir, `--port=${await freePort()}`], {
      KUBEBUILDER_ASSETS: join(dir, 'no-such-folder'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: KUBEBUILDER_ASSETS=.*no-such-folder has no kube-apiserver/);
  });

  it('a component error keeps its log line on the one error line', () => {
    expect(
      oneLine(
        'kube-apiserver exited (code 1) before it became ready; log: /x/kube-apiserver.log\nI0 first\nE1 failed to listen',
      ),
    ).toBe(
      'kube-apiserver exited (code 1) before it became ready; log: /x/kube-apiserver.log (last log line: E1 failed to listen)',
    );
  });
});
