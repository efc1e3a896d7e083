import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import YAML from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { ApiServerEmbeddedEnvironment, DataDirInUseError, embeddedPaths, LOCK_FILE } from '@capi/manager';
import { spawnSync } from 'node:child_process';

// Generates TLS material and opens SQLite; allow for busy shared cores.
jest.setTimeout(30_000);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function clientFor(kubeconfig: string): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new KubeClient(kc);
}

describe('ApiServerEmbeddedEnvironment', () => {
  it('keeps objects, token, CA and port in the data dir across restarts and writes a 0600 kubeconfig', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(dataDir);
    const first = new ApiServerEmbeddedEnvironment({ dataDir });
    const started = await first.start();
    expect(started.kubeconfigPath).toBe(embeddedPaths(dataDir).kubeconfig);
    expect(statSync(started.kubeconfigPath!).mode & 0o777).toBe(0o600);
    expect(readFileSync(started.kubeconfigPath!, 'utf8')).toBe(started.kubeconfig);
    let client = clientFor(started.kubeconfig);
    try {
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'survives', namespace: 'default' },
        data: { a: '1' },
      });
      // The project's CRDs, the in-memory provider's included, are served.
      const crds = await client.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
      expect(crds.items.map((c) => c.metadata.name)).toEqual(
        expect.arrayContaining([
          'machines.cluster.x-k8s.io',
          'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
          'extensionconfigs.runtime.cluster.x-k8s.io',
          'inmemorymachines.infrastructure.cluster.x-k8s.io',
        ]),
      );
    } finally {
      client.close();
      await first.stop();
    }

    const second = new ApiServerEmbeddedEnvironment({ dataDir });
    const again = await second.start();
    try {
      const a = YAML.parse(started.kubeconfig);
      const b = YAML.parse(again.kubeconfig);
      expect(b.users[0].user.token).toBe(a.users[0].user.token);
      expect(b.clusters[0].cluster['certificate-authority-data']).toBe(
        a.clusters[0].cluster['certificate-authority-data'],
      );
      expect(b.clusters[0].cluster.server).toBe(a.clusters[0].cluster.server); // the previous port was free again
      client = clientFor(again.kubeconfig);
      const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'survives' });
      expect(cm.data).toEqual({ a: '1' });
      client.close();
    } finally {
      await second.stop();
    }
  });

  it('keeps the data dir private: a 0755 one is narrowed to 0700 with a warning, every file in it is 0600', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'embedded-')), 'data');
    dirs.push(dataDir);
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const logged: string[] = [];
    const env = new ApiServerEmbeddedEnvironment({
      dataDir,
      logger: { info: () => undefined, warn: (m) => logged.push(`warn: ${m}`), error: (m) => logged.push(m) },
    });
    const started = await env.start();
    const client = clientFor(started.kubeconfig);
    try {
      await client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'private', namespace: 'default' },
        stringData: { password: 'x' },
      });
    } finally {
      client.close();
      await env.stop();
    }
    expect(logged).toEqual([`warn: data dir ${dataDir} was readable by others (mode 755): changed to 700`]);
    const modes: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        modes.push(`${p.slice(dataDir.length)} ${(statSync(p).mode & 0o777).toString(8)}`);
        if (e.isDirectory()) walk(p);
      }
    };
    walk(dataDir);
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    expect(modes).toContain('/apiserver.sqlite 600');
    expect(modes.filter((m) => !/ (600|700)$/.test(m))).toEqual([]);
  });

  it('logs a request it answers 500 (a damaged row in the database) at error level', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(dataDir);
    const errors: string[] = [];
    const env = new ApiServerEmbeddedEnvironment({
      dataDir,
      logger: { info: () => undefined, error: (m) => errors.push(m) },
    });
    const started = await env.start();
    // Another writer damages the database: a ConfigMap row whose value is not JSON.
    const db = new Database(embeddedPaths(dataDir).database);
    db.prepare('INSERT INTO objects (key, resource, namespace, name, rev, data) VALUES (?, ?, ?, ?, ?, ?)').run(
      '/configmaps/default/damaged',
      '/configmaps',
      'default',
      'damaged',
      1,
      '{not json',
    );
    db.close();
    const client = clientFor(started.kubeconfig);
    try {
      const err = await client
        .get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'damaged' })
        .catch((e: unknown) => e as { code?: number });
      expect(err).toMatchObject({ code: 500 });
    } finally {
      client.close();
      await env.stop();
    }
    expect(errors).toEqual([expect.stringMatching(/^request failed: SyntaxError/)]);
  });

  it('one manager per data dir: a second start is refused naming the holder, writes nothing, and may start after', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(dataDir);
    const first = new ApiServerEmbeddedEnvironment({ dataDir });
    await first.start();
    const kubeconfig = readFileSync(embeddedPaths(dataDir).kubeconfig, 'utf8');
    const second = new ApiServerEmbeddedEnvironment({ dataDir, port: 0 });
    try {
      await expect(second.start()).rejects.toThrow(new DataDirInUseError(dataDir, process.pid).message);
      expect(readFileSync(embeddedPaths(dataDir).kubeconfig, 'utf8')).toBe(kubeconfig);
    } finally {
      await first.stop();
    }
    await second.start(); // released by stop()
    await second.stop();
  });

  it('a lock left by a process that is gone (kill -9) is taken over', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(dataDir);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(join(dataDir, LOCK_FILE), `${gone.stdout.toString()}\n`);
    const env = new ApiServerEmbeddedEnvironment({ dataDir });
    await env.start();
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
    await env.stop();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('falls back to a random port when the previous one is taken', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(dataDir);
    const first = new ApiServerEmbeddedEnvironment({ dataDir });
    const a = await first.start();
    // Keep the first one running on "its" port; another data dir remembering that port must pick another.
    const otherDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(otherDir);
    const port = new URL(YAML.parse(a.kubeconfig).clusters[0].cluster.server).port;
    mkdirSync(embeddedPaths(otherDir).serverState, { recursive: true });
    writeFileSync(embeddedPaths(otherDir).port, port);
    const second = new ApiServerEmbeddedEnvironment({ dataDir: otherDir });
    try {
      const b = await second.start();
      expect(new URL(YAML.parse(b.kubeconfig).clusters[0].cluster.server).port).not.toBe(port);
    } finally {
      await second.stop();
      await first.stop();
    }
  });

  it('without a data dir keeps nothing (in-memory storage, no kubeconfig file)', async () => {
    const env = new ApiServerEmbeddedEnvironment();
    const started = await env.start();
    try {
      expect(started.kubeconfigPath).toBeUndefined();
      const client = clientFor(started.kubeconfig);
      const crds = await client.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
      expect(crds.items.length).toBeGreaterThan(5);
      client.close();
    } finally {
      await env.stop();
    }
  });
});
