// Ports upstream core/webhooks/admission/machinedeployment_test.go table by table.
import type { MachineDeployment } from '@capi/api';
import { AdmissionError } from '../field-errors';
import type { AdmissionRequestInfo } from '../types';
import { MachineDeploymentWebhook } from './machinedeployment';
import { calculateReplicas } from './replicas';
import { type CoreWebhookOptions } from './validation';

const CREATE: AdmissionRequestInfo = { operation: 'CREATE' };
const MIN = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
const MAX = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';

interface MDInput {
  name?: string;
  annotations?: Record<string, string>;
  spec?: Record<string, unknown>;
}
const md = ({ name, annotations, spec }: MDInput = {}): MachineDeployment =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: { ...(name !== undefined ? { name } : {}), ...(annotations ? { annotations } : {}) },
    spec: { template: { spec: {} }, ...spec },
  }) as unknown as MachineDeployment;

/** Template spec with a bootstrap data secret, as most upstream cases build. */
const withSecret = (extra: Record<string, unknown> = {}) => ({
  bootstrap: { dataSecretName: 'data-secret' },
  ...extra,
});

function expectValidation(webhook: MachineDeploymentWebhook, obj: MachineDeployment, expectErr: boolean): void {
  if (expectErr) {
    expect(() => webhook.validateCreate(obj)).toThrow(AdmissionError);
    expect(() => webhook.validateUpdate(obj, obj)).toThrow(AdmissionError);
  } else {
    expect(webhook.validateCreate(obj)).toEqual([]);
    expect(webhook.validateUpdate(obj, obj)).toEqual([]);
  }
}

/** testutil.CustomDefaultValidateTest: a defaulted object passes validation on create, update and delete. */
function customDefaultValidate(webhook: MachineDeploymentWebhook, obj: MachineDeployment, req: AdmissionRequestInfo) {
  const createCopy = structuredClone(obj);
  const updateCopy = structuredClone(obj);
  const deleteCopy = structuredClone(obj);
  webhook.default(createCopy, req);
  expect(webhook.validateCreate(createCopy)).toEqual([]);
  webhook.default(updateCopy, req);
  expect(webhook.validateUpdate(createCopy, updateCopy)).toEqual([]);
  webhook.default(deleteCopy, req);
  expect(webhook.validateDelete()).toEqual([]);
}

