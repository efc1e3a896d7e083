// `npm run kube:up` as a user runs it (kube pass only): it prints the follow-up commands, the ServiceAccount token it
// wrote has exactly deploy/rbac's permissions, a second kube:up on the same folder is refused, and Ctrl-C (SIGINT)
// stops etcd and kube-apiserver and exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@capi/kube-control-plane';
import { loadManagerConfig } from '@capi/manager';
import { kubectl } from './management-cluster';

const root = join(__dirname, '../..');
jest.setTimeout(180_000);

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function startUp(args: string[]): Run {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'up.ts'), ...args], { cwd: root });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function waitFor(what: string, check: () => boolean, timeoutMs: number, run: Run): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline || run.child.exitCode !== null)
      throw new Error(`${what}: not seen\nstdout:\n${run.out()}\nstderr:\n${run.err()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('npm run kube:up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-up-'));
  let up: Run;
  afterAll(async () => {
    if (up?.child.exitCode === null) {
      up.child.kill('SIGKILL');
      await up.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts a management cluster and prints the commands that use it', async () => {
    const port = await freePort();
    up = startUp(['--dir', dir, '--port', String(port)]);
    await waitFor('the ready banner', () => up.out().includes('Ctrl-C stops etcd and kube-apiserver.'), 150_000, up);
    expect(up.out()).toContain(`management cluster ready: kube-apiserver at https://127.0.0.1:${port}`);
    const start = up
      .out()
      .split('\n')
      .find((l) => l.trim().startsWith('npm start -- '))!;
    const flags = start.trim().slice('npm start -- '.length).split(/\s+/);
    const loaded = loadManagerConfig(flags, {});
    if (loaded.help) throw new Error('unexpected --help');
    expect(loaded.config.apiServer).toEqual({ mode: 'kubeconfig', path: join(dir, 'manager.kubeconfig') });
    expect(loaded.config.embeddedProvider).toBe(true);
    expect(
      loaded.config.featureGates.enabled('RuntimeSDK') && loaded.config.featureGates.enabled('InPlaceUpdates'),
    ).toBe(true);
    expect(up.out()).toContain(`npm run demo -- --kubeconfig ${join(dir, 'admin.kubeconfig')}`);
  });

  it("the manager kubeconfig is the ServiceAccount, with deploy/rbac's permissions and no more", async () => {
    const sa = join(dir, 'manager.kubeconfig');
    // can-i answers "no" with exit code 1; the "yes" answers show that the token and the connection work.
    const can = (...args: string[]) =>
      kubectl(['auth', 'can-i', ...args], sa).then(
        (o) => o.trim(),
        () => 'no',
      );
    expect(await kubectl(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], sa)).toBe(
      'system:serviceaccount:capi-system:capi-manager',
    );
    expect(await can('patch', 'machines.cluster.x-k8s.io/status', '-A')).toBe('yes');
    expect(await can('create', 'extensionconfigs.runtime.cluster.x-k8s.io')).toBe('yes'); // deploy/inmemory
    expect(await can('update', 'leases.coordination.k8s.io', '-n', 'capi-system')).toBe('yes');
    expect(await can('update', 'leases.coordination.k8s.io', '-n', 'default')).toMatch(/^no/);
    expect(await can('get', 'nodes')).toMatch(/^no/);
    expect(readFileSync(join(dir, 'admin.kubeconfig'), 'utf8')).not.toContain(
      readFileSync(sa, 'utf8').match(/token: (\S+)/)![1],
    );
  });

  it('a second kube:up on the same folder is refused with one error line', async () => {
    const second = startUp(['--dir', dir, '--port', String(await freePort())]);
    expect(await second.exited).toBe(1);
    expect(second.err().trim()).toMatch(/^error: .* is in use by kube:up \(pid \d+\): stop it, or pass another --dir$/);
  });

  it('Ctrl-C stops etcd and kube-apiserver and exits 0', async () => {
    const pids = readFileSync(join(dir, 'kube-apiserver.log'), 'utf8').match(/^\S+ \S+ +(\d+) /m);
    up.child.kill('SIGINT');
    expect(await up.exited).toBe(0);
    expect(up.out()).toContain('etcd and kube-apiserver stopped');
    expect(existsSync(join(dir, 'kube-up.pid'))).toBe(false);
    const apiServerPid = Number(pids![1]);
    expect(() => process.kill(apiServerPid, 0)).toThrow();
  });
});
