// kubeadmWebhooks(): the registrations upstream's +kubebuilder:webhook markers declare.
import { kubeadmWebhooks } from './index';

describe('kubeadmWebhooks', () => {
  it('registers upstream paths and verbs', () => {
    const regs = kubeadmWebhooks({ readKubeadmControlPlane: async () => Promise.reject(new Error('unused')) });
    expect(
      regs.map((r) => ({
        resource: `${r.group}/${r.version}/${r.resource}`,
        mutate: r.mutatePath && { path: r.mutatePath, verbs: r.mutateVerbs, has: !!r.defaulter },
        validate: { path: r.validatePath, verbs: r.validateVerbs, has: !!r.validator },
      })),
    ).toEqual([
      {
        resource: 'controlplane.cluster.x-k8s.io/v1beta2/kubeadmcontrolplanes',
        mutate: {
          path: '/mutate-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane',
          verbs: ['CREATE', 'UPDATE'],
          has: true,
        },
        validate: {
          path: '/validate-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane',
          verbs: ['CREATE', 'UPDATE'],
          has: true,
        },
      },
      {
        resource: 'controlplane.cluster.x-k8s.io/v1beta2/kubeadmcontrolplanes/scale',
        mutate: undefined,
        validate: {
          path: '/validate-scale-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane',
          verbs: ['UPDATE'],
          has: true,
        },
      },
      {
        resource: 'bootstrap.cluster.x-k8s.io/v1beta2/kubeadmconfigs',
        mutate: undefined,
        validate: {
          path: '/validate-bootstrap-cluster-x-k8s-io-v1beta2-kubeadmconfig',
          verbs: ['CREATE', 'UPDATE'],
          has: true,
        },
      },
      {
        resource: 'bootstrap.cluster.x-k8s.io/v1beta2/kubeadmconfigtemplates',
        mutate: {
          path: '/mutate-bootstrap-cluster-x-k8s-io-v1beta2-kubeadmconfigtemplate',
          verbs: ['CREATE', 'UPDATE'],
          has: true,
        },
        validate: {
          path: '/validate-bootstrap-cluster-x-k8s-io-v1beta2-kubeadmconfigtemplate',
          verbs: ['CREATE', 'UPDATE'],
          has: true,
        },
      },
    ]);
  });

  it('leaves out the scale validator without a KubeadmControlPlane reader', () => {
    expect(kubeadmWebhooks().map((r) => r.resource)).toEqual([
      'kubeadmcontrolplanes',
      'kubeadmconfigs',
      'kubeadmconfigtemplates',
    ]);
  });

  it('passes the feature gates to the validators', () => {
    const [kcp] = kubeadmWebhooks({ gates: { enabled: (n) => n === 'KubeadmBootstrapFormatIgnition' } });
    const obj = {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      metadata: { name: 'k' },
      spec: {
        replicas: 1,
        version: 'v1.30.0',
        machineTemplate: { spec: { infrastructureRef: { apiGroup: 'g', kind: 'K', name: 'n' } } },
        kubeadmConfigSpec: { format: 'ignition' },
      },
    };
    expect(kcp.validator!.validateCreate(obj, { operation: 'CREATE' })).toEqual([]);
    expect(() => kubeadmWebhooks()[0].validator!.validateCreate(obj, { operation: 'CREATE' })).toThrow(/feature gate/);
  });
});
