// The standalone server on a damaged or emptied data dir: it refuses to start, naming the database and how to restore
// it; snapshots saved while it serves restore into a new data dir with the same objects, token and CA.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import { rawRequest, type Conn } from './support/test-client';

jest.setTimeout(120000);

const root = resolve(__dirname, '../../..');
const main = join(root, 'libs/apiserver/src/main.ts');
const env = { ...process.env, SWC_NODE_PROJECT: join(root, 'tsconfig.json') };
let tmp: string;
const running = new Set<ChildProcess>();

/** Starts the standalone server on `dir`: its connection once it listens, or its stderr when it exits first. */
function startServer(dir: string): Promise<{ proc: ChildProcess; conn: Conn } | { exitCode: number; stderr: string }> {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', main, '--data-dir', dir], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  return new Promise((res) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) res({ proc, conn: connOf(JSON.parse(line).kubeconfig) });
    });
    proc.on('exit', (code) => {
      running.delete(proc);
      res({ exitCode: code ?? -1, stderr: err });
    });
  });
}

async function mustStart(dir: string): Promise<{ proc: ChildProcess; conn: Conn }> {
  const r = await startServer(dir);
  if ('exitCode' in r) throw new Error(`server exited (${r.exitCode}): ${r.stderr}`);
  return r;
}

async function mustRefuse(dir: string): Promise<string> {
  const r = await startServer(dir);
  if (!('exitCode' in r)) {
    await stop(r.proc);
    throw new Error('the server started');
  }
  expect(r.exitCode).toBe(1);
  return r.stderr;
}

/** Graceful stop: the database is checkpointed and its WAL removed. */
async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

/**
 * The snapshot command as a process. Asynchronous: a spawnSync would block this process's event loop for the command's
 * whole run, long enough under load for the server to close the idle keep-alive connection unnoticed, and the next
 * request on it fails with "socket hang up".
 */
