// Ports upstream core/webhooks/admission/machineset_test.go table by table.
import type { MachineSet } from '@capi/api';
import { AdmissionError } from '../field-errors';
import type { AdmissionRequestInfo } from '../types';
import { MachineSetWebhook } from './machineset';
import { calculateReplicas } from './replicas';
import { validateSkippedPreflightChecks } from './validation';

const CREATE: AdmissionRequestInfo = { operation: 'CREATE' };
const MIN = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
const MAX = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';
const SKIP = 'machineset.cluster.x-k8s.io/skip-preflight-checks';

interface MSInput {
  name?: string;
  annotations?: Record<string, string>;
  spec?: Record<string, unknown>;
}
const ms = ({ name, annotations, spec }: MSInput = {}): MachineSet =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineSet',
    metadata: { ...(name !== undefined ? { name } : {}), ...(annotations ? { annotations } : {}) },
    spec: { template: { spec: {} }, ...spec },
  }) as unknown as MachineSet;

const withSecret = (extra: Record<string, unknown> = {}) => ({
  bootstrap: { dataSecretName: 'data-secret' },
  ...extra,
});

function expectValidation(webhook: MachineSetWebhook, obj: MachineSet, expectErr: boolean): void {
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

describe('MachineSet webhook', () => {
  const webhook = new MachineSetWebhook();

  it('TestMachineSetDefault', () => {
    const obj = ms({ name: 'test-ms', spec: { template: { spec: withSecret({ version: '1.19.10' }) } } });
    // testutil.CustomDefaultValidateTest: the defaulted object validates on create, update and delete.
    const createCopy = structuredClone(obj);
    const updateCopy = structuredClone(obj);
    webhook.default(createCopy, CREATE);
    expect(webhook.validateCreate(createCopy)).toEqual([]);
    webhook.default(updateCopy, CREATE);
    expect(webhook.validateUpdate(createCopy, updateCopy)).toEqual([]);
    expect(webhook.validateDelete()).toEqual([]);

    webhook.default(obj, CREATE);
    expect(obj.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe('');
    expect(obj.spec.selector.matchLabels).toEqual({ 'cluster.x-k8s.io/set-name': 'test-ms' });
    expect(obj.spec.template.metadata?.labels).toEqual({ 'cluster.x-k8s.io/set-name': 'test-ms' });
    expect(obj.spec.template.spec.version).toBe('v1.19.10');
    expect(obj.spec.replicas).toBe(1);
  });

  it('defaults the set-name label to a hash for a name that is not a valid label value', () => {
    const name = 'a'.repeat(70);
    const obj = ms({ name, spec: { template: { spec: withSecret() } } });
    webhook.default(obj, CREATE);
    const value = obj.spec.selector.matchLabels?.['cluster.x-k8s.io/set-name'];
    expect(value).toMatch(/^hash_.*_z$/);
    expect(obj.spec.template.metadata?.labels?.['cluster.x-k8s.io/set-name']).toBe(value);
  });

  it('defaults replicas from the old object on UPDATE, and denies an unparsable annotation', () => {
    const obj = ms({ name: 'a', annotations: { [MIN]: '3', [MAX]: '7' } });
    webhook.default(obj, { operation: 'UPDATE', oldObject: ms({ spec: { replicas: 9 } }) });
    expect(obj.spec.replicas).toBe(7);
    const bad = ms({ name: 'a', annotations: { [MIN]: '3', [MAX]: '99999999999' } });
    expect(denial(() => webhook.default(bad, CREATE))).toBe(
      `failed to caculate MachineSet replicas value: could not parse the value of the "${MAX}" annotation: strconv.ParseInt: parsing "99999999999": value out of range`,
    );
  });

  it.each([
    ['should return error if configref and data are nil', {}, true],
    ['should not return error if dataSecretName is set', { dataSecretName: 'test' }, false],
    ['should not return error if dataSecretName is set (empty)', { dataSecretName: '' }, false],
    ['should not return error if config ref is set', { configRef: { name: 'bootstrap1' } }, false],
  ])('TestMachineSetBootstrapValidation: %s', (_n, bootstrap, expectErr) => {
    expectValidation(webhook, ms({ spec: { template: { spec: { bootstrap } } } }), expectErr);
  });

  const a = (min?: string, max?: string) => ({
    ...(min !== undefined ? { [MIN]: min } : {}),
    ...(max !== undefined ? { [MAX]: max } : {}),
  });
  it.each<[string, MachineSet, MachineSet | undefined, number | 'error']>([
    ['if new MS has replicas set, keep that value', ms({ spec: { replicas: 5 } }), undefined, 5],
    ['if new MS does not have replicas set and no annotations, use 1', ms(), undefined, 1],
    ['if new MS only has min size annotation, fallback to 1', ms({ annotations: a('3') }), undefined, 1],
    ['if new MS only has max size annotation, fallback to 1', ms({ annotations: a(undefined, '7') }), undefined, 1],
    [
      'if new MS has min and max size annotation and min size is invalid, fail',
      ms({ annotations: a('abc', '7') }),
      undefined,
      'error',
    ],
    [
      'if new MS has min and max size annotation and max size is invalid, fail',
      ms({ annotations: a('3', 'abc') }),
      undefined,
      'error',
    ],
    [
      'if new MS has min and max size annotation and new MS is a new MS, use min size',
      ms({ annotations: a('3', '7') }),
      undefined,
      3,
    ],
    [
      "if new MS has min and max size annotation and old MS doesn't have replicas set, use min size",
      ms({ annotations: a('3', '7') }),
      ms(),
      3,
    ],
    [
      'if new MS has min and max size annotation and old MS replicas is below min size, use min size',
      ms({ annotations: a('3', '7') }),
      ms({ spec: { replicas: 1 } }),
      3,
    ],
    [
      'if new MS has min and max size annotation and old MS replicas is above max size, use max size',
      ms({ annotations: a('3', '7') }),
      ms({ spec: { replicas: 15 } }),
      7,
    ],
    [
      'if new MS has min and max size annotation and old MS replicas is between min and max size, use old MS replicas',
      ms({ annotations: a('3', '7') }),
      ms({ spec: { replicas: 4 } }),
      4,
    ],
  ])('TestCalculateMachineSetReplicas: %s', (_n, newMS, oldMS, expected) => {
    if (expected === 'error') expect(() => calculateReplicas('MachineSet', oldMS, newMS)).toThrow();
    else expect(calculateReplicas('MachineSet', oldMS, newMS)).toBe(expected);
  });

  it.each<[string, Record<string, string>, Record<string, string>, boolean]>([
    ['should return error on mismatch', { foo: 'bar' }, { foo: 'baz' }, true],
    ['should return error on missing labels', { foo: 'bar' }, { '': '' }, true],
    ["should return error if all selectors don't match", { foo: 'bar', hello: 'world' }, { foo: 'bar' }, true],
    ['should not return error on match', { foo: 'bar' }, { foo: 'bar' }, false],
    ['should return error for invalid selector', { '-123-foo': 'bar' }, { '-123-foo': 'bar' }, true],
  ])('TestMachineSetLabelSelectorMatchValidation: %s', (_n, selectors, labels, expectErr) => {
    const obj = ms({
      spec: { selector: { matchLabels: selectors }, template: { metadata: { labels }, spec: withSecret() } },
    });
    expectValidation(webhook, obj, expectErr);
  });

  it('words a selector mismatch as upstream (Invalid, with the template labels)', () => {
    const obj = ms({
      name: 'ms',
      spec: {
        selector: { matchLabels: { foo: 'bar' } },
        template: { metadata: { labels: { z: '1', foo: 'baz' } }, spec: withSecret() },
      },
    });
    expect(denial(() => webhook.validateCreate(obj))).toBe(
      'MachineSet.cluster.x-k8s.io "ms" is invalid: spec.template.metadata.labels: Invalid value: {"foo":"baz","z":"1"}: must match spec.selector "foo=bar"',
    );
  });

  const clusterMS = (name: string) =>
    ms({ name: 'ms', spec: { clusterName: name, template: { spec: withSecret({ clusterName: name }) } } });
  it.each([
    ['when the cluster name has not changed', 'foo', 'foo', false],
    ['when the cluster name has changed', 'foo', 'bar', true],
  ])('TestMachineSetClusterNameImmutable: %s', (_n, oldName, newName, expectErr) => {
    const call = () => webhook.validateUpdate(clusterMS(oldName), clusterMS(newName));
    if (expectErr)
      expect(denial(call)).toBe(
        'MachineSet.cluster.x-k8s.io "ms" is invalid: spec.clusterName: Forbidden: field is immutable',
      );
    else expect(call()).toEqual([]);
  });

  it.each([
    ['clusterName fields are set to the same value', 'foo', 'foo', false],
    ['clusterName fields are set to different values', 'foo', 'bar', true],
  ])('TestMachineSetClusterNamesEqual: %s', (_n, specName, templateName, expectErr) => {
    const obj = ms({
      name: 'ms',
      spec: { clusterName: specName, template: { spec: withSecret({ clusterName: templateName }) } },
    });
    const call = () => webhook.validateCreate(obj);
    if (expectErr)
      expect(denial(call)).toBe(
        'MachineSet.cluster.x-k8s.io "ms" is invalid: spec.clusterName: Invalid value: "foo": spec.clusterName and spec.template.spec.clusterName must be set to the same value',
      );
    else expect(call()).toEqual([]);
  });

  it.each([
    ["should succeed when given a valid semantic version with prepended 'v'", 'v1.19.2', false],
    ["should return error when given a valid semantic version without 'v'", '1.19.2', true],
    ['should return error when given an invalid semantic version (v1.17.2++)', 'v1.17.2++', true],
    ['should return error when given an invalid semantic version (v1)', 'v1', true],
    ['should return error when given an invalid semantic version (wrong_version)', 'wrong_version', true],
  ])('TestMachineSetVersionValidation: %s', (_n, version, expectErr) => {
    expectValidation(webhook, ms({ spec: { template: { spec: withSecret({ version }) } } }), expectErr);
  });

  it.each<[string, Record<string, string> | undefined, boolean]>([
    ['should pass if the machine set skip preflight checks annotation is not set', undefined, false],
    ['should pass if not preflight checks are skipped', { [SKIP]: '' }, false],
    ['should pass if only valid preflight checks are skipped (single)', { [SKIP]: 'KubeadmVersionSkew' }, false],
    [
      'should pass if only valid preflight checks are skipped (multiple)',
      { [SKIP]: 'KubeadmVersionSkew,ControlPlaneIsStable' },
      false,
    ],
    [
      'should fail if invalid preflight checks are skipped',
      { [SKIP]: 'KubeadmVersionSkew,invalid-preflight-check-name' },
      true,
    ],
  ])('TestValidateSkippedMachineSetPreflightChecks: %s', (_n, annotations, expectErr) => {
    expect(validateSkippedPreflightChecks(annotations).length > 0).toBe(expectErr);
    // And through the webhook (the gate is on by default).
    expectValidation(webhook, ms({ annotations, spec: { template: { spec: withSecret() } } }), expectErr);
  });

  it.each([
    [
      'should return error for invalid labels and annotations',
      { foo: '$invalid-key', bar: 'a'.repeat(64) + 'too-long-value', '/invalid-key': 'foo' },
      { '/invalid-key': 'foo' },
      true,
    ],
  ])('TestMachineSetTemplateMetadataValidation: %s', (_n, labels, annotations, expectErr) => {
    expectValidation(webhook, ms({ spec: { template: { metadata: { labels, annotations }, spec: {} } } }), expectErr);
    // With a bootstrap set, the metadata alone is what is denied.
    const withBootstrap = ms({ spec: { template: { metadata: { labels, annotations }, spec: withSecret() } } });
    expect(denial(() => webhook.validateCreate(withBootstrap))).toContain(
      'spec.template.metadata.annotations: Invalid value: "/invalid-key"',
    );
  });

  it.each([
    [
      'should not return error when MachineNamingSpec have {{ .random }}',
      '{{ .machineSet.name }}-{{ .random }}',
      false,
    ],
    ['should return error when MachineNamingSpec does not have {{ .random }}', '{{ .machineSet.name }}', true],
    [
      'should return error when MachineNamingSpec does not follow DNS1123Subdomain rules',
      '{{ .machineSet.name }}-{{ .random }}-',
      true,
    ],
  ])('TestMachineSetMachineNamingValidation: %s', (_n, template, expectErr) => {
    expectValidation(
      webhook,
      ms({ spec: { machineNaming: { template }, template: { spec: withSecret() } } }),
      expectErr,
    );
  });

  it('words machine naming errors as upstream', () => {
    const obj = ms({
      name: 'ms',
      spec: { machineNaming: { template: '{{ .machineSet.name }}' }, template: { spec: withSecret() } },
    });
    expect(denial(() => webhook.validateCreate(obj))).toBe(
      'MachineSet.cluster.x-k8s.io "ms" is invalid: spec.machineNaming.template: Invalid value: "{{ .machineSet.name }}": invalid template, {{ .random }} is missing',
    );
  });

  const built = (taints?: { key: string; effect: string }[]) =>
    ms({
      name: 'machineset1',
      spec: {
        template: {
          spec: {
            bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'BootstrapTemplate', name: 'bt' } },
            ...(taints ? { taints } : {}),
          },
        },
      },
    });
  const taint = (key: string) => [{ key, effect: 'NoSchedule' }];
  it.each<[string, boolean, MachineSet, boolean]>([
    ['should allow empty taints with feature gate disabled', false, built(), false],
    ['should allow empty taints with feature gate enabled', true, built(), false],
    [
      'should block taint key node.cluster.x-k8s.io/uninitialized',
      true,
      built(taint('node.cluster.x-k8s.io/uninitialized')),
      true,
    ],
    [
      'should block taint key node.cluster.x-k8s.io/outdated-revision',
      true,
      built(taint('node.cluster.x-k8s.io/outdated-revision')),
      true,
    ],
    [
      'should block taint with key prefix node.kubernetes.io/, which is not `out-of-service`',
      true,
      built(taint('node.kubernetes.io/some-taint')),
      true,
    ],
    [
      'should allow taint node.kubernetes.io/out-of-service',
      true,
      built(taint('node.kubernetes.io/out-of-service')),
      false,
    ],
    [
      'should block taint with key prefix node.cloudprovider.kubernetes.io/',
      true,
      built(taint('node.cloudprovider.kubernetes.io/some-taint')),
      true,
    ],
    [
      'should block taint key node-role.kubernetes.io/master',
      true,
      built(taint('node-role.kubernetes.io/master')),
      true,
    ],
    [
      'should block taint key node-role.kubernetes.io/control-plane for worker nodes',
      true,
      built(taint('node-role.kubernetes.io/control-plane')),
      true,
    ],
  ])('TestMachineSetTaintValidation: %s', (_n, featureEnabled, obj, expectErr) => {
    expectValidation(
      new MachineSetWebhook({ featureGates: { MachineTaintPropagation: featureEnabled } }),
      obj,
      expectErr,
    );
  });
});
