// Ported from controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane_test.go: TestKubeadmControlPlaneDefault,
// TestKubeadmControlPlaneValidateCreate, TestKubeadmControlPlaneValidateUpdate,
// TestKubeadmControlPlaneValidateUpdateAfterDefaulting, TestValidateVersion (TestPathsMatch, TestAllowed, TestPaths
// are in kubeadmcontrolplane-paths.spec.ts).
import type { KubeadmControlPlane } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { defaultFeatureGates } from './common';
import { KubeadmControlPlaneWebhook, validateVersionUpdate } from './kubeadmcontrolplane';

// Fixtures are written as JSON; the opaque kubeadm structs are reached without the typed view.
type Mutable = Omit<KubeadmControlPlane, 'spec'> & { spec: any };
const copy = (k: KubeadmControlPlane): Mutable => structuredClone(k) as Mutable;
const with_ = (k: KubeadmControlPlane, f: (k: Mutable) => void): KubeadmControlPlane => {
  const c = copy(k);
  f(c);
  return c;
};
const cc = (k: Mutable) => (k.spec.kubeadmConfigSpec.clusterConfiguration ??= {});

const plain = new KubeadmControlPlaneWebhook();
const ignition = new KubeadmControlPlaneWebhook(defaultFeatureGates({ KubeadmBootstrapFormatIgnition: true }));

const infraRef = { apiGroup: 'test', kind: 'UnknownInfraMachine', name: 'infraTemplate' };

describe('KubeadmControlPlane Default', () => {
  const kcp = {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { namespace: 'foo' },
    spec: { version: 'v1.18.3', machineTemplate: { spec: { infrastructureRef: { ...infraRef, name: 'foo' } } } },
  } as KubeadmControlPlane;

  it('defaults replicas, version prefix, rollout strategy and maxSurge', () => {
    const k = copy(kcp);
    plain.default(k);
    expect(k.spec.version).toBe('v1.18.3');
    expect(k.spec.replicas).toBe(1);
    expect(k.spec.rollout.strategy.type).toBe('RollingUpdate');
    expect(k.spec.rollout.strategy.rollingUpdate.maxSurge).toBe(1);
  });

  it('prefixes a version without "v" and keeps a set maxSurge', () => {
    const k = with_(kcp, (c) => {
      c.spec.version = '1.18.3';
      c.spec.rollout = { strategy: { rollingUpdate: { maxSurge: 0 } } };
    }) as Mutable;
    plain.default(k);
    expect(k.spec.version).toBe('v1.18.3');
    expect(k.spec.rollout.strategy.rollingUpdate.maxSurge).toBe(0);
  });

  // testutil.CustomDefaultValidateTest: the defaulted object passes validation on create and update.
  it('for KubeadmControlPlane: defaulted object validates on create and update', () => {
    const created = copy(kcp);
    plain.default(created);
    expect(plain.validateCreate(created)).toEqual([]);
    const updated = copy(kcp);
    plain.default(updated);
    expect(plain.validateUpdate(created, updated)).toEqual([]);
  });
});

const valid = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'test', namespace: 'foo' },
  spec: {
    machineTemplate: { spec: { infrastructureRef: infraRef } },
    kubeadmConfigSpec: { clusterConfiguration: {} },
    replicas: 1,
    version: 'v1.19.0',
    rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
  },
} as KubeadmControlPlane;

const invalidLabels = (c: Mutable) => {
  c.spec.machineTemplate.metadata = {
    labels: { foo: '$invalid-key', bar: 'a'.repeat(64) + 'too-long-value', '/invalid-key': 'foo' },
    annotations: { '/invalid-key': 'foo' },
  };
};

