// The paths and verbs of upstream's +kubebuilder:webhook markers in core/webhooks/admission/{machinehealthcheck,
// extensionconfig,machinedrainrules,cluster}.go.
import type { ExtensionConfig } from '@capi/api';
import { FeatureGates } from '@capi/controller-runtime';
import { miscWebhooks } from './misc';

const summary = (gates?: FeatureGates) =>
  miscWebhooks({ featureGates: gates }).map((r) => ({
    group: r.group,
    version: r.version,
    kind: r.kind,
    resource: r.resource,
    mutatePath: r.mutatePath,
    mutateVerbs: r.mutateVerbs,
    validatePath: r.validatePath,
    validateVerbs: r.validateVerbs,
    defaulter: !!r.defaulter,
    validator: !!r.validator,
  }));

describe('miscWebhooks', () => {
  it("registers upstream's paths and verbs", () => {
    const cu = ['CREATE', 'UPDATE'];
    expect(summary()).toEqual([
      {
        group: 'cluster.x-k8s.io',
        version: 'v1beta2',
        kind: 'MachineHealthCheck',
        resource: 'machinehealthchecks',
        mutatePath: '/mutate-cluster-x-k8s-io-v1beta2-machinehealthcheck',
        mutateVerbs: cu,
        validatePath: '/validate-cluster-x-k8s-io-v1beta2-machinehealthcheck',
        validateVerbs: cu,
        defaulter: true,
        validator: true,
      },
      {
        group: 'runtime.cluster.x-k8s.io',
        version: 'v1beta2',
        kind: 'ExtensionConfig',
        resource: 'extensionconfigs',
        mutatePath: '/mutate-runtime-cluster-x-k8s-io-v1beta2-extensionconfig',
        mutateVerbs: cu,
        validatePath: '/validate-runtime-cluster-x-k8s-io-v1beta2-extensionconfig',
        validateVerbs: cu,
        defaulter: true,
        validator: true,
      },
      {
        group: 'cluster.x-k8s.io',
        version: 'v1beta2',
        kind: 'MachineDrainRule',
        resource: 'machinedrainrules',
        mutatePath: undefined,
        mutateVerbs: undefined,
        validatePath: '/validate-cluster-x-k8s-io-v1beta2-machinedrainrule',
        validateVerbs: cu,
        defaulter: false,
        validator: true,
      },
      {
        group: 'cluster.x-k8s.io',
        version: 'v1beta2',
        kind: 'Cluster',
        resource: 'clusters',
        mutatePath: '/mutate-cluster-x-k8s-io-v1beta2-cluster',
        mutateVerbs: cu,
        validatePath: '/validate-cluster-x-k8s-io-v1beta2-cluster',
        validateVerbs: ['CREATE', 'UPDATE', 'DELETE'],
        defaulter: true,
        validator: true,
      },
    ]);
  });

  it("hands the manager's feature gates to the ExtensionConfig webhook", async () => {
    const ext = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'ext' },
      spec: { clientConfig: { url: 'https://x.example' }, namespaceSelector: {} },
    } as ExtensionConfig;
    const validator = (gates?: FeatureGates) => miscWebhooks({ featureGates: gates })[1].validator!;
    const req = { operation: 'CREATE' as const };
    expect(() => validator().validateCreate(ext, req)).toThrow('RuntimeSDK feature flag');
    expect(await validator(new FeatureGates({ RuntimeSDK: true })).validateCreate(ext, req)).toEqual([]);
  });
});
