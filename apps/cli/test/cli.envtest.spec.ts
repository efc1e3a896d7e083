// capi-inplace as a process against an API server (embedded or kube-apiserver): describe cluster, rollout status,
// rollout plan (counting the writes at the server: none), and the one-line errors of bad input.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { CLUSTER_API_VERSION, CONTROLPLANE_API_VERSION, type MachineDeployment } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { RequestMetrics, renderKubeconfig } from '@capi/apiserver';
import { KubeClient, refOf } from '@capi/controller-runtime';
import { startEnvtest, testInfraCrd, type Envtest } from '@capi/envtest';
import type { ExtensionServer } from '@capi/runtime-client';
import { errorLines, runCliProcess, startCli } from './support/cli-process';
import {
  condition,
  createTestCluster,
  createTestControlPlane,
  INFRA_API_VERSION,
  INFRA_GROUP,
  registerUpdater,
  type TestControlPlane,
} from './support/cluster';

jest.setTimeout(120_000);

const NS = 'cli-test';

describe('capi-inplace', () => {
  let env: Envtest;
  let client: KubeClient;
  let updater: ExtensionServer;
  let dir: string;
  const cli = (...args: string[]) => runCliProcess(['--kubeconfig', env.kubeconfigPath, '-n', NS, ...args]);

  beforeAll(async () => {
    env = await startEnvtest({ crds: [testInfraCrd('TestMachine'), testInfraCrd('TestMachineTemplate')] });
    const kc = new KubeConfig();
    kc.loadFromString(env.kubeconfig);
    client = new KubeClient(kc);
    await createTestCluster(client, NS);
    updater = await registerUpdater(client);
    dir = mkdtempSync(join(tmpdir(), 'capi-cli-'));
  });
  afterAll(async () => {
    client?.close();
    await updater?.close();
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('describe cluster', () => {
    it("prints clusterctl's tree with each Machine's in-place state", async () => {
      const r = await cli('describe', 'cluster', 'c1');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        /^NAME +REPLICAS +AVAILABLE +READY +UP TO DATE +STATUS +REASON +SINCE +UPDATING +UPDATER +PENDING HOOKS +UPDATING SINCE +MESSAGE$/,
      );
      const nameWidth = lines[0].indexOf('REPLICAS');
      expect(lines.map((l) => l.slice(0, nameWidth).trimEnd())).toEqual([
        'NAME',
        `Cluster ${NS}/c1`,
        '└─Workers',
        `  └─MachineDeployment ${NS}/md, v1.30.0`,
        `    └─MachineSet ${NS}/md-old, v1.30.0`,
        `      ├─Machine ${NS}/md-old-a, v1.30.0`,
        `      └─Machine ${NS}/md-old-b, v1.30.0`,
      ]);
      expect(lines[5]).toMatch(/md-old-a, v1\.30\.0 +1 +1 +1 +1 +True +Ready +\S+ +False$/);
      expect(lines[6]).toMatch(
        /md-old-b, v1\.30\.0 +1 +1 +1 +0 +True +Ready +\S+ +True +in-place +UpdateMachine +\S+$/,
      );
    });

    it('-o json gives the tree as data', async () => {
      const r = await cli('describe', 'cluster', 'c1', '-o', 'json');
      expect(r.code).toBe(0);
      const tree = JSON.parse(r.stdout);
      const machine = tree.root.children[0].children[0].children[0].children[1];
      expect(machine).toMatchObject({
        kind: 'Machine',
        name: 'md-old-b',
        inPlace: {
          updating: true,
          pendingHooks: ['UpdateMachine'],
          updaters: ['in-place'],
          since: '2026-01-01T00:00:00Z',
        },
      });
    });

    it('an unknown cluster is one error line', async () => {
      const r = await cli('describe', 'cluster', 'nope');
      expect(r.code).toBe(1);
      expect(errorLines(r)).toEqual([`error: cluster "nope" not found in namespace "${NS}"`]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
  });

  describe('rollout plan', () => {
    const planFile = (name: string, patch: object) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: CLUSTER_API_VERSION,
          kind: 'MachineDeployment',
          metadata: { name: 'md', namespace: NS },
          ...patch,
        }),
      );
      return file;
    };

    it('a version bump: every Machine in place by the updater, the steps with maxSurge/maxUnavailable, no write', async () => {
      const file = planFile('bump.json', { spec: { template: { spec: { version: 'v1.31.0' } } } });
      await env.resetRequests();
      const r = await cli('rollout', 'plan', '-f', file);
      const counts = await env.countRequests();
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        `MachineDeployment ${NS}/md: 2 replicas, strategy RollingUpdate, maxSurge 0, maxUnavailable 1`,
      );
      expect(r.stdout).toContain('Machine md-old-a (MachineSet md-old): in place by in-place');
      expect(r.stdout).toContain('Machine md-old-b (MachineSet md-old): in place by in-place');
      expect(r.stdout).toMatch(/new MachineSet \(to create\) md-\S+: replicas 0/);
      expect(r.stdout).toContain('[Test] Rollout 2 replicas, MaxSurge=0, MaxUnavailable=1');
      expect(r.stdout).toContain('[Test] Final state');
      expect(counts.total).toBeGreaterThan(0);
      expect(RequestMetrics.writes(counts)).toBe(0);
    });

    it('a new infrastructure template: every Machine replaced, with the fields not covered', async () => {
      await client.create({
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachineTemplate',
        metadata: { name: 'tmpl-2', namespace: NS },
        spec: { template: { spec: { image: 'image-2' } } },
      });
      const file = planFile('image.yaml', {
        spec: {
          template: {
            spec: {
              infrastructureRef: {
                apiGroup: 'infrastructure.cluster.x-k8s.io',
                kind: 'TestMachineTemplate',
                name: 'tmpl-2',
              },
            },
          },
        },
      });
      await env.resetRequests();
      const r = await cli('rollout', 'plan', '-f', file);
      const counts = await env.countRequests();
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /Machine md-old-a \(MachineSet md-old\): replaced because TestMachineTemplate cannot be updated in-place: .*image/,
      );
      expect(RequestMetrics.writes(counts)).toBe(0);
    });

    it('a file that is not a MachineDeployment or KubeadmControlPlane is one error line', async () => {
      const file = join(dir, 'cm.yaml');
      writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
      const r = await cli('rollout', 'plan', '-f', file);
      expect(r.code).toBe(1);
      expect(errorLines(r)).toEqual([
        `error: ${file} is not a MachineDeployment or KubeadmControlPlane (found kind ConfigMap v1)`,
      ]);
    });
  });

  describe('rollout plan of a KubeadmControlPlane', () => {
    let cp: TestControlPlane;
    beforeAll(async () => {
      cp = await createTestControlPlane(client, NS);
    });

    const planFile = (name: string, spec: object) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: 'KubeadmControlPlane',
          metadata: { name: 'cp' },
          spec,
        }),
      );
      return file;
    };
    const resourceVersions = async () => {
      const objects: KubeObject[] = [cp.kcp, ...cp.machines, ...cp.kubeadmConfigs, ...cp.infraMachines];
      return Promise.all(
        objects.map(async (o) => {
          const live = await client.get<KubeObject>(refOf(o));
          return `${o.kind}/${o.metadata.name}@${live.metadata.resourceVersion}`;
        }),
      );
    };
    /** Runs the plan, asserting it persisted nothing: no write but dry runs, and no resourceVersion moved. */
    const plan = async (file: string) => {
      const before = await resourceVersions();
      await env.resetRequests();
      const r = await cli('rollout', 'plan', '-f', file);
      const counts = await env.countRequests();
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(counts.total).toBeGreaterThan(0);
      expect(RequestMetrics.nonDryRunWrites(counts)).toBe(0);
      expect(await resourceVersions()).toEqual(before);
      return { r, counts };
    };

    it('the live spec: every Machine up to date, nothing to do', async () => {
      const { r } = await plan(planFile('kcp-same.json', {}));
      expect(r.stdout).toContain(`KubeadmControlPlane ${NS}/cp: 2 replicas, maxSurge 0`);
      expect(r.stdout).toContain('Machine cp-a: up to date');
      expect(r.stdout).toContain('Machine cp-b: up to date');
      expect(r.stdout).toContain('(nothing to do)');
    });

    it('a version bump the updater covers: every Machine in place, one at a time, by dry-run requests only', async () => {
      // A patch release: a minor one (v1.31) also changes the KubeadmConfig (KCP adds kubeadm feature gates).
      const { r, counts } = await plan(planFile('kcp-bump.json', { version: 'v1.30.1' }));
      expect(r.stdout).toContain('Machine cp-a: in place by in-place');
      expect(r.stdout).toContain('Machine cp-b: in place by in-place');
      expect(r.stdout).toContain('  1. update Machine cp-a in place by in-place, and wait for it');
      expect(r.stdout).toContain('  2. update Machine cp-b in place by in-place, and wait for it');
      expect(r.stdout).not.toContain('  3.');
      // The CanUpdateMachine requests were built with server-side-apply dry runs.
      expect(Object.keys(counts.dryRunWritesByManager).length).toBeGreaterThan(0);
    });

    it('the same bump with maxSurge 1: scale up first, then in place while fewer than replicas are up to date', async () => {
      const { r } = await plan(
        planFile('kcp-bump-surge.json', {
          version: 'v1.30.1',
          rollout: { strategy: { rollingUpdate: { maxSurge: 1 } } },
        }),
      );
      expect(r.stdout).toContain(`KubeadmControlPlane ${NS}/cp: 2 replicas, maxSurge 1`);
      expect(r.stdout).toContain('Machine cp-a: in place by in-place');
      expect(r.stdout).toContain(
        'Machine cp-b: replaced because 2 Machines are up to date already: KCP deletes the outdated rest',
      );
      expect(r.stdout).toContain('  1. scale up: create Machine new-1 (up to date)');
      expect(r.stdout).toContain('  2. update Machine cp-a in place by in-place, and wait for it');
      expect(r.stdout).toContain('  3. delete Machine cp-b');
      expect(r.stdout).not.toContain('  4.');
    });

    it('a new infrastructure template the updater does not cover: every Machine replaced, delete first with maxSurge 0', async () => {
      await client.create({
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachineTemplate',
        metadata: { name: 'cp-tmpl-2', namespace: NS },
        spec: { template: { spec: { image: 'image-2' } } },
      });
      const { r } = await plan(
        planFile('kcp-image.json', {
          machineTemplate: {
            spec: { infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'cp-tmpl-2' } },
          },
        }),
      );
      expect(r.stdout).toMatch(/Machine cp-a: replaced because .*TestMachine.*image/);
      expect(r.stdout).toMatch(/Machine cp-b: replaced because .*TestMachine.*image/);
      expect(r.stdout).toContain('  1. delete Machine cp-a');
      expect(r.stdout).toContain('  2. scale up: create Machine new-1 (up to date)');
      expect(r.stdout).toContain('  3. delete Machine cp-b');
      expect(r.stdout).toContain('  4. scale up: create Machine new-2 (up to date)');
    });

    it('an unknown KubeadmControlPlane is one error line', async () => {
      const file = join(dir, 'kcp-nope.json');
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: 'KubeadmControlPlane',
          metadata: { name: 'nope' },
        }),
      );
      const r = await cli('rollout', 'plan', '-f', file);
      expect(r.code).toBe(1);
      expect(errorLines(r)).toEqual([`error: kubeadmcontrolplane "nope" not found in namespace "${NS}"`]);
    });
  });

  describe('rollout status', () => {
    const patchStatus = async (name: string, status: object) => {
      const md = await client.get<MachineDeployment>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'MachineDeployment',
        namespace: NS,
        name,
      });
      await client.updateStatus({ ...md, status: { ...md.status, ...status } });
    };

    it('follows the watch to done: exit 0 once the Machine being updated in place is up to date', async () => {
      const run = startCli(['--kubeconfig', env.kubeconfigPath, '-n', NS, 'rollout', 'status', 'md', 'md']);
      await run.waitForOutput('1 waiting, 1 updating in place');
      const m = await client.get<KubeObject>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        namespace: NS,
        name: 'md-old-b',
      });
      const annotations = { ...(m.metadata.annotations ?? {}) };
      delete annotations['in-place-updates.internal.cluster.x-k8s.io/update-in-progress'];
      delete annotations['runtime.cluster.x-k8s.io/pending-hooks'];
      const updated = await client.update({ ...m, metadata: { ...m.metadata, annotations } });
      await client.updateStatus({
        ...updated,
        status: {
          conditions: [condition('Ready', 'True'), condition('Available', 'True'), condition('UpToDate', 'True')],
        },
      });
      const r = await run.done;
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('2/2 up to date (1 in place, 0 replaced), 0 waiting');
      expect(r.stdout.trimEnd().split('\n').pop()).toBe('md "md" successfully rolled out');
    });

    it('a stalled rollout: exit 1 with the conditions that block it', async () => {
      await patchStatus('md', {
        upToDateReplicas: 0,
        conditions: [
          condition('Available', 'True'),
          condition('RollingOut', 'True', 'RollingOut', 'Rolling out 2 not up-to-date replicas'),
          condition('InPlaceOnly', 'False', 'ReplacementRequired', 'the change needs new Machines'),
        ],
      });
      const r = await cli('rollout', 'status', 'md', 'md', '--stall-timeout', '2s');
      expect(r.code).toBe(1);
      expect(errorLines(r)).toEqual(['error: md "md" rollout stalled: no progress for 2s; blocking:']);
      expect(r.stderr).toContain(
        'MachineDeployment md: RollingOut=True RollingOut: Rolling out 2 not up-to-date replicas',
      );
      expect(r.stderr).toContain(
        'MachineDeployment md: InPlaceOnly=False ReplacementRequired: the change needs new Machines',
      );
      expect(r.stdout).not.toContain('error:');
    });

    it('an unknown MachineDeployment is one error line', async () => {
      const r = await cli('rollout', 'status', 'md', 'nope');
      expect(r.code).toBe(1);
      expect(errorLines(r)).toEqual([`error: machinedeployment "nope" not found in namespace "${NS}"`]);
    });
  });

  describe('bad access and usage', () => {
    it('a kubeconfig without access is one error line naming what was refused', async () => {
      const file = join(dir, 'bad-token.kubeconfig');
      writeFileSync(file, renderKubeconfig({ url: env.url, token: 'not-a-token', caData: env.caData, name: 'bad' }));
      const r = await runCliProcess(['--kubeconfig', file, '-n', NS, 'describe', 'cluster', 'c1']);
      expect(r.code).toBe(1);
      expect(errorLines(r)).toEqual([
        `error: you must be logged in to the server (Unauthorized): cannot get clusters "c1" in namespace "${NS}"`,
      ]);
    });

    it('an unreachable server is one error line', async () => {
      const file = join(dir, 'closed-port.kubeconfig');
      writeFileSync(
        file,
        renderKubeconfig({ url: 'https://127.0.0.1:1', token: 't', caData: env.caData, name: 'closed' }),
      );
      const r = await runCliProcess(['--kubeconfig', file, 'describe', 'cluster', 'c1']);
      expect(r.code).toBe(1);
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toMatch(
        /^error: unable to connect to the server at https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
      );
    });

    it('KUBECONFIG and the context namespace are used when no flag is given; a usage error exits 2', async () => {
      const file = join(dir, 'ns.kubeconfig');
      const kc = new KubeConfig();
      kc.loadFromString(env.kubeconfig);
      kc.contexts = kc.contexts.map((c) => ({ ...c, namespace: NS }));
      writeFileSync(file, kc.exportConfig());
      const r = await runCliProcess(['describe', 'cluster', 'c1'], { KUBECONFIG: file });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Cluster ${NS}/c1`);
      const usage = await runCliProcess(['rollout', 'status', 'deployment', 'x'], { KUBECONFIG: file });
      expect(usage.code).toBe(2);
      expect(errorLines(usage)).toEqual([
        'error: unknown kind "deployment": use md (MachineDeployment) or kcp (KubeadmControlPlane)',
      ]);
      expect(usage.stderr).toContain('usage: capi-inplace');
    });
  });
});
