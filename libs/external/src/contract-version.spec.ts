import { contractVersionOf, ContractVersionError } from './contract-version';

const crd = (labels: Record<string, string> | undefined, versions: string[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'testmachines.infrastructure.cluster.x-k8s.io', labels },
  spec: {
    group: 'infrastructure.cluster.x-k8s.io',
    names: { kind: 'TestMachine' },
    versions: versions.map((name) => ({ name, served: true, storage: name === versions[0] })),
  },
});

describe('contractVersionOf', () => {
  it('picks the last served version listed in the contract label', () => {
    expect(contractVersionOf(crd({ 'cluster.x-k8s.io/v1beta2': 'v1beta1_v1beta2' }, ['v1beta1', 'v1beta2']))).toBe(
      'v1beta2',
    );
    expect(contractVersionOf(crd({ 'cluster.x-k8s.io/v1beta2': 'v1beta1_v1beta3' }, ['v1beta1']))).toBe('v1beta1');
  });
  it('rejects CRDs without the label or without a served contract version', () => {
    expect(() => contractVersionOf(crd(undefined, ['v1']))).toThrow(ContractVersionError);
    expect(() => contractVersionOf(crd({ 'cluster.x-k8s.io/v1beta2': 'v9' }, ['v1']))).toThrow(
      /serves none of the versions/,
    );
  });
});
