// The provider split and the variables (components.ts), on deploy/'s objects as the repository has them: read from
// config/crd and deploy/*.yaml directly (no kubectl), so this runs in the unit pass.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { loadManagerConfig } from '@capi/manager';
import { renderTemplate } from '../demo/envsubst';
import {
  canonicalImage,
  componentsYaml,
  metadataYaml,
  parseObjects,
  PROVIDER_LABEL,
  providerReleases,
  withVariableArgs,
  type Obj,
} from './components';

const root = resolve(__dirname, '../..');
const read = (...files: string[]) => files.flatMap((f) => parseObjects(readFileSync(join(root, f), 'utf8')));
const yamls = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .map((f) => join(dir, f));
const deploy = read(
  ...yamls('config/crd'),
  'deploy/manager/namespace.yaml',
  'deploy/manager/manager.yaml',
  'deploy/manager/metrics_service.yaml',
  ...yamls('deploy/rbac'),
  ...yamls('deploy/webhook'),
);
const inmemory = read(...yamls('config/inmemory/crd'), 'deploy/inmemory/role.yaml');
const releases = providerReleases(deploy, inmemory);
const release = (label: string) => releases.find((r) => r.label === label)!;
const crdGroups = (objs: Obj[]) =>
  [...new Set(objs.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.spec.group))].sort();

