// Kills the standalone server (kill -9) after acknowledged writes and restarts it on the same SQLite file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import { rawRequest, type Conn } from './support/test-client';

jest.setTimeout(60000);

const root = resolve(__dirname, '../../..');
const main = join(root, 'libs/apiserver/src/main.ts');
let dir: string;
let child: ChildProcess | undefined;

function startChild(): Promise<{ proc: ChildProcess; kubeconfig: string }> {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', main, '--data-dir', dir], {
    cwd: root,
    env: { ...process.env, SWC_NODE_PROJECT: join(root, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((res, rej) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) res({ proc, kubeconfig: JSON.parse(line).kubeconfig });
    });
    proc.on('exit', (code) => rej(new Error(`server exited early (${code}): ${err}`)));
  });
}

function connOf(kubeconfigPath: string): Conn {
  const kc = YAML.parse(readFileSync(kubeconfigPath, 'utf8'));
  return {
    url: kc.clusters[0].cluster.server,
    caData: kc.clusters[0].cluster['certificate-authority-data'],
    token: kc.users[0].user.token,
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'apiserver-restart-'));
});
afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

it('every acknowledged write survives kill -9 and a restart on the same file', async () => {
  const first = await startChild();
  child = first.proc;
  expect(statSync(first.kubeconfig).mode & 0o777).toBe(0o600);
  const conn = connOf(first.kubeconfig);
  const acked: { name: string; rv: string }[] = [];
  for (let i = 0; i < 40; i++) {
    const r = await rawRequest(conn, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}` },
      data: { i: String(i) },
    });
    expect(r.code).toBe(201);
    acked.push({ name: `cm-${i}`, rv: JSON.parse(r.text).metadata.resourceVersion });
  }
  const upd = await rawRequest(
    conn,
    'PATCH',
    '/api/v1/namespaces/default/configmaps/cm-0',
    { data: { i: 'updated' } },
    'application/merge-patch+json',
  );
  expect(upd.code).toBe(200);
  const del = await rawRequest(conn, 'DELETE', '/api/v1/namespaces/default/configmaps/cm-1');
  expect(del.code).toBe(200);
  // No graceful shutdown: SIGKILL right after the last acknowledgement.
  first.proc.kill('SIGKILL');
  await new Promise((r) => first.proc.once('exit', r));

  const second = await startChild();
  child = second.proc;
  const conn2 = connOf(second.kubeconfig);
  expect(conn2.token).toBe(conn.token);
  expect(conn2.caData).toBe(conn.caData);
  const list = JSON.parse((await rawRequest(conn2, 'GET', '/api/v1/namespaces/default/configmaps')).text);
  const byName = new Map<string, any>(list.items.map((i: any) => [i.metadata.name, i]));
  for (const a of acked.slice(2)) expect(byName.get(a.name)?.metadata.resourceVersion).toBe(a.rv);
  expect(byName.get('cm-0').data).toEqual({ i: 'updated' });
  expect(byName.has('cm-1')).toBe(false);
  // The revision counter continues: new writes get higher resourceVersions.
  const after = await rawRequest(conn2, 'POST', '/api/v1/namespaces/default/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'after' },
  });
  expect(Number(JSON.parse(after.text).metadata.resourceVersion)).toBeGreaterThan(
    Number(JSON.parse(upd.text).metadata.resourceVersion),
  );
  second.proc.kill('SIGKILL');
});
