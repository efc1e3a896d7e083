// Ports upstream core/webhooks/admission/test/machine_test.go TestMachineTaintValidation. Upstream runs it through
// envtest (a create against the API server); the webhook's part is validateCreate, which is what these cases call.
import type { Machine } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { MachineWebhook } from './machine';

const chars254 =
  'moreThen253Charactersaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaadddz';
const chars253 =
  '253charactersaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaddd';
const chars63 = '63charactersaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbddd';
const chars64 = 'moreThene63Charactersaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbdddz';

// builder.Machine("default", "m").WithClusterName("cluster1").WithBootstrapTemplate(...).WithInfrastructureMachine(...)
const machine = (taintKey?: string, labels?: Record<string, string>): Machine =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { namespace: 'default', name: 'machine-00', ...(labels ? { labels } : {}) },
    spec: {
      clusterName: 'cluster1',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'BootstrapTemplate', name: 'bt' } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InfrastructureMachine', name: 'im' },
      ...(taintKey !== undefined ? { taints: [{ key: taintKey, effect: 'NoSchedule', propagation: 'Always' }] } : {}),
    },
  }) as unknown as Machine;

const CP = { 'cluster.x-k8s.io/control-plane': 'true' };

describe('TestMachineTaintValidation', () => {
  it.each<[string, boolean, string | undefined, Record<string, string> | undefined, boolean]>([
    ['should allow empty taints with feature gate disabled', false, undefined, undefined, false],
    ['should forbid taints with feature gate disabled', false, 'some/taint', undefined, true],
    ['should allow empty taints with feature gate enabled', true, undefined, undefined, false],
    [
      'should block taint key node.cluster.x-k8s.io/uninitialized',
      true,
      'node.cluster.x-k8s.io/uninitialized',
      undefined,
      true,
    ],
    [
      'should block taint key node.cluster.x-k8s.io/outdated-revision',
      true,
      'node.cluster.x-k8s.io/outdated-revision',
      undefined,
      true,
    ],
    [
      'should block taint with key prefix node.kubernetes.io/, which is not `out-of-service`',
      true,
      'node.kubernetes.io/some-taint',
      undefined,
      true,
    ],
    [
      'should allow taint node.kubernetes.io/out-of-service',
      true,
      'node.kubernetes.io/out-of-service',
      undefined,
      false,
    ],
    [
      'should block taint with key prefix node.cloudprovider.kubernetes.io/',
      true,
      'node.cloudprovider.kubernetes.io/some-taint',
      undefined,
      true,
    ],
    ['should block taint key node-role.kubernetes.io/master', true, 'node-role.kubernetes.io/master', undefined, true],
    [
      'should allow taint key node-role.kubernetes.io/control-plane for control-plane nodes',
      true,
      'node-role.kubernetes.io/control-plane',
      CP,
      false,
    ],
    [
      'should block taint key node-role.kubernetes.io/control-plane for worker nodes',
      true,
      'node-role.kubernetes.io/control-plane',
      undefined,
      true,
    ],
    ['should allow taint key without prefix and 63 characters', true, chars63, undefined, false],
    ['should block taint key without prefix and more than 63 characters', true, chars64, undefined, true],
    ['should allow taint key with prefix of 253 characters', true, `${chars253}/${chars63}`, undefined, false],
    ['should block taint key with prefix of more than 253 characters', true, `${chars254}/${chars63}`, undefined, true],
    ['should block taint key with empty prefix', true, '/with-empty-prefix', undefined, true],
    ['should block taint key with multiple slashes', true, 'one/two/with-prefix', undefined, true],
  ])('%s', (_n, featureEnabled, key, labels, expectErr) => {
    const webhook = new MachineWebhook({ featureGates: { MachineTaintPropagation: featureEnabled } });
    const m = machine(key, labels);
    if (expectErr) expect(() => webhook.validateCreate(m)).toThrow(AdmissionError);
    else expect(webhook.validateCreate(m)).toEqual([]);
  });
});
