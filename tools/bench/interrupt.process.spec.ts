// A bench killed with SIGTERM stops what it started, then exits 130 with one error: line (interrupt.ts), not a
// second one for its run failing as its processes go.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(60_000);

it('stops the bench processes on SIGTERM and exits 130 with one error line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-interrupt-'));
  const marker = join(dir, 'stopped');
  try {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, 'testdata/interrupted.ts'), marker],
      {
        cwd: join(__dirname, '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => String(d).includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`exited ${code} before ready: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(readFileSync(marker, 'utf8')).toBe('stopped');
    expect(stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual(['error: interrupted by SIGTERM']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