function snapshot(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', main, 'snapshot', ...args], { cwd: root, env });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((done, fail) => {
    proc.on('error', fail);
    proc.on('close', (code) => done({ status: code ?? -1, stdout, stderr }));
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

async function createConfigMaps(conn: Conn, prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await rawRequest(conn, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${prefix}-${i}` },
      data: { i: String(i), text: `${prefix} ${i} `.repeat(30) },
    });
    expect(r.code).toBe(201);
  }
}

async function configMaps(conn: Conn): Promise<Record<string, string>> {
  const list = JSON.parse((await rawRequest(conn, 'GET', '/api/v1/namespaces/default/configmaps')).text);
  return Object.fromEntries(list.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]));
}

/** A data dir a server ran on and stopped gracefully, holding `n` ConfigMaps. */
async function usedDataDir(name: string, n: number): Promise<string> {
  const dir = join(tmp, name);
  const { proc, conn } = await mustStart(dir);
  await createConfigMaps(conn, 'cm', n);
  await stop(proc);
  expect(existsSync(join(dir, 'state.db-wal'))).toBe(false);
  return dir;
}

beforeAll(() => (tmp = mkdtempSync(join(tmpdir(), 'apiserver-damage-'))));
afterAll(() => {
  for (const p of running) p.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

it('a fresh data dir starts', async () => {
  const { proc, conn } = await mustStart(join(tmp, 'fresh'));
  expect(Object.keys(await configMaps(conn))).toEqual([]);
  await stop(proc);
});

it('refuses a database truncated to 0 bytes, or deleted, when the token and CA show a previous run', async () => {
  const dir = await usedDataDir('truncated', 3);
  const db = join(dir, 'state.db');
  truncateSync(db, 0);
  const stderr = await mustRefuse(dir);
  expect(stderr).toContain(`error: database ${db} is empty (0 bytes) but ${join(dir, 'token')}`);
  expect(stderr).toContain(`snapshot restore <file> --data-dir ${dir}`);
  expect(stderr).not.toMatch(/\n\s+at /); // one line, no stack
  rmSync(db);
  expect(await mustRefuse(dir)).toContain(`error: database ${db} is missing but`);
});

it('refuses a database with 256 flipped bytes in the middle, naming the file', async () => {
  const dir = await usedDataDir('flipped', 300);
  const db = join(dir, 'state.db');
  const bytes = readFileSync(db);
  // From the start of the middle page: its b-tree header and cell pointers. 256 bytes flipped inside a row's text
  // alone would be invisible to SQLite (its pages carry no checksum); that row answers 500 when read.
  const pageSize = bytes.readUInt16BE(16);
  const at = Math.floor(bytes.length / pageSize / 2) * pageSize;
  for (let i = at; i < at + 256; i++) bytes[i] ^= 0xff;
  writeFileSync(db, bytes);
  const stderr = await mustRefuse(dir);
  expect(stderr).toMatch(new RegExp(`^error: database ${db} is damaged \\(integrity_check: .+\\); restore a snapshot`));
  expect(stderr).toContain(`or move ${db} and ${join(dir, 'token')} and ${join(dir, 'serving-certs.json')} away`);
});

it('saves a snapshot while serving; restoring it into a new data dir gives the same objects, token and CA', async () => {
  const dir = join(tmp, 'source');
  const { proc, conn } = await mustStart(dir);
  await createConfigMaps(conn, 'before', 20);
  const file = join(tmp, 'snap.db');
  const saved = await snapshot('save', file, '--data-dir', dir);
  expect(saved).toMatchObject({ status: 0, stderr: '' });
  expect(saved.stdout).toMatch(/^saved .*snap\.db: revision \d+, \d+ objects, token and serving-certs\.json/);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const atSave = await configMaps(conn);
  await createConfigMaps(conn, 'after', 2); // not in the snapshot
  // Offline only: the running server holds the database.
  const busy = await snapshot('restore', file, '--data-dir', dir);
  expect(busy.status).toBe(1);
  expect(busy.stderr).toContain(`error: database ${join(dir, 'state.db')} is in use`);
  await stop(proc);

  const target = join(tmp, 'restored');
  const restored = await snapshot('restore', file, '--data-dir', target);
  expect(restored).toMatchObject({ status: 0, stderr: '' });
  expect(restored.stdout).toContain('wrote token and serving-certs.json');
  const again = await mustStart(target);
  expect(again.conn.token).toBe(conn.token);
  expect(again.conn.caData).toBe(conn.caData);
  expect(await configMaps(again.conn)).toEqual(atSave);
  expect(Object.keys(atSave)).toHaveLength(20);
  await createConfigMaps(again.conn, 'new', 1);
  await stop(again.proc);
});

it('restores over a damaged database, keeping the data dir token and CA and the damaged file aside', async () => {
  const dir = await usedDataDir('repair', 5);
  const file = join(tmp, 'repair-snap.db');
  expect((await snapshot('save', file, '--data-dir', dir)).status).toBe(0);
  const db = join(dir, 'state.db');
  const token = readFileSync(join(dir, 'token'), 'utf8');
  writeFileSync(db, Buffer.alloc(statSync(db).size, 0x5a));
  expect(await mustRefuse(dir)).toContain(`error: database ${db} is damaged`);
  const r = await snapshot('restore', file, '--data-dir', dir);
  expect(r).toMatchObject({ status: 0, stderr: '' });
  expect(r.stdout).toContain("kept the data dir's token and serving-certs.json");
  expect(readFileSync(`${db}.before-restore`)[0]).toBe(0x5a);
  const { proc, conn } = await mustStart(dir);
  expect(conn.token).toBe(token);
  expect(Object.keys(await configMaps(conn)).sort()).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  await stop(proc);
  // A damaged snapshot is refused before anything is touched.
  writeFileSync(file, Buffer.alloc(8192, 0x5a));
  const bad = await snapshot('restore', file, '--data-dir', dir);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain(`error: snapshot ${file} is damaged`);
});
