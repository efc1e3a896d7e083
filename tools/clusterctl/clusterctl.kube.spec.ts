// Installs this project's providers with upstream's clusterctl (v1.14.2, tools/clusterctl/module) on etcd +
// kube-apiserver, from the components `npm run release:components` writes, as a user would: a clusterctl.yaml with
// `providers:` file:// URLs, `clusterctl init`, then `clusterctl delete --all`. cert-manager is stood in for by its two
// CRDs (fixtures/cert-manager-crds.yaml), which is what clusterctl's check needs to skip installing it. No kubelet runs,
// so nothing waits for the Deployment to become available.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { componentsYaml, parseObjects, PROVIDER_LABEL, type Obj } from './components';
import { writeReleases, type WrittenRelease } from './release-components';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { clusterctlBinary, clusterctlVersion } = require('./assets.mjs') as {
  clusterctlBinary(o: { build: boolean; log: (l: string) => void }): Promise<string>;
  clusterctlVersion(): string;
};

const exec = promisify(execFile);
const here = __dirname;
jest.setTimeout(240_000);

/** `clusterctl init` of our four providers. */
const INIT_ALL = [
  '--core',
  'cluster-api',
  '--control-plane',
  'kubeadm',
  '--bootstrap',
  'in-memory',
  '--infrastructure',
  'in-memory',
];

interface Run {
  code: number;
  out: string;
}