describe('KubeadmControlPlane ValidateCreate', () => {
  const cases: [string, KubeadmControlPlaneWebhook, boolean, KubeadmControlPlane][] = [
    ['should succeed when given a valid config', plain, false, valid],
    ['should return error when replicas is nil', plain, true, with_(valid, (c) => delete c.spec.replicas)],
    ['should return error when replicas is zero', plain, true, with_(valid, (c) => (c.spec.replicas = 0))],
    ['should return error when replicas is even', plain, true, with_(valid, (c) => (c.spec.replicas = 2))],
    [
      'should allow even replicas when using external etcd',
      plain,
      false,
      with_(valid, (c) => {
        c.spec.replicas = 2;
        c.spec.kubeadmConfigSpec = { clusterConfiguration: { etcd: { external: { endpoints: ['1.2.3.4'] } } } };
      }),
    ],
    [
      "should succeed when given a valid semantic version with prepended 'v'",
      plain,
      false,
      with_(valid, (c) => (c.spec.version = 'v1.16.6')),
    ],
    [
      "should error when given a valid semantic version without 'v'",
      plain,
      true,
      with_(valid, (c) => (c.spec.version = '1.16.6')),
    ],
    [
      'should return error when given an invalid semantic version (vv1.16.6)',
      plain,
      true,
      with_(valid, (c) => (c.spec.version = 'vv1.16.6')),
    ],
    [
      'should return error when given an invalid semantic version (v1)',
      plain,
      true,
      with_(valid, (c) => (c.spec.version = 'v1')),
    ],
    [
      'should return error when given an invalid semantic CoreDNS version',
      plain,
      true,
      with_(valid, (c) => (cc(c).dns = { imageTag: '1-7' })),
    ],
    [
      'should return error when maxSurge is not 1',
      plain,
      true,
      with_(valid, (c) => (c.spec.rollout.strategy.rollingUpdate.maxSurge = 3)),
    ],
    [
      'should succeed when maxSurge is a string',
      plain,
      false,
      with_(valid, (c) => (c.spec.rollout.strategy.rollingUpdate.maxSurge = '1')),
    ],
    [
      'should return error when Ignition configuration is invalid',
      ignition,
      true,
      with_(
        valid,
        (c) => (c.spec.kubeadmConfigSpec.ignition = { containerLinuxConfig: { additionalConfig: 'config' } }),
      ),
    ],
    [
      'should succeed when Ignition configuration is valid',
      ignition,
      false,
      with_(valid, (c) => {
        c.spec.kubeadmConfigSpec.format = 'ignition';
        c.spec.kubeadmConfigSpec.ignition = {};
      }),
    ],
    ['should return error for invalid metadata', ignition, true, with_(valid, invalidLabels)],
    [
      'should return error for invalid Timeouts.ControlPlaneComponentHealthCheckSeconds',
      plain,
      true,
      with_(valid, (c) => {
        c.spec.kubeadmConfigSpec.initConfiguration = { timeouts: { controlPlaneComponentHealthCheckSeconds: 10 } };
      }),
    ],
    [
      'should pass for valid Timeouts.ControlPlaneComponentHealthCheckSeconds',
      plain,
      false,
      with_(valid, (c) => {
        c.spec.kubeadmConfigSpec.initConfiguration = { timeouts: { controlPlaneComponentHealthCheckSeconds: 10 } };
        c.spec.kubeadmConfigSpec.joinConfiguration = { timeouts: { controlPlaneComponentHealthCheckSeconds: 10 } };
      }),
    ],
    [
      'should return error when CertificateValidityPeriodDays greater than CACertificateValidityPeriodDays',
      plain,
      true,
      with_(valid, (c) =>
        Object.assign(cc(c), { certificateValidityPeriodDays: 350, caCertificateValidityPeriodDays: 300 }),
      ),
    ],
    [
      'should return error when CertificateValidityPeriodDays greater than CACertificateValidityPeriodDays default',
      plain,
      true,
      with_(valid, (c) => Object.assign(cc(c), { certificateValidityPeriodDays: 3651 })),
    ],
    [
      'should return error when rolloutBefore CertificatesExpiryDays greater than cluster CertificateValidityPeriodDays',
      plain,
      true,
      with_(valid, (c) => {
        c.spec.rollout.before = { certificatesExpiryDays: 8 };
        cc(c).certificateValidityPeriodDays = 7;
      }),
    ],
  ];

  it.each(cases)('%s', (_name, webhook, expectErr, kcp) => {
    if (expectErr) expect(() => webhook.validateCreate(kcp)).toThrow(AdmissionError);
    else expect(webhook.validateCreate(kcp)).toEqual([]);
  });
});

/** The denial's message (apierrors.NewInvalid), or undefined when allowed. */
function denial(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof AdmissionError) return e.status.message;
    throw e;
  }
}

