// The real etcd + kube-apiserver from KUBEBUILDER_ASSETS: start, serve, stop with their data; and bad days — a busy
// port, a binary that won't start, an etcd that never becomes healthy — each one error naming the component and its
// log, within seconds.
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EtcdCluster,
  freePort,
  getWithToken,
  KubeApiServer,
  kubeAssetsDir,
  requestWithToken,
  startKubeControlPlane,
  type KubeControlPlane,
} from '../src';

jest.setTimeout(120_000);

/** A folder like KUBEBUILDER_ASSETS with one binary replaced by a shell script. */
function assetsWith(name: 'etcd' | 'kube-apiserver', script: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'assets-'));
  for (const bin of ['etcd', 'kube-apiserver']) {
    if (bin === name) {
      writeFileSync(join(dir, bin), `#!/bin/sh\n${script}\n`);
      chmodSync(join(dir, bin), 0o755);
    } else symlinkSync(join(kubeAssetsDir(), bin), join(dir, bin));
  }
  return dir;
}

describe('startKubeControlPlane', () => {
  let cp: KubeControlPlane;
  afterAll(async () => {
    await cp?.stop();
  });

  it('serves the pinned kube-apiserver over etcd, with the admin token in system:masters', async () => {
    cp = await startKubeControlPlane();
    const version = JSON.parse((await getWithToken(cp, '/version')).body);
    expect(version.gitVersion).toBe('v1.36.3');
    const review = await getWithToken(cp, '/apis/authorization.k8s.io/v1');
    expect(review.status).toBe(200);
    expect((await getWithToken({ ...cp, token: 'wrong' }, '/api/v1/namespaces')).status).toBe(401);
    const ns = JSON.parse((await getWithToken(cp, '/api/v1/namespaces')).body);
    expect(ns.items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system']),
    );
  });

  it("counts the admin user's requests from the audit log, as the embedded server keys them", async () => {
    await cp.resetRequests();
    expect(await cp.countRequests()).toMatchObject({ total: 0, writesByManager: {} });
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
    expect(
      (await requestWithToken(cp, 'POST', '/api/v1/namespaces/default/configmaps?fieldManager=creator', cm('counted')))
        .status,
    ).toBe(201);
    expect(
      (await requestWithToken(cp, 'POST', '/api/v1/namespaces/default/configmaps?fieldManager=creator', cm('counted')))
        .status,
    ).toBe(409);
    expect(
      (
        await requestWithToken(
          cp,
          'PATCH',
          '/api/v1/namespaces/default/configmaps/counted?fieldManager=applier',
          cm('counted'),
          'application/apply-patch+yaml',
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await requestWithToken(
          cp,
          'PATCH',
          '/api/v1/namespaces/default/configmaps/counted?fieldManager=patcher',
          { data: { b: '2' } },
          'application/merge-patch+json',
        )
      ).status,
    ).toBe(200);
    expect((await getWithToken(cp, '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    const counts = await cp.countRequests();
    expect(counts.writesByManager).toEqual({
      'create /configmaps creator': 2,
      'apply /configmaps applier': 1,
      'patch /configmaps patcher': 1,
    });
    expect(counts.failedWritesByManager).toEqual({ 'create /configmaps creator': 1 });
    expect(counts.byVerbResource).toEqual({
      'create /configmaps': 2,
      'apply /configmaps': 1,
      'patch /configmaps': 1,
      'list /configmaps': 1,
    });
  });

  it('stop() ends both processes and removes their folder', async () => {
    const other = await startKubeControlPlane();
    const pids = [other.apiServer.process!.pid!, ...other.etcd.members.map((m) => m.process.pid!)];
    await other.stop();
    expect(existsSync(other.dir)).toBe(false);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });

  it("a given folder is created, and kept with its logs after stop() (npm run kube:up's data folder)", async () => {
    const parent = mkdtempSync(join(tmpdir(), 'cp-dir-'));
    try {
      const dir = join(parent, 'nested', 'data');
      const given = await startKubeControlPlane({ dir });
      expect(given.dir).toBe(dir);
      await given.stop();
      for (const f of ['kube-apiserver.log', 'etcd-0.log', 'ca.crt'])
        expect([f, existsSync(join(dir, f))]).toEqual([f, true]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('startKubeControlPlane on bad days', () => {
  const cleanup: string[] = [];
  let busy: Server | undefined;
  afterAll(() => {
    busy?.close();
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it('a port already in use: kube-apiserver exits, the error names it and its log', async () => {
    busy = createServer();
    await new Promise<void>((r) => busy!.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    const started = Date.now();
    const err = await startKubeControlPlane({ port }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(
      /^kube-apiserver exited \(code \d+\) before it became ready; log: \S+kube-apiserver\.log/,
    );
    expect(err?.message).toMatch(/address already in use/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a binary that will not start: the error names the component and its log', async () => {
    const assets = assetsWith('kube-apiserver', 'echo "exec format error: not a kube-apiserver" >&2; exit 3');
    cleanup.push(assets);
    const err = await startKubeControlPlane({ assetsDir: assets }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(
      /^kube-apiserver exited \(code 3\) before it became ready; log: \S+kube-apiserver\.log\nexec format error: not a kube-apiserver$/,
    );
  });

  it('an etcd that never becomes healthy: the error says so within its timeout and names its log', async () => {
    const assets = assetsWith('etcd', 'echo "etcd: waiting for peers that never come" >&2; exec sleep 60');
    cleanup.push(assets);
    const started = Date.now();
    const err = await startKubeControlPlane({ assetsDir: assets, etcdReadyTimeoutMs: 2000 }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(
      /^etcd did not become ready within 2 s; log: \S+etcd-0\.log\netcd: waiting for peers that never come$/,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('no KUBEBUILDER_ASSETS: one line saying how to build the binaries', () => {
    expect(() => kubeAssetsDir({})).toThrow(/^KUBEBUILDER_ASSETS is not set: .*npm run kube:build/);
    expect(() => kubeAssetsDir({ KUBEBUILDER_ASSETS: '/nonexistent' })).toThrow(
      'KUBEBUILDER_ASSETS=/nonexistent has no etcd: run `npm run kube:build`',
    );
  });
});

describe('EtcdCluster of 3 members behind kube-apiserver', () => {
  let cp: KubeControlPlane;
  afterAll(async () => {
    await cp?.stop();
  });

  it('keeps serving when the leader is killed, and the killed member rejoins on its data', async () => {
    cp = await startKubeControlPlane({ etcdMembers: 3 });
    const write = async (name: string) => {
      const res = await requestWithToken(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
      });
      return res.status;
    };
    expect(await write('before')).toBe(201);
    const leader = await cp.etcd.leader();
    expect(leader).toBeDefined();
    await leader!.process.kill();
    await eventuallyTrue(async () => (await write(`after-${Date.now()}`)) === 201, 30_000);
    const newLeader = await cp.etcd.leader();
    expect(newLeader && newLeader.name).not.toBe(leader!.name);
    const health = async () => Promise.all(cp.etcd.members.map((m) => cp.etcd.healthy(m)));
    expect(await health()).toEqual(cp.etcd.members.map((m) => m !== leader));
    await cp.etcd.restart(leader!);
    expect(leader!.process.alive).toBe(true);
    expect(await health()).toEqual([true, true, true]);
    expect((await getWithToken(cp, '/api/v1/namespaces/default/configmaps/before')).status).toBe(200);
  });
});

async function eventuallyTrue(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('EtcdCluster when a port it was given is taken before etcd binds it', () => {
  it('starts again on other ports (another process on the machine took the free port meanwhile)', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const taken = (busy.address() as { port: number }).port;
    // The first port handed out is one another process holds by the time etcd binds it.
    let handedOut = 0;
    const ports = async () => (handedOut++ === 0 ? taken : freePort());
    const dir = mkdtempSync(join(tmpdir(), 'etcd-port-'));
    const etcd = new EtcdCluster({ binary: join(kubeAssetsDir(), 'etcd'), dir, freePort: ports });
    try {
      await etcd.start();
      expect(etcd.members).toHaveLength(1);
      expect(etcd.members[0].clientUrl).not.toContain(`:${taken}`);
      expect(await etcd.healthy(etcd.members[0])).toBe(true);
      expect(handedOut).toBe(4);
    } finally {
      await etcd.stop();
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('KubeApiServer when the free port it was given is taken before it binds it', () => {
  it('starts again on another port', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const taken = (busy.address() as { port: number }).port;
    let handedOut = 0;
    const ports = async () => (handedOut++ === 0 ? taken : freePort());
    const dir = mkdtempSync(join(tmpdir(), 'apiserver-port-'));
    const etcd = new EtcdCluster({ binary: join(kubeAssetsDir(), 'etcd'), dir: join(dir, 'etcd') });
    await etcd.start();
    const server = new KubeApiServer({
      binary: join(kubeAssetsDir(), 'kube-apiserver'),
      dir,
      etcdServers: etcd.clientUrls,
      freePort: ports,
    });
    try {
      const endpoint = await server.start();
      expect(endpoint.url).not.toContain(`:${taken}`);
      expect(handedOut).toBe(2);
      expect((await getWithToken(endpoint, '/readyz')).status).toBe(200);
    } finally {
      await server.stop();
      await etcd.stop();
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