/** The manager's config from the core Deployment's args with clusterctl's variables set to `values`. */
function managerConfigWith(values: Record<string, string | undefined>) {
  const core = parseObjects(renderTemplate(componentsYaml(release('cluster-api').objects), values));
  const args = core.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args;
  const dir = mkdtempSync(join(tmpdir(), 'clusterctl-sa-'));
  try {
    writeFileSync(join(dir, 'token'), 'token');
    writeFileSync(join(dir, 'namespace'), 'capi-system');
    const loaded = loadManagerConfig(
      args,
      { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
      { serviceAccountDir: dir },
    );
    if (loaded.help) throw new Error('unexpected --help');
    return loaded.config;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('providerReleases', () => {
  it('splits the CRDs: core and runtime to cluster-api, KCP to kubeadm, KubeadmConfig to bootstrap-in-memory', () => {
    expect(releases.map((r) => `${r.type}/${r.name} ${r.file}`)).toEqual([
      'CoreProvider/cluster-api core-components.yaml',
      'ControlPlaneProvider/kubeadm control-plane-components.yaml',
      'BootstrapProvider/in-memory bootstrap-components.yaml',
      'InfrastructureProvider/in-memory infrastructure-components.yaml',
    ]);
    expect(crdGroups(release('cluster-api').objects)).toEqual(['cluster.x-k8s.io', 'runtime.cluster.x-k8s.io']);
    expect(crdGroups(release('control-plane-kubeadm').objects)).toEqual(['controlplane.cluster.x-k8s.io']);
    expect(crdGroups(release('bootstrap-in-memory').objects)).toEqual(['bootstrap.cluster.x-k8s.io']);
    expect(crdGroups(release('infrastructure-in-memory').objects)).toEqual(['infrastructure.cluster.x-k8s.io']);
  });

  it('gives each provider exactly one Namespace (clusterctl`s default target namespace) and labels every object', () => {
    for (const r of releases) {
      expect(r.objects.filter((o) => o.kind === 'Namespace')).toHaveLength(1);
      for (const o of r.objects) expect(o.metadata.labels?.[PROVIDER_LABEL]).toBe(r.label);
    }
    expect(release('cluster-api').objects.find((o) => o.kind === 'Namespace')!.metadata.name).toBe('capi-system');
  });

  it('keeps the manager, its RBAC and webhooks in the core, without the KubeadmConfig webhooks CABPK serves', () => {
    const kinds = release('cluster-api').objects.map((o) => o.kind);
    for (const k of [
      'Deployment',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'Certificate',
      'Issuer',
    ])
      expect(kinds).toContain(k);
    for (const r of releases.filter((x) => x.label !== 'cluster-api'))
      expect(r.objects.filter((o) => o.kind === 'Deployment')).toEqual([]);
    const paths = release('cluster-api')
      .objects.filter((o) => o.kind.endsWith('WebhookConfiguration'))
      .flatMap((o) =>
        o.webhooks.map((w: { clientConfig: { service: { path: string } } }) => w.clientConfig.service.path),
      );
    expect(paths).toContain('/validate-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane');
    expect(paths).toContain('/validate-cluster-x-k8s-io-v1beta2-machine');
    expect(paths.filter((p: string) => p.includes('bootstrap'))).toEqual([]);
    // deploy/ itself keeps them (the kubectl apply -k install has no CABPK).
    expect(JSON.stringify(deploy)).toContain('/validate-bootstrap-cluster-x-k8s-io-v1beta2-kubeadmconfig');
  });

  it('binds the in-memory role to the manager by its user name, which clusterctl does not re-namespace', () => {
    const binding = release('infrastructure-in-memory').objects.find((o) => o.kind === 'ClusterRoleBinding')!;
    expect(binding.subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccount:capi-system:capi-manager' },
    ]);
  });

  it('fails on a deploy/ without the manager`s Namespace or the KCP CRD', () => {
    expect(() =>
      providerReleases(
        deploy.filter((o) => o.kind !== 'Namespace'),
        inmemory,
      ),
    ).toThrow('deploy/ renders no Namespace capi-system');
    expect(() =>
      providerReleases(
        deploy.filter((o) => o.spec?.group !== 'controlplane.cluster.x-k8s.io'),
        inmemory,
      ),
    ).toThrow('deploy/ renders no CRD of controlplane.cluster.x-k8s.io');
  });
});

describe('the manager`s variables', () => {
  it('defaults as upstream`s core-components: RuntimeSDK and InPlaceUpdates off, and the embedded provider off', () => {
    const c = managerConfigWith({});
    expect(c.featureGates.enabled('RuntimeSDK')).toBe(false);
    expect(c.featureGates.enabled('InPlaceUpdates')).toBe(false);
    expect(c.embeddedProvider).toBe(false);
  });

  it('EXP_RUNTIME_SDK, EXP_IN_PLACE_UPDATES and CAPI_EMBEDDED_PROVIDER reach the manager`s flags', () => {
    const c = managerConfigWith({
      EXP_RUNTIME_SDK: 'true',
      EXP_IN_PLACE_UPDATES: 'true',
      CAPI_EMBEDDED_PROVIDER: 'true',
    });
    expect(c.featureGates.enabled('RuntimeSDK')).toBe(true);
    expect(c.featureGates.enabled('InPlaceUpdates')).toBe(true);
    expect(c.embeddedProvider).toBe(true);
  });

  it('replaces the flags deploy/ sets and keeps the others', () => {
    expect(withVariableArgs(['--leader-elect', '--feature-gates=RuntimeSDK=true'])).toEqual([
      '--leader-elect',
      '--feature-gates=RuntimeSDK=${EXP_RUNTIME_SDK:=false},InPlaceUpdates=${EXP_IN_PLACE_UPDATES:=false},PriorityQueue=${EXP_PRIORITY_QUEUE:=true},ReconcilerRateLimiting=${EXP_RECONCILER_RATE_LIMITING:=true}',
      '--embedded-provider=${CAPI_EMBEDDED_PROVIDER:=false}',
    ]);
  });
});

describe('canonicalImage', () => {
  it.each([
    ['capi-manager:dev', 'docker.io/library/capi-manager:dev'],
    ['org/capi-manager:v1', 'docker.io/org/capi-manager:v1'],
    ['registry.example/capi-manager:v1', 'registry.example/capi-manager:v1'],
    ['localhost:5000/capi-manager:v1', 'localhost:5000/capi-manager:v1'],
  ])('%s → %s', (image, want) => expect(canonicalImage(image)).toBe(want));

  it('is applied to the core Deployment', () => {
    const d = release('cluster-api').objects.find((o) => o.kind === 'Deployment')!;
    expect(d.spec.template.spec.containers[0].image).toBe('docker.io/library/capi-manager:dev');
  });
});

describe('parseObjects', () => {
  it('rejects a document that is not a Kubernetes object', () => {
    expect(() => parseObjects('apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nresources: [crd]\n')).toThrow(
      'not a Kubernetes object',
    );
  });
});

describe('metadataYaml', () => {
  it('maps the version`s release series to contract v1beta2', () => {
    expect(parse(metadataYaml('v0.1.0'))).toEqual({
      apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
      kind: 'Metadata',
      releaseSeries: [{ major: 0, minor: 1, contract: 'v1beta2' }],
    });
  });
  it('rejects a version clusterctl could not match to a release series', () => {
    expect(() => metadataYaml('0.1')).toThrow('is not a semantic version');
  });
});