describe('KubeadmControlPlane messages (upstream wording)', () => {
  it.each([
    [
      'replicas nil',
      with_(valid, (c) => delete c.spec.replicas),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.replicas: Required value: is required',
    ],
    [
      'replicas negative',
      with_(valid, (c) => (c.spec.replicas = -1)),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.replicas: Forbidden: cannot be less than or equal to 0',
    ],
    [
      'replicas even with stacked etcd',
      with_(valid, (c) => (c.spec.replicas = 2)),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.replicas: Forbidden: cannot be an even number when etcd is stacked',
    ],
    [
      'version garbage',
      with_(valid, (c) => (c.spec.version = 'garbage')),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: [spec.version: Invalid value: "garbage": must start with v, spec.version: Invalid value: "garbage": must be a valid semantic version]',
    ],
    [
      'maxSurge 3',
      with_(valid, (c) => (c.spec.rollout.strategy.rollingUpdate.maxSurge = 3)),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.rollout.strategy.rollingUpdate.maxSurge: Required value: value must be 1 or 0',
    ],
    [
      'maxSurge 0 with 1 replica',
      with_(valid, (c) => (c.spec.rollout.strategy.rollingUpdate.maxSurge = 0)),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.rollout.strategy.rollingUpdate: Required value: when KubeadmControlPlane is configured to scale-in, replica count needs to be at least 3',
    ],
    [
      'CoreDNS tag not a version',
      with_(valid, (c) => (cc(c).dns = { imageTag: '1-7' })),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: dns.imageTag: Invalid value: "1-7": failed to parse CoreDNS version: Short version cannot contain PreRelease/Build meta data',
    ],
    [
      'machine naming without random',
      with_(valid, (c) => (c.spec.machineNaming = { template: '{{ .cluster.name }}-cp' })),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.machineNaming.template: Invalid value: "{{ .cluster.name }}-cp": invalid template, {{ .random }} is missing',
    ],
    [
      'empty infrastructure name',
      with_(valid, (c) => (c.spec.machineTemplate.spec.infrastructureRef.name = '')),
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.machineTemplate.infrastructure.name: Invalid value: "": cannot be empty',
    ],
  ])('%s', (_name, kcp, message) => {
    expect(denial(() => plain.validateCreate(kcp))).toBe(message);
  });

  it('a changed clusterConfiguration.controlPlaneEndpoint cannot be modified', () => {
    const after = with_(valid, (c) => (cc(c).controlPlaneEndpoint = 'some control plane endpoint'));
    expect(denial(() => plain.validateUpdate(valid, after))).toBe(
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.kubeadmConfigSpec.clusterConfiguration.controlPlaneEndpoint: Forbidden: cannot be modified',
    );
  });

  it('an upgrade skipping a minor version is forbidden', () => {
    const after = with_(valid, (c) => (c.spec.version = 'v1.21.0'));
    expect(denial(() => plain.validateUpdate(valid, after))).toBe(
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.version: Forbidden: cannot update Kubernetes version from v1.19.0 to v1.21.0',
    );
  });

  it('a CoreDNS upgrade the migration library cannot do is forbidden', () => {
    const before = with_(valid, (c) => (cc(c).dns = { imageTag: 'v1.6.6_foobar.1' }));
    const after = with_(valid, (c) => (cc(c).dns = { imageTag: 'v99.99.99' }));
    expect(denial(() => plain.validateUpdate(before, after))).toBe(
      "KubeadmControlPlane.cluster.x-k8s.io \"test\" is invalid: spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag: Forbidden: cannot migrate CoreDNS up to '99.99.99' from '1.6.6+foobar.1': cannot migrate up to '99.99.99' from '1.6.6'",
    );
  });
});

