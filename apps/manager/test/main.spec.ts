// Spawns the real entry point the way `npm start` does (node -r @swc-node/register apps/manager/src/main.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer } from '@capi/apiserver';
import { eventually } from '@capi/envtest';
import { KubeClient } from '@capi/controller-runtime';
import { get } from './support/http';
import { finish, logRecords, runManager as run, waitForLog } from './support/manager-process';

// Each spawn compiles main.ts with swc, and a test may start two managers; allow for two busy shared cores (a run
// beside other jobs took 30 s for the embedded default's two starts).
jest.setTimeout(90_000);

describe('manager process', () => {
  it('--feature-gates=Bogus=true exits 2 with one clear line naming the flag', async () => {
    const r = await finish(run(['--feature-gates=Bogus=true']));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: invalid --feature-gates: unrecognized feature gate: Bogus \(known: .*InPlaceUpdates.*\)$/,
    );
  });

  it('InPlaceUpdates without RuntimeSDK exits 1 at start-up with one line naming the controllers (upstream setup fails)', async () => {
    const r = await finish(run(['--kubeconfig=/nonexistent/kubeconfig', '--feature-gates=InPlaceUpdates=true']));
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    // One line for people, then the exit record (lifecycle/exit-reporting) with the code and the cause.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^error: unable to create controller\(s\) kcp, machineset, machine: RuntimeClient must not be nil when InPlaceUpdates feature gate is enabled: the RuntimeSDK feature gate is disabled/,
    );
    expect(JSON.parse(lines[1])).toMatchObject({
      level: 'error',
      msg: 'manager exiting',
      code: 1,
      reason: expect.stringMatching(/^start-up failed: unable to create controller\(s\)/),
    });
  });

  describe('credentials the API server refuses', () => {
    let server: ApiServer;
    let dir: string;
    let url: string;
    beforeAll(async () => {
      server = new ApiServer({ storage: { type: 'memory' }, host: '127.0.0.1' });
      url = (await server.start()).url;
      dir = mkdtempSync(join(tmpdir(), 'refused-'));
    });
    afterAll(async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const kubeconfigWith = (name: string, user: Record<string, string>) => {
      const path = join(dir, name);
      writeFileSync(
        path,
        YAML.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
          users: [{ name: 'u', user }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'c',
        }),
      );
      return path;
    };

    it.each([
      ['a wrong token', () => kubeconfigWith('wrong-token', { token: 'not-the-token' })],
      [
        'an empty token file',
        () => {
          writeFileSync(join(dir, 'empty-token'), '');
          return kubeconfigWith('empty-token-file', { tokenFile: join(dir, 'empty-token') });
        },
      ],
    ])(
      '%s: exits 1 at start-up with one error line naming the server (upstream fails its discovery)',
      async (_, make) => {
        const r = await finish(
          run([
            `--kubeconfig=${make()}`,
            '--metrics-bind-address=127.0.0.1:0',
            '--health-probe-bind-address=127.0.0.1:0',
          ]),
        );
        expect(r.code).toBe(1);
        const errors = r.stderr.split('\n').filter((l) => !l.startsWith('{') && l.trim() !== '');
        expect(errors).toEqual([
          `error: the API server ${url} did not accept the credentials of the kubeconfig (HTTP 401 Unauthorized): ` +
            'check its token, token file or client certificate',
        ]);
        expect(logRecords(r.stderr).filter((l) => l.level === 'error')).toEqual([
          expect.objectContaining({ msg: 'manager exiting', code: 1 }),
        ]);
      },
    );
  });

  it('an API server it cannot reach: logs the failure at once and keeps running (no exit 0) until a signal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unreachable-'));
    const kubeconfig = join(dir, 'kubeconfig');
    // Port 1 on loopback: nothing listens there.
    writeFileSync(
      kubeconfig,
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'c',
      }),
    );
    const started = Date.now();
    const child = run([`--kubeconfig=${kubeconfig}`, '--metrics-bind-address=0', '--health-probe-bind-address=0']);
    const done = finish(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      await eventually(() => stderr.includes('ECONNREFUSED 127.0.0.1:1'), 'the first list failure logged');
      await new Promise((r) => setTimeout(r, 2000));
      expect(child.exitCode).toBeNull();
      child.kill('SIGTERM');
      const r = await done;
      expect(r.code).toBe(0);
      expect(Date.now() - started).toBeGreaterThan(2000);
      // (the first warning says the webhook server did not start: no certificate outside a pod)
      expect(logRecords(r.stderr).find((l) => l.level === 'warn' && /^list\/watch/.test(String(l.msg)))).toMatchObject({
        msg: expect.stringMatching(/^list\/watch .* failed, retrying in \d+ms: connect ECONNREFUSED 127\.0\.0\.1:1$/),
      });
      expect(logRecords(r.stderr).pop()).toMatchObject({ msg: 'manager exiting', signal: 'SIGTERM' });
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help prints usage and exits 0', async () => {
    const r = await finish(run(['--help']));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--feature-gates');
  });

  it('starts (embedded default), serves /readyz and /metrics, and stops on SIGTERM', async () => {
    const child = run([
      '--controllers=',
      '--data-dir=',
      '--embedded-provider=false',
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
      '--feature-gates=InPlaceUpdates=true',
    ]);
    const done = finish(child);
    const metrics = waitForLog(child, 'serving metrics');
    const health = waitForLog(child, 'serving health probes');
    await waitForLog(child, 'manager started');
    const port = (rec: Record<string, unknown>) => Number(String(rec.address).split(':').pop());
    expect(await get(port(await health), '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(port(await health), '/livez')).toMatchObject({ status: 200, body: 'ok' });
    const scraped = (await get(port(await metrics), '/metrics')).body;
    expect(scraped).toContain('# TYPE controller_runtime_reconcile_total counter');
    expect(scraped).toContain('# TYPE workqueue_unfinished_work_seconds gauge');
    // The API access check at start-up (discovery, SelfSubjectAccessReview) went through the manager's client.
    expect(scraped).toMatch(
      /rest_client_requests_total\{code="20[01]",host="127\.0\.0\.1:\d+",method="(GET|POST)"\} \d+/,
    );
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0); // graceful shutdown, as upstream's manager returning from mgr.Start
    expect(r.stderr).toContain('"InPlaceUpdates":true');
  });

  it('the embedded default (all controllers, provider, updater) prints its kubeconfig, serves the CRDs and stops on SIGINT', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'manager-embedded-'));
    const child = run([
      `--data-dir=${dataDir}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ]);
    const done = finish(child);
    try {
      await waitForLog(child, 'manager started');
      const kubeconfigPath = join(dataDir, 'kubeconfig');
      expect(statSync(kubeconfigPath).mode & 0o777).toBe(0o600);
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      const client = new KubeClient(kc);
      try {
        expect((await client.list('cluster.x-k8s.io/v1beta2', 'Machine')).items).toEqual([]);
        const ec = await client.get({
          apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
          kind: 'ExtensionConfig',
          name: 'inmemory-inplace-updater',
        });
        expect((ec.spec as { clientConfig: { url: string } }).clientConfig.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      } finally {
        client.close();
      }
      // A second manager on the same data dir (other ports) stops at once, naming the first; nothing is rewritten.
      const kubeconfigBefore = readFileSync(kubeconfigPath, 'utf8');
      const second = await finish(
        run([`--data-dir=${dataDir}`, '--metrics-bind-address=127.0.0.1:0', '--health-probe-bind-address=127.0.0.1:0']),
      );
      expect(second.code).toBe(1);
      expect(second.stderr.split('\n').filter((l) => l.startsWith('error: '))).toEqual([
        `error: data dir ${dataDir} is in use by the manager with PID ${child.pid}: stop it first, or run this one ` +
          'with another --data-dir (and other --metrics-bind-address / --health-addr)',
      ]);
      expect(readFileSync(kubeconfigPath, 'utf8')).toBe(kubeconfigBefore);
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`kubeconfig: ${kubeconfigPath}`);
      expect(r.stdout).toContain(`kubectl --kubeconfig ${kubeconfigPath} get machines -A`);
      expect(r.stderr).toContain('"InPlaceUpdates":true');
      expect(r.stderr).not.toContain('controller skipped');
      expect(existsSync(join(dataDir, 'apiserver.sqlite'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embeddedBanner', () => {
  it('prints the kubeconfig path, a kubectl hint and the demo command (with --kubeconfig only for a non-default data dir)', () => {
    const { embeddedBanner } = jest.requireActual<typeof import('../src/main')>('../src/main');
    const dflt = embeddedBanner('/repo/.capi/kubeconfig', '/repo');
    expect(dflt).toContain('kubeconfig: /repo/.capi/kubeconfig');
    expect(dflt).toContain('kubectl --kubeconfig /repo/.capi/kubeconfig get machines -A');
    expect(dflt).toMatch(/npm run demo +#/);
    expect(embeddedBanner('/tmp/d/kubeconfig', '/repo')).toContain('npm run demo -- --kubeconfig /tmp/d/kubeconfig');
  });
});