describe('clusterctl init / delete with our provider components (kube-apiserver)', () => {
  let env: Envtest;
  let clusterctl: string;
  let dir: string;
  let releases: WrittenRelease[];

  const configFor = (rels: WrittenRelease[], extra: Record<string, unknown> = {}) => {
    const path = join(dir, `clusterctl-${rels.map((r) => r.label).join('_')}.yaml`);
    writeFileSync(
      path,
      stringify({
        providers: rels.map((r) => ({ name: r.name, type: r.type, url: `file://${r.components}` })),
        CLUSTERCTL_DISABLE_VERSIONCHECK: 'true',
        ...extra,
      }),
    );
    return path;
  };

  async function run(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
    // A temp HOME and XDG dirs: clusterctl reads ~/.config/cluster-api (overrides, its cache) and writes its log there.
    const home = join(dir, 'home');
    const env0 = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local/share'),
      CLUSTERCTL_DISABLE_VERSIONCHECK: 'true',
      GOPROXY: 'off',
      ...extraEnv,
    };
    try {
      const { stdout, stderr } = await exec(clusterctl, [...args, '--kubeconfig', env.kubeconfigPath, '-v', '2'], {
        env: env0,
        maxBuffer: 16 << 20,
        timeout: 120_000,
      });
      return { code: 0, out: stdout + stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof err.code === 'number' ? err.code : -1, out: (err.stdout ?? '') + (err.stderr ?? '') };
    }
  }

  async function kubectlJson(args: string[]): Promise<{ items?: Obj[] } & Partial<Obj>> {
    const { stdout } = await exec('kubectl', [...args, '-o', 'json', '--kubeconfig', env.kubeconfigPath], {
      maxBuffer: 64 << 20,
    });
    return JSON.parse(stdout);
  }
  /**
   * Upstream's CABPK v1.14.2 as a clusterctl local repository, rendered as its release does (`kustomize build
   * bootstrap/kubeadm/config/default`) from the sigs.k8s.io/cluster-api module clusterctl is built from (the Go
   * module cache has it: no GitHub), with upstream's metadata.yaml.
   */
  async function upstreamBootstrapKubeadm(): Promise<WrittenRelease> {
    const { stdout } = await exec(
      'go',
      ['mod', 'download', '-json', `sigs.k8s.io/cluster-api@${clusterctlVersion()}`],
      {
        cwd: join(here, 'module'),
        env: { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` },
      },
    );
    const moduleDir: string = JSON.parse(stdout).Dir;
    const out = join(dir, 'upstream', 'bootstrap-kubeadm', clusterctlVersion());
    mkdirSync(out, { recursive: true });
    const rendered = await exec('kubectl', ['kustomize', join(moduleDir, 'bootstrap/kubeadm/config/default')], {
      maxBuffer: 64 << 20,
    });
    writeFileSync(join(out, 'bootstrap-components.yaml'), rendered.stdout);
    writeFileSync(join(out, 'metadata.yaml'), readFileSync(join(moduleDir, 'metadata.yaml')));
    return {
      name: 'kubeadm',
      type: 'BootstrapProvider',
      label: 'bootstrap-kubeadm',
      components: join(out, 'bootstrap-components.yaml'),
    };
  }

  const list = async (resource: string, extra: string[] = []) =>
    (await kubectlJson(['get', resource, '-A', ...extra])).items ?? [];

  beforeAll(async () => {
    clusterctl = await clusterctlBinary({ build: true, log: (l) => process.stderr.write(`${l}\n`) });
    dir = mkdtempSync(join(tmpdir(), 'clusterctl-e2e-'));
    mkdirSync(join(dir, 'home'));
    releases = await writeReleases(join(dir, 'repository'));
    env = await startEnvtest({ target: 'kube', installProjectCrds: false });
    await exec('kubectl', [
      'apply',
      '--server-side',
      '-f',
      join(here, 'fixtures', 'cert-manager-crds.yaml'),
      '--kubeconfig',
      env.kubeconfigPath,
    ]);
    await exec('kubectl', [
      'wait',
      '--for=condition=Established',
      'crd/issuers.cert-manager.io',
      'crd/certificates.cert-manager.io',
      '--kubeconfig',
      env.kubeconfigPath,
    ]);
  });
  afterAll(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the release-stamped clusterctl the module pins', async () => {
    const { stdout } = await exec(clusterctl, ['version', '-o', 'short'], {
      env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), CLUSTERCTL_DISABLE_VERSIONCHECK: 'true' },
    });
    expect(stdout.trim()).toBe(clusterctlVersion());
  });

  it('a components file with a variable that has no default and no value fails with clusterctl`s message', async () => {
    const core = releases.find((r) => r.type === 'CoreProvider')!;
    const objs = parseObjects(readFileSync(core.components, 'utf8'));
    const deployment = objs.find((o) => o.kind === 'Deployment')!;
    deployment.spec.template.spec.containers[0].args.push('--webhook-port=${CAPI_WEBHOOK_PORT}');
    const broken = join(dir, 'broken', 'cluster-api', 'v0.1.0', 'core-components.yaml');
    mkdirSync(resolve(broken, '..'), { recursive: true });
    writeFileSync(broken, componentsYaml(objs));
    writeFileSync(
      join(resolve(broken, '..'), 'metadata.yaml'),
      readFileSync(join(resolve(core.components, '..'), 'metadata.yaml')),
    );
    const config = configFor([{ ...core, components: broken }, ...releases.filter((r) => r !== core)]);

    const r = await run(['init', '--config', config, ...INIT_ALL]);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('value for variables [CAPI_WEBHOOK_PORT] is not set');
    // Nothing of the providers was applied.
    expect((await list('deployments')).filter((d) => d.metadata.namespace === 'capi-system')).toEqual([]);
  });

  it('init installs the four providers with the variables substituted; delete --all removes them', async () => {
    // The image override deploy/README.md documents, for an image pushed to a registry.
    const config = configFor(releases, {
      images: { 'cluster-api': { repository: 'registry.example', tag: 'v0.1.0' } },
    });
    const init = await run(['init', '--config', config, ...INIT_ALL], {
      EXP_RUNTIME_SDK: 'true',
      EXP_IN_PLACE_UPDATES: 'true',
      CAPI_EMBEDDED_PROVIDER: 'true',
    });
    if (init.code !== 0) throw new Error(`clusterctl init failed (${init.code}):\n${init.out}`);
    expect(init.out).toContain('Skipping installing cert-manager as it is already installed');

    // clusterctl's inventory: one Provider per provider, in its target namespace.
    const inventory = (await list('providers.clusterctl.cluster.x-k8s.io')).map(
      (p) => `${p.metadata.namespace}/${p.metadata.name} ${p.type} ${p.version}`,
    );
    expect(inventory.sort()).toEqual([
      'capi-in-memory-bootstrap-system/bootstrap-in-memory BootstrapProvider v0.1.0',
      'capi-in-memory-system/infrastructure-in-memory InfrastructureProvider v0.1.0',
      'capi-kubeadm-control-plane-system/control-plane-kubeadm ControlPlaneProvider v0.1.0',
      'capi-system/cluster-api CoreProvider v0.1.0',
    ]);

    // CRDs established and serving v1beta2, labelled for the provider that shipped them.
    const crds = (await list('crds')).filter((c) => c.metadata.labels?.['clusterctl.cluster.x-k8s.io'] === '');
    const byName = new Map(crds.map((c) => [c.metadata.name, c]));
    const expected: Record<string, string> = {
      'clusters.cluster.x-k8s.io': 'cluster-api',
      'machines.cluster.x-k8s.io': 'cluster-api',
      'machinedeployments.cluster.x-k8s.io': 'cluster-api',
      'extensionconfigs.runtime.cluster.x-k8s.io': 'cluster-api',
      'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io': 'control-plane-kubeadm',
      'kubeadmconfigs.bootstrap.cluster.x-k8s.io': 'bootstrap-in-memory',
      'inmemorymachines.infrastructure.cluster.x-k8s.io': 'infrastructure-in-memory',
    };
    for (const [name, label] of Object.entries(expected)) {
      const crd = byName.get(name);
      expect(crd?.metadata.labels?.[PROVIDER_LABEL]).toBe(label);
      expect(crd?.status.conditions.find((c: { type: string }) => c.type === 'Established')?.status).toBe('True');
      if (label !== 'infrastructure-in-memory')
        expect(crd?.spec.versions.find((v: { name: string }) => v.name === 'v1beta2')?.served).toBe(true);
    }
    // The KubeadmControlPlane API answers.
    expect(
      (await kubectlJson(['get', 'kubeadmcontrolplanes.v1beta2.controlplane.cluster.x-k8s.io', '-A'])).items,
    ).toEqual([]);

    // The manager: Deployment with the variables substituted, RBAC, webhooks, all with clusterctl's labels.
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      '-n',
      'capi-system',
      'capi-controller-manager',
    ])) as Obj;
    expect(deployment.metadata.labels).toMatchObject({
      'clusterctl.cluster.x-k8s.io': '',
      [PROVIDER_LABEL]: 'cluster-api',
    });
    const args: string[] = deployment.spec.template.spec.containers[0].args;
    expect(args).toContain(
      '--feature-gates=RuntimeSDK=true,InPlaceUpdates=true,PriorityQueue=true,ReconcilerRateLimiting=true',
    );
    expect(args).toContain('--embedded-provider=true');
    expect(args.join(' ')).not.toContain('${');
    expect(deployment.spec.template.spec.containers[0].image).toBe('registry.example/capi-manager:v0.1.0');
    for (const [kind, name] of [
      ['serviceaccount', 'capi-manager'],
      ['role', 'capi-leader-election-role'],
      ['service', 'capi-webhook-service'],
      ['certificates.cert-manager.io', 'capi-serving-cert'],
      ['issuers.cert-manager.io', 'capi-selfsigned-issuer'],
    ]) {
      const o = (await kubectlJson(['get', kind, '-n', 'capi-system', name])) as Obj;
      expect(o.metadata.labels?.[PROVIDER_LABEL]).toBe('cluster-api');
    }
    const binding = (await kubectlJson(['get', 'clusterrolebinding', 'capi-manager-rolebinding'])) as Obj;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'capi-manager', namespace: 'capi-system' }]);
    // The in-memory provider's binding still names the manager's ServiceAccount (by its user name).
    const inmem = (await kubectlJson(['get', 'clusterrolebinding', 'capi-inmemory-rolebinding'])) as Obj;
    expect(inmem.metadata.labels?.[PROVIDER_LABEL]).toBe('infrastructure-in-memory');
    expect(inmem.subjects.map((s: { name: string }) => s.name)).toEqual([
      'system:serviceaccount:capi-system:capi-manager',
    ]);
    const validating = (await kubectlJson([
      'get',
      'validatingwebhookconfiguration',
      'capi-validating-webhook-configuration',
    ])) as Obj;
    expect(validating.metadata.labels?.[PROVIDER_LABEL]).toBe('cluster-api');
    const paths = validating.webhooks.map(
      (w: { clientConfig: { service: { path: string } } }) => w.clientConfig.service.path,
    );
    expect(paths).toContain('/validate-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane');
    expect(paths.filter((p: string) => p.includes('bootstrap'))).toEqual([]);
    expect(validating.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe('capi-system/capi-serving-cert');

    // `delete --all` keeps the CRDs (and with them every object of their kinds) unless --include-crd is given, and
    // ClusterRoles/Bindings whose names do not start with `<namespace>-` (components.go providerComponents.Delete),
    // as for upstream's own `capi-manager-role`. --include-crd is not used here: clusterctl lists each provider's
    // objects from a discovery read taken while the previous provider's CRDs are still terminating, and fails on the
    // list of a kind gone by then (cmd/clusterctl/client/cluster/proxy.go ListResources), a race of upstream's.
    const del = await run(['delete', '--all', '--config', config]);
    if (del.code !== 0) throw new Error(`clusterctl delete failed (${del.code}):\n${del.out}`);
    expect(await list('providers.clusterctl.cluster.x-k8s.io')).toEqual([]);
    for (const kind of [
      'deployments',
      'services',
      'serviceaccounts',
      'roles',
      'rolebindings',
      'certificates.cert-manager.io',
      'issuers.cert-manager.io',
      'validatingwebhookconfigurations',
      'mutatingwebhookconfigurations',
    ]) {
      expect((await list(kind, ['-l', PROVIDER_LABEL])).map((o) => `${kind} ${o.metadata.name}`)).toEqual([]);
    }
    expect((await list('crds', ['-l', PROVIDER_LABEL])).length).toBe(crds.length);
  });

  it('installs our core and control plane with upstream`s CABPK as the bootstrap provider', async () => {
    // The previous init's cert-manager check deleted its test Namespace; without a namespace controller it stays
    // Terminating and the next check could not create its objects there. Finalize it as kube-controller-manager would.
    const ns = await kubectlJson(['get', 'namespace', 'cert-manager-test']).catch(() => undefined);
    if (ns) {
      const path = join(dir, 'finalize.json');
      writeFileSync(path, JSON.stringify({ ...ns, spec: { finalizers: [] } }));
      await exec('kubectl', [
        'replace',
        '--raw',
        '/api/v1/namespaces/cert-manager-test/finalize',
        '-f',
        path,
        '--kubeconfig',
        env.kubeconfigPath,
      ]);
    }
    const cabpk = await upstreamBootstrapKubeadm();
    const ours = releases.filter((r) => r.type === 'CoreProvider' || r.type === 'ControlPlaneProvider');
    const config = configFor([...ours, cabpk]);
    const init = await run([
      'init',
      '--config',
      config,
      '--core',
      'cluster-api',
      '--control-plane',
      'kubeadm',
      '--bootstrap',
      'kubeadm',
    ]);
    if (init.code !== 0) throw new Error(`clusterctl init failed (${init.code}):\n${init.out}`);

    const inventory = (await list('providers.clusterctl.cluster.x-k8s.io')).map(
      (p) => `${p.metadata.name} ${p.version}`,
    );
    expect(inventory.sort()).toEqual([
      `bootstrap-kubeadm ${clusterctlVersion()}`,
      'cluster-api v0.1.0',
      'control-plane-kubeadm v0.1.0',
    ]);
    // The KubeadmConfig CRD is CABPK's now, v1beta2 served; our manager and CABPK's run side by side.
    const crd = (await kubectlJson(['get', 'crd', 'kubeadmconfigs.bootstrap.cluster.x-k8s.io'])) as Obj;
    expect(crd.metadata.labels?.[PROVIDER_LABEL]).toBe('bootstrap-kubeadm');
    expect(crd.spec.versions.find((v: { name: string }) => v.name === 'v1beta2')?.served).toBe(true);
    const deployments = (await list('deployments', ['-l', PROVIDER_LABEL])).map(
      (d) => `${d.metadata.namespace}/${d.metadata.name}`,
    );
    expect(deployments.sort()).toEqual([
      'capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-controller-manager',
      'capi-system/capi-controller-manager',
    ]);
  });
});
