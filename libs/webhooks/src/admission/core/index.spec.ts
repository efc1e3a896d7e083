import { coreWebhooks } from './index';
import { MachineDeploymentWebhook } from './machinedeployment';
import { MachineSetWebhook } from './machineset';
import { MachineWebhook } from './machine';

describe('coreWebhooks', () => {
  it('registers the three kinds with upstream paths and verbs (+kubebuilder:webhook markers)', () => {
    const regs = coreWebhooks();
    expect(
      regs.map(({ group, version, kind, resource, mutatePath, validatePath, mutateVerbs, validateVerbs }) => ({
        group,
        version,
        kind,
        resource,
        mutatePath,
        validatePath,
        mutateVerbs,
        validateVerbs,
      })),
    ).toEqual(
      [
        ['MachineDeployment', 'machinedeployments'],
        ['MachineSet', 'machinesets'],
        ['Machine', 'machines'],
      ].map(([kind, resource]) => ({
        group: 'cluster.x-k8s.io',
        version: 'v1beta2',
        kind,
        resource,
        mutatePath: `/mutate-cluster-x-k8s-io-v1beta2-${kind.toLowerCase()}`,
        validatePath: `/validate-cluster-x-k8s-io-v1beta2-${kind.toLowerCase()}`,
        mutateVerbs: ['CREATE', 'UPDATE'],
        validateVerbs: ['CREATE', 'UPDATE'],
      })),
    );
    expect(regs[0].defaulter).toBeInstanceOf(MachineDeploymentWebhook);
    expect(regs[0].validator).toBe(regs[0].defaulter);
    expect(regs[1].validator).toBeInstanceOf(MachineSetWebhook);
    expect(regs[2].validator).toBeInstanceOf(MachineWebhook);
  });

  it('passes feature gates to the webhooks', () => {
    const [md] = coreWebhooks({ featureGates: { MachineTaintPropagation: true } });
    const obj = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name: 'md' },
      spec: {
        template: { spec: { bootstrap: { dataSecretName: 's' }, taints: [{ key: 'a', effect: 'NoSchedule' }] } },
      },
    };
    expect(md.validator?.validateCreate(obj, { operation: 'CREATE' })).toEqual([]);
    expect(() => coreWebhooks()[0].validator?.validateCreate(obj, { operation: 'CREATE' })).toThrow(
      /MachineTaintPropagation is disabled/,
    );
  });
});
