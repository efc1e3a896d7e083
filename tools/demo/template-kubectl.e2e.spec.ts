// The sample manifest as a user applies it: examples/clusters/cluster-inmemory.yaml rendered by render-template.ts
// (clusterctl's substitution), piped to the real `kubectl apply -f -` against the embedded default manager (the module
// `npm start` runs), then `kubectl wait` until the Cluster is Available; its Machines must be Running with Nodes.
// 1 control-plane + 1 worker Machine, short provisioning times.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, type Cluster, type Machine } from '@capi/api';
import { FAST_TIMINGS, startEmbeddedManager, type EmbeddedManager } from './embedded';
import { CLUSTER_TEMPLATE_PATH } from './objects';

jest.setTimeout(180_000);

const root = resolve(__dirname, '../..');
const NAME = 'sample';
const NS = 'default';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cmd`; with `pipeFrom`, `cmd`'s stdin is `pipeFrom`'s stdout (a shell pipeline, both exit codes kept). */
function run(cmd: string[], env: NodeJS.ProcessEnv, pipeFrom?: string[]): Promise<{ from?: Run; to: Run }> {
  const start = (argv: string[], stdin: 'pipe' | 'ignore') =>
    spawn(argv[0], argv.slice(1), { cwd: root, env, stdio: [stdin, 'pipe', 'pipe'] });
  const collect = (p: ReturnType<typeof start>) =>
    new Promise<Run>((done, fail) => {
      const r: Run = { code: null, stdout: '', stderr: '' };
      p.stdout!.on('data', (d) => (r.stdout += d));
      p.stderr!.on('data', (d) => (r.stderr += d));
      p.on('error', fail);
      p.on('close', (code) => done({ ...r, code }));
    });
  const to = start(cmd, pipeFrom ? 'pipe' : 'ignore');
  if (!pipeFrom) return collect(to).then((r) => ({ to: r }));
  const from = spawn(pipeFrom[0], pipeFrom.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  from.stdout.pipe(to.stdin!);
  const fromRun = new Promise<Run>((done, fail) => {
    let stderr = '';
    from.stderr.on('data', (d) => (stderr += d));
    from.on('error', fail);
    from.on('close', (code) => done({ code, stdout: '', stderr }));
  });
  return Promise.all([fromRun, collect(to)]).then(([f, t]) => ({ from: f, to: t }));
}

let manager: EmbeddedManager | undefined;
let dir = '';
let kubeconfig = '';
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  manager = await startEmbeddedManager({ provider: FAST_TIMINGS });
  dir = mkdtempSync(join(tmpdir(), 'template-kubectl-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, manager.kubeconfig, { mode: 0o600 });
  env = { ...process.env, KUBECACHEDIR: join(dir, 'cache') };
});

afterAll(async () => {
  await manager?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => run(['kubectl', '--kubeconfig', kubeconfig, ...args], env).then((r) => r.to);
const render = ['node', '-r', '@swc-node/register', 'tools/demo/render-template.ts', CLUSTER_TEMPLATE_PATH];

describe('examples/clusters/cluster-inmemory.yaml with kubectl', () => {
  it('a missing variable: the renderer names it, kubectl applies nothing', async () => {
    const { from, to } = await run(['kubectl', '--kubeconfig', kubeconfig, 'apply', '-f', '-'], env, render);
    expect(from!.code).toBe(1);
    expect(from!.stderr).toContain('value for variables [CLUSTER_NAME, KUBERNETES_VERSION] is not set');
    expect(to.code).not.toBe(0);
    expect((await kubectl('get', 'clusters', '-A', '-o', 'name')).stdout).toBe('');
  });

  it('render | kubectl apply -f - creates a Cluster that becomes Available with its Machines Running', async () => {
    const vars = { CLUSTER_NAME: NAME, KUBERNETES_VERSION: 'v1.31.0', WORKER_MACHINE_COUNT: '1' };
    const { from, to } = await run(
      ['kubectl', '--kubeconfig', kubeconfig, 'apply', '-f', '-'],
      { ...env, ...vars },
      render,
    );
    expect(from!).toMatchObject({ code: 0, stderr: '' });
    expect({ code: to.code, stderr: to.stderr }).toEqual({ code: 0, stderr: '' });
    expect(to.stdout.trim().split('\n')).toEqual([
      `cluster.cluster.x-k8s.io/${NAME} created`,
      `inmemorycluster.infrastructure.cluster.x-k8s.io/${NAME} created`,
      `inmemorymachinetemplate.infrastructure.cluster.x-k8s.io/${NAME}-cp-1 created`,
      `kubeadmcontrolplane.controlplane.cluster.x-k8s.io/${NAME}-cp created`,
      `kubeadmconfigtemplate.bootstrap.cluster.x-k8s.io/${NAME}-md-0 created`,
      `inmemorymachinetemplate.infrastructure.cluster.x-k8s.io/${NAME}-md-0-1 created`,
      `machinedeployment.cluster.x-k8s.io/${NAME}-md-0 created`,
    ]);

    const wait = await kubectl('wait', '-n', NS, '--for=condition=Available', `cluster/${NAME}`, '--timeout=150s');
    expect({ code: wait.code, stderr: wait.stderr }).toEqual({ code: 0, stderr: '' });
    expect(wait.stdout.trim()).toBe(`cluster.cluster.x-k8s.io/${NAME} condition met`);

    const machines = (
      await manager!.client.list<Machine>(CLUSTER_API_VERSION, 'Machine', {
        namespace: NS,
        labelSelector: `${CLUSTER_NAME_LABEL}=${NAME}`,
      })
    ).items;
    expect(
      machines
        .map((m) => ({
          controlPlane: 'cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {}),
          phase: m.status?.phase,
          version: m.spec.version,
          node: !!m.status?.nodeRef?.name,
        }))
        .sort((a, b) => Number(b.controlPlane) - Number(a.controlPlane)),
    ).toEqual([
      { controlPlane: true, phase: 'Running', version: 'v1.31.0', node: true },
      { controlPlane: false, phase: 'Running', version: 'v1.31.0', node: true },
    ]);

    // Applying the same rendering again changes nothing (the template is a stable desired state).
    const again = await run(['kubectl', '--kubeconfig', kubeconfig, 'apply', '-f', '-'], { ...env, ...vars }, render);
    expect(again.to.code).toBe(0);
    expect(
      again.to.stdout
        .trim()
        .split('\n')
        .every((l) => l.endsWith(' unchanged')),
    ).toBe(true);
  });

  it("the manager's admission webhooks refuse what upstream's refuse, and the objects stay as they were", async () => {
    const md = `machinedeployment/${NAME}-md-0`;
    const badVersion = await kubectl(
      'patch',
      '-n',
      NS,
      md,
      '--type=merge',
      '-p',
      '{"spec":{"template":{"spec":{"version":"not-a-version"}}}}',
    );
    expect(badVersion.code).not.toBe(0);
    // kubectl prints a 422's causes itself; the schema has no semver rule, so the webhook refused it (after the
    // defaulting webhook added the "v", as upstream's does).
    expect(badVersion.stderr).toContain(
      'spec.template.spec.version: Invalid value: "vnot-a-version": must be a valid semantic version',
    );
    const clusterName = await kubectl('patch', '-n', NS, md, '--type=merge', '-p', '{"spec":{"clusterName":"other"}}');
    expect(clusterName.code).not.toBe(0);
    expect(clusterName.stderr).toContain('spec.clusterName');
    const evenEtcd = await kubectl(
      'patch',
      '-n',
      NS,
      `kubeadmcontrolplane/${NAME}-cp`,
      '--type=merge',
      '-p',
      '{"spec":{"replicas":2}}',
    );
    expect(evenEtcd.code).not.toBe(0);
    expect(evenEtcd.stderr).toContain('spec.replicas');
    const got = await kubectl('get', '-n', NS, md, '-o', 'jsonpath={.spec.clusterName} {.spec.template.spec.version}');
    expect(got.stdout).toBe(`${NAME} v1.31.0`);
  });

  it('kubectl delete cluster deletes everything: the MachineDeployment controller made the Cluster its owner', async () => {
    const md = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: NS, name: `${NAME}-md-0` };
    const cluster = await manager!.client.get<Cluster>({ ...md, kind: 'Cluster', name: NAME });
    expect((await manager!.client.get(md)).metadata.ownerReferences).toContainEqual(
      expect.objectContaining({ kind: 'Cluster', name: NAME, uid: cluster.metadata.uid }),
    );
    expect((await kubectl('delete', '-n', NS, `cluster/${NAME}`, '--wait=false')).code).toBe(0);
    const gone = await kubectl('wait', '-n', NS, '--for=delete', `cluster/${NAME}`, '--timeout=120s');
    expect({ code: gone.code, stderr: gone.stderr }).toEqual({ code: 0, stderr: '' });
    const left = await kubectl(
      'get',
      '-n',
      NS,
      'machines,machinesets,kubeadmcontrolplanes,inmemoryclusters',
      '-o',
      'name',
    );
    expect(left).toMatchObject({ code: 0, stdout: '' });
  });
});
