// Validates deploy/: kustomize renders it; the CRDs (and the other kinds the embedded API server serves) apply with
// `kubectl apply --server-side --dry-run=server`; RBAC, Deployment and Service (not served by @capi/apiserver) get
// structural checks against what the manager actually does (its flag parser, its CRDs, its kubeconfig handling).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, parse, stringify } from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { inClusterKubeconfig, KubeClient, type Client } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { envtestTarget } from '@capi/kube-control-plane';
import { defaultWebhookRegistrations, leaderElectionNamespace, loadManagerConfig } from '@capi/manager';
import { webhookConfigurations } from '@capi/webhooks';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');
const deployDir = join(root, 'deploy');

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: any;
}
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

async function kubectl(args: string[], kubeconfig?: string): Promise<string> {
  const { stdout } = await run('kubectl', [...args, ...(kubeconfig ? ['--kubeconfig', kubeconfig] : [])], {
    cwd: root,
    maxBuffer: 64 << 20,
  });
  return stdout;
}
const docs = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Obj)
    .filter(Boolean);
const byKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const one = (objs: Obj[], kind: string) => {
  const found = byKind(objs, kind);
  expect(found).toHaveLength(1);
  return found[0];
};
/** True when one of `rules` grants `verb` on group/resource. */
const allows = (rules: Rule[], group: string, resource: string, verb: string) =>
  rules.some(
    (r) =>
      r.apiGroups.includes(group) &&
      (r.resources.includes(resource) || r.resources.includes('*')) &&
      r.verbs.includes(verb),
  );

