// Ports upstream core/webhooks/admission/machine_test.go table by table.
import type { Machine } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { DEFAULT_NODE_DELETION_TIMEOUT_SECONDS, MachineWebhook } from './machine';

interface MInput {
  name?: string;
  labels?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
  spec?: Record<string, unknown>;
}
const machine = ({ name, labels, ownerReferences, spec }: MInput = {}): Machine =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      namespace: 'foobar',
      ...(name !== undefined ? { name } : {}),
      ...(labels ? { labels } : {}),
      ...(ownerReferences ? { ownerReferences } : {}),
    },
    spec: { ...spec },
  }) as unknown as Machine;

function expectValidation(webhook: MachineWebhook, obj: Machine, expectErr: boolean): void {
  if (expectErr) {
    expect(() => webhook.validateCreate(obj)).toThrow(AdmissionError);
    expect(() => webhook.validateUpdate(obj, obj)).toThrow(AdmissionError);
  } else {
    expect(webhook.validateCreate(obj)).toEqual([]);
    expect(webhook.validateUpdate(obj, obj)).toEqual([]);
  }
}

const denial = (call: () => unknown): string => {
  try {
    call();
  } catch (e) {
    return (e as AdmissionError).status.message ?? '';
  }
  throw new Error('expected a denial');
};

describe('Machine webhook', () => {
  const webhook = new MachineWebhook();

  it('TestMachineDefault', () => {
    const m = machine({ spec: { bootstrap: { configRef: { name: 'bootstrap1' } }, version: '1.17.5' } });
    // testutil.CustomDefaultValidateTest.
    const createCopy = structuredClone(m);
    const updateCopy = structuredClone(m);
    webhook.default(createCopy);
    expect(webhook.validateCreate(createCopy)).toEqual([]);
    webhook.default(updateCopy);
    expect(webhook.validateUpdate(createCopy, updateCopy)).toEqual([]);
    expect(webhook.validateDelete()).toEqual([]);

    webhook.default(m);
    expect(m.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe('');
    expect(m.spec.version).toBe('v1.17.5');
    expect(m.spec.deletion?.nodeDeletionTimeoutSeconds).toBe(DEFAULT_NODE_DELETION_TIMEOUT_SECONDS);
    expect(DEFAULT_NODE_DELETION_TIMEOUT_SECONDS).toBe(10);
  });

  it('keeps an explicit nodeDeletionTimeoutSeconds and a v-prefixed version', () => {
    const m = machine({ spec: { clusterName: 'c', version: 'v1.30.0', deletion: { nodeDeletionTimeoutSeconds: 0 } } });
    webhook.default(m);
    expect(m.spec.deletion?.nodeDeletionTimeoutSeconds).toBe(0);
    expect(m.spec.version).toBe('v1.30.0');
    expect(m.metadata.labels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'c' });
  });

  it.each([
    ['should return error if configref and data are nil', {}, true],
    ['should not return error if dataSecretName is set', { dataSecretName: 'test' }, false],
    ['should not return error if dataSecretName is set (empty)', { dataSecretName: '' }, false],
    ['should not return error if config ref is set', { configRef: { name: 'bootstrap1' } }, false],
  ])('TestMachineBootstrapValidation: %s', (_n, bootstrap, expectErr) => {
    expectValidation(webhook, machine({ spec: { bootstrap } }), expectErr);
  });

  it('words a missing bootstrap as upstream, and lets MachinePool Machines through', () => {
    expect(denial(() => webhook.validateCreate(machine({ name: 'm', spec: { bootstrap: {} } })))).toBe(
      'Machine.cluster.x-k8s.io "m" is invalid: spec.bootstrap: Required value: expected either spec.bootstrap.dataSecretName or spec.bootstrap.configRef to be populated',
    );
    expect(
      webhook.validateCreate(machine({ labels: { 'cluster.x-k8s.io/pool-name': 'p' }, spec: { bootstrap: {} } })),
    ).toEqual([]);
    const owned = machine({
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachinePool', name: 'p', uid: 'u' }],
      spec: { bootstrap: {} },
    });
    expect(webhook.validateCreate(owned)).toEqual([]);
  });

  it.each([
    ['when the cluster name has not changed', 'foo', 'foo', false],
    ['when the cluster name has changed', 'foo', 'bar', true],
  ])('TestMachineClusterNameImmutable: %s', (_n, oldName, newName, expectErr) => {
    const mk = (clusterName: string) =>
      machine({ name: 'm', spec: { clusterName, bootstrap: { configRef: { name: 'bootstrap1' } } } });
    const call = () => webhook.validateUpdate(mk(oldName), mk(newName));
    if (expectErr)
      expect(denial(call)).toBe(
        'Machine.cluster.x-k8s.io "m" is invalid: spec.clusterName: Forbidden: field is immutable',
      );
    else expect(call()).toEqual([]);
  });

  it.each([
    ["should succeed when given a valid semantic version with prepended 'v'", 'v1.17.2', false],
    ["should return error when given a valid semantic version without 'v'", '1.17.2', true],
    ['should return error when given an invalid semantic version (v1.17.2++)', 'v1.17.2++', true],
    ['should return error when given an invalid semantic version (v1)', 'v1', true],
    ['should return error when given an invalid semantic version (wrong_version)', 'wrong_version', true],
  ])('TestMachineVersionValidation: %s', (_n, version, expectErr) => {
    expectValidation(webhook, machine({ spec: { version, bootstrap: { dataSecretName: 'test' } } }), expectErr);
  });

  it('words version errors as upstream', () => {
    expect(
      denial(() =>
        webhook.validateCreate(machine({ name: 'm', spec: { version: 'v1', bootstrap: { dataSecretName: 's' } } })),
      ),
    ).toBe(
      'Machine.cluster.x-k8s.io "m" is invalid: spec.version: Invalid value: "v1": must be a valid semantic version',
    );
  });

  it('skips the worker taint check for control plane Machines (MachineTaintPropagation on)', () => {
    const on = new MachineWebhook({ featureGates: { MachineTaintPropagation: true } });
    const taints = [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }];
    const worker = machine({ name: 'm', spec: { bootstrap: { dataSecretName: 's' }, taints } });
    expect(denial(() => on.validateCreate(worker))).toBe(
      'Machine.cluster.x-k8s.io "m" is invalid: spec.taints[0].key: Invalid value: "node-role.kubernetes.io/control-plane": taint is not allowed for worker Machines',
    );
    const cp = machine({
      labels: { 'cluster.x-k8s.io/control-plane': '' },
      spec: { bootstrap: { dataSecretName: 's' }, taints },
    });
    expect(on.validateCreate(cp)).toEqual([]);
  });
});
