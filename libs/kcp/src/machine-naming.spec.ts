// Upstream desired_state_test.go Test_ComputeDesiredMachine (the naming cases) and the KCP webhook's validateNaming
// (controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane.go).
import { kcp } from './testing/fixtures';
import { machineNamingTemplateErrors, newMachineName } from './machine-naming';

const withTemplate = (template?: string) => {
  const k = kcp();
  k.metadata.name = 'testControlPlane';
  if (template !== undefined) k.spec.machineNaming = { template };
  return k;
};

describe('newMachineName (upstream ComputeDesiredMachine for a new Machine)', () => {
  it('should return the correct Machine name when creating a new Machine', () => {
    const name = newMachineName(withTemplate('{{ .kubeadmControlPlane.name }}-kcp-{{ .random }}'), 'testCluster');
    expect(name).toMatch(/^testControlPlane-kcp-[a-z0-9]{5}$/);
    expect(name.endsWith('00000')).toBe(false);
  });

  it("should return error when creating a new Machine when '.random' is not added in template", () => {
    expect(() => newMachineName(withTemplate('{{ .kubeadmControlPlane.name }}-kcp'), 'testCluster')).toThrow(
      'failed to compute desired Machine: cannot generate Machine name: {{ .random }} is missing in machineNaming.template',
    );
  });

  it('should not return error when creating a new Machine when the generated name exceeds 63', () => {
    const name = newMachineName(withTemplate(`{{ .random }}${'0'.repeat(59)}`), 'testCluster');
    expect(name).toHaveLength(63);
    expect(name).toContain('0'.repeat(53));
    expect(name.endsWith('00000')).toBe(false);
  });

  it('should return error when creating a new Machine with invalid template', () => {
    expect(() =>
      newMachineName(withTemplate('some-hardcoded-name-{{ .doesnotexistindata }}-{{ .random }}'), 'testCluster'),
    ).toThrow(
      /^failed to compute desired Machine: failed to generate Machine name: rendering template: .*doesnotexistindata/,
    );
  });

  it('should return the correct Machine name when creating a new Machine with default templated name', () => {
    expect(newMachineName(withTemplate(), 'testCluster')).toMatch(/^testControlPlane-[a-z0-9]{5}$/);
  });

  it('offers the cluster name', () => {
    expect(newMachineName(withTemplate('{{ .cluster.name }}-cp-{{ .random }}'), 'testCluster')).toMatch(
      /^testCluster-cp-[a-z0-9]{5}$/,
    );
  });
});

describe('machineNamingTemplateErrors (upstream webhook validateNaming)', () => {
  it('accepts no template and a valid one', () => {
    expect(machineNamingTemplateErrors(withTemplate())).toEqual([]);
    expect(machineNamingTemplateErrors(withTemplate('{{ .kubeadmControlPlane.name }}-{{ .random }}'))).toEqual([]);
  });

  it('reports a missing {{ .random }}', () => {
    expect(machineNamingTemplateErrors(withTemplate('fixed-name'))).toEqual([
      'spec.machineNaming.template: Invalid value: "fixed-name": invalid template, {{ .random }} is missing',
    ]);
  });

  it('reports a template that does not render', () => {
    expect(machineNamingTemplateErrors(withTemplate('{{ .nope }}-{{ .random }}'))).toEqual([
      expect.stringMatching(
        /^spec\.machineNaming\.template: Invalid value: ".*": invalid template: rendering template/,
      ),
    ]);
  });

  it('reports names that would not be valid object names', () => {
    expect(machineNamingTemplateErrors(withTemplate('UPPER-{{ .random }}'))).toEqual([
      expect.stringMatching(
        /invalid template, generated names would not be valid Kubernetes object names: a lowercase RFC 1123/,
      ),
    ]);
  });
});