/** The manager's config from `args` as it would load in a pod of `namespace` (service env + service-account volume). */
function loadInPod(args: string[], namespace: string) {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-sa-'));
  try {
    writeFileSync(join(dir, 'token'), 'token');
    writeFileSync(join(dir, 'namespace'), namespace);
    const loaded = loadManagerConfig(
      args,
      { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
      { serviceAccountDir: dir },
    );
    if (loaded.help) throw new Error('unexpected --help');
    // The Lease namespace reads the volume's namespace file: resolve it while the directory exists.
    return { config: loaded.config, leaseNamespace: leaderElectionNamespace(loaded.config) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy/', () => {
  let env: Envtest;
  let rendered: Obj[];

  beforeAll(async () => {
    // No project CRDs: applying them is part of the test.
    env = await startEnvtest({ installProjectCrds: false });
    rendered = docs(await kubectl(['kustomize', 'deploy']));
  }, 60_000);
  afterAll(async () => env?.stop());

  it('config/crd/kustomization.yml lists exactly the CRD files crdgen generated', () => {
    const generated = readdirSync(join(root, 'config/crd'))
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    const listed = (parse(readFileSync(join(root, 'config/crd/kustomization.yml'), 'utf8')) as { resources: string[] })
      .resources;
    expect([...listed].sort()).toEqual(generated);
    expect(
      byKind(rendered, 'CustomResourceDefinition')
        .map((c) => c.metadata.name)
        .sort(),
    ).toHaveLength(generated.length);
  });

  it("deploy/inmemory: the in-memory provider's CRDs (every file crdgen generated) and its ClusterRole bound to the manager's ServiceAccount", async () => {
    const generated = readdirSync(join(root, 'config/inmemory/crd'))
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    const listed = (
      parse(readFileSync(join(root, 'config/inmemory/crd/kustomization.yml'), 'utf8')) as { resources: string[] }
    ).resources;
    expect([...listed].sort()).toEqual(generated);
    const inMemory = docs(await kubectl(['kustomize', 'deploy/inmemory']));
    expect(byKind(inMemory, 'CustomResourceDefinition')).toHaveLength(generated.length);
    const sa = one(rendered, 'ServiceAccount');
    expect(one(inMemory, 'ClusterRoleBinding').subjects).toEqual([
      { kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace },
    ]);
    expect(allows(one(inMemory, 'ClusterRole').rules, 'runtime.cluster.x-k8s.io', 'extensionconfigs', 'create')).toBe(
      true,
    );
  });

  it('the CRDs apply server-side (dry run, then for real) and their kinds are served', async () => {
    const dry = await kubectl(
      ['apply', '--server-side', '--dry-run=server', '--field-manager=deploy-test', '-k', 'deploy/crd'],
      env.kubeconfigPath,
    );
    expect(dry.trim().split('\n')).toHaveLength(byKind(rendered, 'CustomResourceDefinition').length);
    expect(dry).toMatch(/extensionconfigs\.runtime\.cluster\.x-k8s\.io serverside-applied \(server dry run\)/);
    await kubectl(['apply', '--server-side', '--field-manager=deploy-test', '-k', 'deploy/crd'], env.kubeconfigPath);
    const resources = await kubectl(
      ['api-resources', '--api-group=runtime.cluster.x-k8s.io', '-o', 'name'],
      env.kubeconfigPath,
    );
    expect(resources.trim()).toBe('extensionconfigs.runtime.cluster.x-k8s.io');
  }, 60_000);

  it('the Namespace applies server-side (dry run); no kubeconfig ConfigMap is needed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deploy-test-'));
    const apply = async (obj: Obj, dryRun: boolean) => {
      const file = join(dir, `${obj.kind}.yaml`);
      writeFileSync(file, stringify(obj));
      return kubectl(
        ['apply', '--server-side', ...(dryRun ? ['--dry-run=server'] : []), '--field-manager=deploy-test', '-f', file],
        env.kubeconfigPath,
      );
    };
    try {
      const ns = one(rendered, 'Namespace');
      expect(await apply(ns, true)).toMatch(/namespace\/capi-system serverside-applied \(server dry run\)/);
      // Like a real API server, a dry run into a missing namespace is NotFound: create the Namespace first.
      await apply(ns, false);
      expect(byKind(rendered, 'ConfigMap')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the ClusterRole covers every CRD the manager serves, plus Secrets, Namespaces, Events, CRDs; leases via the Role', () => {
    const rules = one(rendered, 'ClusterRole').rules as Rule[];
    for (const crd of byKind(rendered, 'CustomResourceDefinition')) {
      const { group, names } = crd.spec as { group: string; names: { plural: string } };
      for (const verb of ['get', 'list', 'watch', 'patch', 'update'])
        expect([crd.metadata.name, verb, allows(rules, group, names.plural, verb)]).toEqual([
          crd.metadata.name,
          verb,
          true,
        ]);
      // Kinds without a status subresource (MachineDrainRule) have no status to patch.
      const versions = (crd.spec as { versions: { subresources?: { status?: object } }[] }).versions;
      if (!versions.some((v) => v.subresources?.status)) continue;
      expect([crd.metadata.name, allows(rules, group, `${names.plural}/status`, 'patch')]).toEqual([
        crd.metadata.name,
        true,
      ]);
    }
    expect(allows(rules, 'cluster.x-k8s.io', 'machines', 'delete')).toBe(true);
    expect(allows(rules, 'infrastructure.cluster.x-k8s.io', 'anymachines', 'create')).toBe(true);
    for (const verb of ['get', 'list', 'watch', 'create', 'patch'])
      expect(allows(rules, '', 'secrets', verb)).toBe(true);
    expect(allows(rules, '', 'namespaces', 'get')).toBe(true);
    expect(allows(rules, '', 'events', 'create')).toBe(true);
    expect(allows(rules, 'apiextensions.k8s.io', 'customresourcedefinitions', 'list')).toBe(true);
    expect(allows(rules, '', 'nodes', 'get')).toBe(false);
    const validVerbs = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']);
    for (const r of [...rules, ...(one(rendered, 'Role').rules as Rule[])])
      for (const v of r.verbs) expect(validVerbs.has(v)).toBe(true);

    // The Lease lives in --namespace, or without it in the pod's namespace (LEADER_ELECTION_ID in apps/manager).
    const role = one(rendered, 'Role');
    const deployment = one(rendered, 'Deployment');
    const { leaseNamespace } = loadInPod(
      deployment.spec.template.spec.containers[0].args,
      deployment.metadata.namespace!,
    );
    expect(role.metadata.namespace).toBe(leaseNamespace);
    for (const verb of ['get', 'create', 'update'])
      expect(allows(role.rules, 'coordination.k8s.io', 'leases', verb)).toBe(true);
  });

  it('bindings point at the ServiceAccount the Deployment runs as', () => {
    const sa = one(rendered, 'ServiceAccount');
    const pod = one(rendered, 'Deployment').spec.template.spec;
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    for (const b of [one(rendered, 'ClusterRoleBinding'), one(rendered, 'RoleBinding')]) {
      expect(b.subjects).toEqual([
        { kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace },
      ]);
    }
    expect(one(rendered, 'ClusterRoleBinding').roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: one(rendered, 'ClusterRole').metadata.name,
    });
    expect(one(rendered, 'RoleBinding').roleRef.name).toBe(one(rendered, 'Role').metadata.name);
  });

  it('the Deployment flags are accepted by the manager and match its probes, ports and metrics Service', () => {
    const deployment = one(rendered, 'Deployment');
    expect(deployment.metadata.namespace).toBe(one(rendered, 'Namespace').metadata.name);
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.template.metadata.labels).toEqual(
      expect.objectContaining(deployment.spec.selector.matchLabels),
    );
    const container = pod.containers[0];
    const c = loadInPod(container.args, deployment.metadata.namespace!).config;
    expect(c.apiServer.mode).toBe('in-cluster');
    expect(pod.automountServiceAccountToken).not.toBe(false);
    expect(c.leaderElection.enabled).toBe(true);
    expect(c.featureGates.enabled('RuntimeSDK') && c.featureGates.enabled('InPlaceUpdates')).toBe(true);
    expect([c.metricsBindAddress, c.healthProbeBindAddress]).toEqual([':8080', ':9440']);

    const portOf = (name: string) => container.ports.find((p: { name: string }) => p.name === name)?.containerPort;
    expect(portOf(container.livenessProbe.httpGet.port)).toBe(9440);
    expect([container.livenessProbe.httpGet.path, container.readinessProbe.httpGet.path]).toEqual([
      '/healthz',
      '/readyz',
    ]);
    expect(portOf('metrics')).toBe(8080);
    const svc = byKind(rendered, 'Service').find((x) => x.metadata.name === 'capi-controller-manager-metrics')!;
    expect(svc.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(svc.spec.ports[0].targetPort).toBe('metrics');
    expect(c.kubeconfig).toBeUndefined();
  });

  it("deploy/webhook: the Service, the cert-manager Certificate and the configurations match the Deployment and the manager's --webhook-* flags", () => {
    const deployment = one(rendered, 'Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const c = loadInPod(container.args, deployment.metadata.namespace!).config;
    const port = container.ports.find((p: { name: string }) => p.name === 'webhook-server');
    expect(port?.containerPort).toBe(c.webhook.port);
    expect(c.webhook.port).toBe(9443);

    const svc = byKind(rendered, 'Service').find((x) => x.metadata.name === 'capi-webhook-service')!;
    expect(svc.metadata.namespace).toBe(deployment.metadata.namespace);
    expect(svc.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(svc.spec.ports).toEqual([{ port: 443, targetPort: 'webhook-server', protocol: 'TCP' }]);

    // The Certificate's Secret is mounted where the manager reads tls.crt / tls.key.
    const cert = one(rendered, 'Certificate');
    const issuer = one(rendered, 'Issuer');
    expect(cert.spec.issuerRef).toEqual({ kind: 'Issuer', name: issuer.metadata.name });
    const host = `${svc.metadata.name}.${svc.metadata.namespace}.svc`;
    expect(cert.spec.dnsNames).toEqual([host, `${host}.cluster.local`]);
    const volume = pod.volumes.find(
      (v: { secret?: { secretName: string } }) => v.secret?.secretName === cert.spec.secretName,
    );
    const mount = container.volumeMounts.find((m: { name: string }) => m.name === volume?.name);
    expect(mount).toMatchObject({ readOnly: true });
    expect(mount.mountPath.replace(/\/$/, '')).toBe(c.webhook.certDir.replace(/\/$/, ''));
    expect([c.webhook.certName, c.webhook.keyName]).toEqual(['tls.crt', 'tls.key']); // cert-manager's Secret keys

    const crds = byKind(rendered, 'CustomResourceDefinition').map((d) => `${d.spec.names.plural}.${d.spec.group}`);
    for (const [kind, verb] of [
      ['MutatingWebhookConfiguration', 'mutate'],
      ['ValidatingWebhookConfiguration', 'validate'],
    ]) {
      const config = one(rendered, kind);
      expect(config.metadata.name).toBe(`capi-${verb === 'mutate' ? 'mutating' : 'validating'}-webhook-configuration`);
      expect(config.metadata.annotations).toEqual({
        'cert-manager.io/inject-ca-from': `${cert.metadata.namespace}/${cert.metadata.name}`,
      });
      expect(config.webhooks.length).toBeGreaterThan(0);
      for (const w of config.webhooks) {
        expect(w.clientConfig).toEqual({
          service: {
            name: svc.metadata.name,
            namespace: svc.metadata.namespace,
            path: expect.stringMatching(`^/${verb}-`),
          },
        });
        // matchPolicy: v1's default is Equivalent (bootstrap/kubeadm's markers leave it out).
        expect([
          w.name,
          w.failurePolicy,
          w.sideEffects,
          w.matchPolicy ?? 'Equivalent',
          w.admissionReviewVersions,
        ]).toEqual([w.name, 'Fail', 'None', 'Equivalent', ['v1']]);
        // Every rule names a kind deploy/ installs (a subresource such as kubeadmcontrolplanes/scale included).
        for (const r of w.rules)
          for (const res of r.resources)
            expect([w.name, crds.includes(`${res.split('/')[0]}.${r.apiGroups[0]}`)]).toEqual([w.name, true]);
      }
    }
  });

  it('deploy/webhook lists exactly the webhooks the manager serves: names, paths, rules, policies', () => {
    const deployment = one(rendered, 'Deployment');
    const config = loadInPod(deployment.spec.template.spec.containers[0].args, deployment.metadata.namespace!).config;
    const served = webhookConfigurations(defaultWebhookRegistrations(config, {} as Client), {
      service: { name: 'capi-webhook-service', namespace: 'capi-system' },
    });
    const shape = (webhooks: Obj[]) =>
      webhooks
        .map((w) => ({
          name: w.name,
          path: w.clientConfig.service.path,
          rules: w.rules,
          failurePolicy: w.failurePolicy,
          sideEffects: w.sideEffects,
        }))
        .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    expect(shape(one(rendered, 'MutatingWebhookConfiguration').webhooks)).toEqual(
      shape(served.mutating.webhooks as unknown as Obj[]),
    );
    expect(shape(one(rendered, 'ValidatingWebhookConfiguration').webhooks)).toEqual(
      shape(served.validating.webhooks as unknown as Obj[]),
    );
  });

  (envtestTarget() === 'kube' ? it : it.skip)(
    'the webhook configurations apply server-side (dry run) on kube-apiserver',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'deploy-webhooks-'));
      try {
        const file = join(dir, 'webhooks.yaml');
        const configs = rendered.filter((o) => o.apiVersion === 'admissionregistration.k8s.io/v1');
        writeFileSync(file, configs.map((o) => stringify(o)).join('---\n'));
        const out = await kubectl(
          ['apply', '--server-side', '--dry-run=server', '--field-manager=deploy-test', '-f', file],
          env.kubeconfigPath,
        );
        expect(out).toMatch(
          /validatingwebhookconfiguration.admissionregistration.k8s.io\/capi-validating-webhook-configuration serverside-applied \(server dry run\)/,
        );
        expect(out).toMatch(
          /mutatingwebhookconfiguration.admissionregistration.k8s.io\/capi-mutating-webhook-configuration serverside-applied/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('the V8 heap is capped below the container memory limit (the V8 default need not follow the limit)', () => {
    const container = one(rendered, 'Deployment').spec.template.spec.containers[0];
    const nodeOptions = (container.env ?? []).find((e: { name: string }) => e.name === 'NODE_OPTIONS')?.value ?? '';
    const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1]);
    const limit = /^(\d+)(Mi|Gi)$/.exec(container.resources.limits.memory);
    const limitMiB = Number(limit?.[1]) * (limit?.[2] === 'Gi' ? 1024 : 1);
    // Room above the heap for code, buffers and the young generation; a heap at the limit gets the pod OOM-killed.
    expect(heapMiB).toBeGreaterThan(0);
    expect(heapMiB / limitMiB).toBeGreaterThanOrEqual(0.5);
    expect(heapMiB / limitMiB).toBeLessThanOrEqual(0.8);
  });

  it('the in-cluster config authenticates with the service account token file and CA', async () => {
    // What a pod sees: KUBERNETES_SERVICE_HOST/PORT and the service-account volume, here holding envtest's CA and token.
    const dir = mkdtempSync(join(tmpdir(), 'deploy-sa-'));
    try {
      writeFileSync(join(dir, 'ca.crt'), Buffer.from(env.caData ?? '', 'base64'));
      writeFileSync(join(dir, 'token'), env.token);
      const url = new URL(env.url);
      const kc = new KubeConfig();
      kc.loadFromString(
        inClusterKubeconfig({
          env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port },
          serviceAccountDir: dir,
        }),
      );
      // An auth provider, not a static token: client-node re-reads the file (every 60 s, like client-go), so
      // rotated projected tokens keep working.
      expect(kc.getCurrentUser()).toMatchObject({
        authProvider: { name: 'tokenFile', config: { tokenFile: join(dir, 'token') } },
      });
      expect(kc.getCurrentUser()?.token).toBeUndefined();
      const client = new KubeClient(kc);
      try {
        const list = await client.list('v1', 'Namespace');
        expect(list.items.map((n) => n.metadata.name)).toContain('capi-system');
      } finally {
        client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  // The kube pass's demo (tools/demo/demo.kube.spec.ts) runs what deploy/build.mjs builds.
  it('the Dockerfile builds from files that exist and starts the output of deploy/build.mjs', () => {
    const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
    const build = JSON.parse(readFileSync(join(deployDir, 'tsconfig.build.json'), 'utf8'));
    expect(build.files).toEqual(['../apps/manager/src/main.ts']);
    expect(build.compilerOptions).toMatchObject({ outDir: '../dist', rootDir: '..', noEmit: false });
    for (const m of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const src of m[1].split(/\s+/))
        expect([src, readdirSync(join(root, src, '..')).includes(src.split('/').pop()!)]).toEqual([src, true]);
    }
    expect(dockerfile).toMatch(/^RUN node deploy\/build.mjs dist$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "dist\/apps\/manager\/src\/main.js"\]/);
    expect(dockerfile).toMatch(/^USER \d+:\d+$/m); // numeric, so runAsNonRoot can verify it
  });
});