describe('validateVersion (TestValidateVersion)', () => {
  it.each([
    ['error when old version is empty', '', 'v1.16.6', true],
    ['error when old version is invalid', 'invalid-version', 'v1.18.1', true],
    ['error when new version is empty', 'v1.16.6', '', true],
    ['error when new version is invalid', 'v1.18.1', 'invalid-version', true],
    ['pass when both versions are v1.19.0', 'v1.19.0', 'v1.19.0', false],
    ['error when upgrading two minor versions', 'v1.18.8', 'v1.20.0-alpha.0.734_ba502ee555924a', true],
    ['pass when upgrading one minor version', 'v1.20.1', 'v1.21.18', false],
  ])('%s', (_name, oldVersion, newVersion, expectErr) => {
    expect(validateVersionUpdate(oldVersion, newVersion).length > 0).toBe(expectErr);
  });

  it('wraps the parse error as upstream (InternalError)', () => {
    expect(validateVersionUpdate('', 'v1.16.6')).toEqual([
      {
        type: 'InternalError',
        field: 'spec.version',
        detail: 'failed to parse current kubeadmcontrolplane version: : strconv.ParseUint: parsing "": invalid syntax',
      },
    ]);
  });
});

describe('KubeadmControlPlane ValidateUpdateAfterDefaulting', () => {
  it('update should succeed after defaulting', () => {
    const before = {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      metadata: { name: 'test', namespace: 'foo' },
      spec: { version: 'v1.19.0', machineTemplate: { spec: { infrastructureRef: infraRef } } },
    } as KubeadmControlPlane;
    const after = copy(before);
    plain.default(after);
    expect(plain.validateUpdate(copy(before), after)).toEqual([]);
    expect(after.spec.version).toBe('v1.19.0');
    expect(after.spec.rollout.strategy.type).toBe('RollingUpdate');
    expect(after.spec.rollout.strategy.rollingUpdate.maxSurge).toBe(1);
    expect(after.spec.replicas).toBe(1);
  });
});

describe('KubeadmControlPlane create: naming and etcd', () => {
  const message = (kcp: KubeadmControlPlane) => {
    try {
      plain.validateCreate(kcp);
      return undefined;
    } catch (e) {
      return (e as AdmissionError).status.message;
    }
  };

  it('accepts a naming template with {{ .random }}', () => {
    expect(
      message(
        with_(valid, (c) => (c.spec.machineNaming = { template: '{{ .kubeadmControlPlane.name }}-{{ .random }}' })),
      ),
    ).toBeUndefined();
  });

  it('refuses a naming template whose names are not DNS subdomains', () => {
    expect(message(with_(valid, (c) => (c.spec.machineNaming = { template: 'UPPER-{{ .random }}' })))).toContain(
      'spec.machineNaming.template: Invalid value: "UPPER-{{ .random }}": invalid template, generated names would not be valid Kubernetes object names: a lowercase RFC 1123 subdomain',
    );
  });

  it('refuses a naming template that does not render', () => {
    expect(message(with_(valid, (c) => (c.spec.machineNaming = { template: '{{ .nope }}-{{ .random }}' })))).toContain(
      'spec.machineNaming.template: Invalid value: "{{ .nope }}-{{ .random }}": invalid template: rendering template',
    );
  });

  it('refuses both local and external etcd', () => {
    const kcp = with_(valid, (c) => {
      c.spec.replicas = 3;
      cc(c).etcd = { local: { dataDir: '/d' }, external: { endpoints: ['1.2.3.4'] } };
    });
    expect(message(kcp)).toBe(
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.kubeadmConfigSpec.clusterConfiguration.etcd.local: Forbidden: cannot have both external and local etcd',
    );
  });

  it('refuses an invalid local etcd image tag', () => {
    expect(message(with_(valid, (c) => (cc(c).etcd = { local: { imageTag: 'v3.5+x' } })))).toBe(
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.kubeadmConfigSpec.clusterConfiguration.etcd.local.imageTag: Forbidden: tag v3.5+x is invalid',
    );
  });

  it('refuses rollout strategy without RollingUpdate type when maxSurge is set', () => {
    expect(message(with_(valid, (c) => delete c.spec.rollout.strategy.type))).toBe(
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.rollout.strategy.type: Required value: only RollingUpdate is supported',
    );
  });

  it('reads a maxSurge string as Go IntValue (not a number → 0: needs 3 replicas)', () => {
    expect(message(with_(valid, (c) => (c.spec.rollout.strategy.rollingUpdate.maxSurge = 'abc')))).toBe(
      'KubeadmControlPlane.cluster.x-k8s.io "test" is invalid: spec.rollout.strategy.rollingUpdate: Required value: when KubeadmControlPlane is configured to scale-in, replica count needs to be at least 3',
    );
  });
});