describe('MachineDeployment webhook', () => {
  const webhook = new MachineDeploymentWebhook();

  it('TestMachineDeploymentDefault', () => {
    const obj = md({
      name: 'test-md',
      spec: {
        clusterName: 'test-cluster',
        template: { spec: withSecret({ clusterName: 'test-cluster', version: '1.19.10' }) },
      },
    });
    customDefaultValidate(webhook, obj, CREATE);
    webhook.default(obj, CREATE);
    expect(obj.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe('test-cluster');
    expect(obj.spec.replicas).toBe(1);
    expect(obj.spec.selector.matchLabels).toMatchObject({
      'cluster.x-k8s.io/deployment-name': 'test-md',
      'cluster.x-k8s.io/cluster-name': 'test-cluster',
    });
    expect(obj.spec.template.metadata?.labels).toMatchObject({
      'cluster.x-k8s.io/deployment-name': 'test-md',
      'cluster.x-k8s.io/cluster-name': 'test-cluster',
    });
    expect(obj.spec.rollout?.strategy?.type).toBe('RollingUpdate');
    expect(obj.spec.rollout?.strategy?.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(obj.spec.template.spec.version).toBe('v1.19.10');
  });

  it('keeps an explicit selector and does not default RollingUpdate parameters for OnDelete', () => {
    const obj = md({
      name: 'test-md',
      spec: {
        clusterName: 'c',
        selector: { matchLabels: { app: 'x' } },
        rollout: { strategy: { type: 'OnDelete' } },
        template: { metadata: { labels: { app: 'x' } }, spec: withSecret({ clusterName: 'c' }) },
      },
    });
    webhook.default(obj, CREATE);
    expect(obj.spec.selector.matchLabels).toEqual({ app: 'x', 'cluster.x-k8s.io/cluster-name': 'c' });
    expect(obj.spec.rollout?.strategy).toEqual({ type: 'OnDelete' });
  });

  it('defaults replicas from the old object on UPDATE (autoscaler annotations)', () => {
    const annotations = { [MIN]: '3', [MAX]: '7' };
    const old = md({ name: 'a', spec: { replicas: 5 } });
    const obj = md({ name: 'a', annotations });
    webhook.default(obj, { operation: 'UPDATE', oldObject: old });
    expect(obj.spec.replicas).toBe(5);
    const created = md({ name: 'a', annotations });
    webhook.default(created, CREATE);
    expect(created.spec.replicas).toBe(3);
  });

  it('denies defaulting with an unparsable autoscaler annotation, with upstream message', () => {
    const obj = md({ name: 'a', annotations: { [MIN]: 'abc', [MAX]: '7' } });
    let err: unknown;
    try {
      webhook.default(obj, CREATE);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AdmissionError);
    expect((err as AdmissionError).status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `failed to caculate MachineDeployment replicas value: could not parse the value of the "${MIN}" annotation: strconv.ParseInt: parsing "abc": invalid syntax`,
    });
  });

  it.each([
    ['should return error if configref and data are nil', {}, true],
    ['should not return error if dataSecretName is set', { dataSecretName: 'test' }, false],
    ['should not return error if dataSecretName is set (empty)', { dataSecretName: '' }, false],
    ['should not return error if config ref is set', { configRef: { name: 'bootstrap1' } }, false],
  ])('TestMachineDeploymentBootstrapValidation: %s', (_n, bootstrap, expectErr) => {
    expectValidation(webhook, md({ spec: { template: { spec: { bootstrap } } } }), expectErr);
  });

  it('TestMachineDeploymentReferenceDefault', () => {
    const obj = md({
      name: 'test-md',
      spec: {
        clusterName: 'test-cluster',
        template: {
          spec: { clusterName: 'test-cluster', version: '1.19.10', bootstrap: { configRef: { name: 'bootstrap1' } } },
        },
      },
    });
    customDefaultValidate(webhook, obj, CREATE);
    expect(() => webhook.default(obj, CREATE)).not.toThrow();
  });

  const a = (min?: string, max?: string) => ({
    ...(min !== undefined ? { [MIN]: min } : {}),
    ...(max !== undefined ? { [MAX]: max } : {}),
  });
  it.each<[string, MachineDeployment, MachineDeployment | undefined, number | 'error']>([
    ['if new MD has replicas set, keep that value', md({ spec: { replicas: 5 } }), undefined, 5],
    ['if new MD does not have replicas set and no annotations, use 1', md(), undefined, 1],
    ['if new MD only has min size annotation, fallback to 1', md({ annotations: a('3') }), undefined, 1],
    ['if new MD only has max size annotation, fallback to 1', md({ annotations: a(undefined, '7') }), undefined, 1],
    [
      'if new MD has min and max size annotation and min size is invalid, fail',
      md({ annotations: a('abc', '7') }),
      undefined,
      'error',
    ],
    [
      'if new MD has min and max size annotation and max size is invalid, fail',
      md({ annotations: a('3', 'abc') }),
      undefined,
      'error',
    ],
    [
      'if new MD has min and max size annotation and new MD is a new MD, use min size',
      md({ annotations: a('3', '7') }),
      undefined,
      3,
    ],
    [
      "if new MD has min and max size annotation and old MD doesn't have replicas set, use min size",
      md({ annotations: a('3', '7') }),
      md(),
      3,
    ],
    [
      'if new MD has min and max size annotation and old MD replicas is below min size, use min size',
      md({ annotations: a('3', '7') }),
      md({ spec: { replicas: 1 } }),
      3,
    ],
    [
      'if new MD has min and max size annotation and old MD replicas is above max size, use max size',
      md({ annotations: a('3', '7') }),
      md({ spec: { replicas: 15 } }),
      7,
    ],
    [
      'if new MD has min and max size annotation and old MD replicas is between min and max size, use old MD replicas',
      md({ annotations: a('3', '7') }),
      md({ spec: { replicas: 4 } }),
      4,
    ],
  ])('TestCalculateMachineDeploymentReplicas: %s', (_n, newMD, oldMD, expected) => {
    if (expected === 'error') expect(() => calculateReplicas('MachineDeployment', oldMD, newMD)).toThrow();
    else expect(calculateReplicas('MachineDeployment', oldMD, newMD)).toBe(expected);
  });

  interface VCase {
    mdName?: string;
    selectors?: Record<string, string>;
    labels?: Record<string, string>;
    strategy?: Record<string, unknown>;
    remediation?: Record<string, unknown>;
    machineNaming?: Record<string, unknown>;
  }
  const ru = (maxUnavailable: number | string, maxSurge: number | string) => ({
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable, maxSurge },
  });
  const fooBar = { selectors: { foo: 'bar' }, labels: { foo: 'bar' } };
  it.each<[string, VCase, boolean]>([
    ['pass with name of under 63 characters', { mdName: 'short-name' }, false],
    ['pass with _, -, . characters in name', { mdName: 'thisNameContains.A_Non-Alphanumeric' }, false],
    [
      'error with name of more than 63 characters',
      { mdName: 'thisNameIsReallyMuchLongerThanTheMaximumLengthOfSixtyThreeCharacters' },
      true,
    ],
    ['error when name starts with NonAlphanumeric character', { mdName: '-thisNameStartsWithANonAlphanumeric' }, true],
    ['error when name ends with NonAlphanumeric character', { mdName: 'thisNameEndsWithANonAlphanumeric.' }, true],
    [
      'error when name contains invalid NonAlphanumeric character',
      { mdName: 'thisNameContainsInvalid!@NonAlphanumerics' },
      true,
    ],
    ['should return error on mismatch', { selectors: { foo: 'bar' }, labels: { foo: 'baz' } }, true],
    ['should return error on missing labels', { selectors: { foo: 'bar' }, labels: { '': '' } }, true],
    [
      "should return error if all selectors don't match",
      { selectors: { foo: 'bar', hello: 'world' }, labels: { foo: 'bar' } },
      true,
    ],
    ['should not return error on match', fooBar, false],
    [
      'should return error for invalid selector',
      { selectors: { '-123-foo': 'bar' }, labels: { '-123-foo': 'bar' } },
      true,
    ],
    ['should return error for invalid maxSurge', { ...fooBar, strategy: ru(0, '1') }, true],
    ['should return error for invalid maxUnavailable', { ...fooBar, strategy: ru('0', 1) }, true],
    ['should return error for invalid remediation maxInFlight', { ...fooBar, remediation: { maxInFlight: '1' } }, true],
    [
      'should not return error for valid percentage remediation maxInFlight',
      { ...fooBar, remediation: { maxInFlight: '20%' } },
      false,
    ],
    [
      'should not return error for valid int remediation maxInFlight',
      { ...fooBar, remediation: { maxInFlight: 5 } },
      false,
    ],
    ['should not return error for valid int maxSurge and maxUnavailable', { ...fooBar, strategy: ru(0, 1) }, false],
    [
      'should not return error for valid percentage string maxSurge and maxUnavailable',
      { ...fooBar, strategy: ru('0%', '1%') },
      false,
    ],
    [
      'should not return error when MachineNamingSpec have {{ .random }}',
      { machineNaming: { template: '{{ .machineSet.name }}-{{ .random }}' } },
      false,
    ],
    [
      'should return error when MachineNamingSpec does not have {{ .random }}',
      { machineNaming: { template: '{{ .machineSet.name }}' } },
      true,
    ],
    [
      'should return error when MachineNamingSpec does not follow DNS1123Subdomain rules',
      { machineNaming: { template: '{{ .machineSet.name }}-{{ .random }}-' } },
      true,
    ],
  ])('TestMachineDeploymentValidation: %s', (_n, tt, expectErr) => {
    const obj = md({
      name: tt.mdName ?? '',
      spec: {
        ...(tt.strategy ? { rollout: { strategy: tt.strategy } } : {}),
        selector: tt.selectors ? { matchLabels: tt.selectors } : {},
        template: { ...(tt.labels ? { metadata: { labels: tt.labels } } : {}), spec: withSecret() },
        ...(tt.remediation ? { remediation: tt.remediation } : {}),
        ...(tt.machineNaming ? { machineNaming: tt.machineNaming } : {}),
      },
    });
    expectValidation(webhook, obj, expectErr);
  });

  it.each([
    ["should succeed when given a valid semantic version with prepended 'v'", 'v1.17.2', false],
    ["should return error when given a valid semantic version without 'v'", '1.17.2', true],
    ['should return error when given an invalid semantic version (v1.17.2++)', 'v1.17.2++', true],
    ['should return error when given an invalid semantic version (v1)', 'v1', true],
    ['should return error when given an invalid semantic version (wrong_version)', 'wrong_version', true],
  ])('TestMachineDeploymentVersionValidation: %s', (_n, version, expectErr) => {
    expectValidation(webhook, md({ spec: { template: { spec: withSecret({ version }) } } }), expectErr);
  });

  const clusterMD = (name: string) =>
    md({ spec: { clusterName: name, template: { spec: withSecret({ clusterName: name }) } } });
  it.each([
    ['when the cluster name has not changed', 'foo', 'foo', false],
    ['when the cluster name has changed', 'foo', 'bar', true],
  ])('TestMachineDeploymentClusterNameImmutable: %s', (_n, oldName, newName, expectErr) => {
    const call = () => webhook.validateUpdate(clusterMD(oldName), clusterMD(newName));
    if (expectErr) expect(call).toThrow(AdmissionError);
    else expect(call()).toEqual([]);
  });

  it.each([
    ['clusterName fields are set to the same value', 'foo', 'foo', false],
    ['clusterName fields are set to different values', 'foo', 'bar', true],
  ])('TestMachineDeploymentClusterNamesEqual: %s', (_n, specName, templateName, expectErr) => {
    const obj = md({ spec: { clusterName: specName, template: { spec: withSecret({ clusterName: templateName }) } } });
    const call = () => webhook.validateCreate(obj);
    if (expectErr) expect(call).toThrow(AdmissionError);
    else expect(call()).toEqual([]);
  });

  it.each([
    [
      'should return error for invalid labels and annotations',
      { foo: '$invalid-key', bar: 'a'.repeat(64) + 'too-long-value', '/invalid-key': 'foo' },
      { '/invalid-key': 'foo' },
      true,
    ],
  ])('TestMachineDeploymentTemplateMetadataValidation: %s', (_n, labels, annotations, expectErr) => {
    expectValidation(webhook, md({ spec: { template: { metadata: { labels, annotations }, spec: {} } } }), expectErr);
  });

  // builder.MachineDeployment("default", "md").WithBootstrapTemplate(...): a configRef, no cluster name.
  const built = (taints?: { key: string; effect: string }[]) =>
    md({
      name: 'md',
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
  it.each<[string, boolean, MachineDeployment, boolean]>([
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
  ])('TestMachineDeploymentTaintValidation: %s', (_n, featureEnabled, obj, expectErr) => {
    const opts: CoreWebhookOptions = { featureGates: { MachineTaintPropagation: featureEnabled } };
    expectValidation(new MachineDeploymentWebhook(opts), obj, expectErr);
  });
});
