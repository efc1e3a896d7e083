// Upstream core/webhooks/admission/machinehealthcheck_test.go (every table) and the messages of machinehealthcheck.go.
import type { MachineHealthCheck } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { MachineHealthCheckWebhook } from './machinehealthcheck';

type Spec = MachineHealthCheck['spec'];

const mhc = (spec: Partial<Spec> = {}, name = 'mhc'): MachineHealthCheck => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineHealthCheck',
  metadata: { name, namespace: 'foo' },
  spec: {
    clusterName: '',
    selector: { matchLabels: { test: 'test' } },
    checks: {
      unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }],
      unhealthyMachineConditions: [{ type: 'EtcdPodHealthy', status: 'False', timeoutSeconds: 300 }],
    },
    ...spec,
  },
});

const webhook = new MachineHealthCheckWebhook();

/** Upstream's pattern: ValidateCreate and ValidateUpdate(m, m) both fail or both pass, without warnings. */
function expectCreateAndUpdate(m: MachineHealthCheck, expectErr: boolean): void {
  for (const run of [() => webhook.validateCreate(m), () => webhook.validateUpdate(m, m)]) {
    if (expectErr) expect(run).toThrow(AdmissionError);
    else expect(run()).toEqual([]);
  }
}

const errorOf = (run: () => unknown): AdmissionError => {
  try {
    run();
  } catch (e) {
    return e as AdmissionError;
  }
  throw new Error('expected an AdmissionError');
};

describe('MachineHealthCheck webhook', () => {
  it('TestMachineHealthCheckDefault: sets the cluster-name label and nodeStartupTimeoutSeconds 600', () => {
    const m = mhc({ selector: { matchLabels: { foo: 'bar' } } });
    webhook.default(m);
    expect(m.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe(m.spec.clusterName);
    expect(m.spec.checks?.nodeStartupTimeoutSeconds).toBe(600);
    // CustomDefaultValidateTest: the defaulted object validates, and defaulting is idempotent.
    expect(webhook.validateCreate(m)).toEqual([]);
    const again = structuredClone(m);
    webhook.default(again);
    expect(again).toEqual(m);
  });

  it('keeps a set nodeStartupTimeoutSeconds and other labels', () => {
    const m = mhc({ clusterName: 'c1', checks: { nodeStartupTimeoutSeconds: 0 } });
    m.metadata.labels = { other: 'x' };
    webhook.default(m);
    expect(m.metadata.labels).toEqual({ other: 'x', 'cluster.x-k8s.io/cluster-name': 'c1' });
    expect(m.spec.checks?.nodeStartupTimeoutSeconds).toBe(0);
  });

  describe('TestMachineHealthCheckLabelSelectorAsSelectorValidation', () => {
    it.each([
      ['should not return error for valid selector', { foo: 'bar' }, false],
      ['should return error for invalid selector', { '-123-foo': 'bar' }, true],
    ])('%s', (_name, matchLabels, expectErr) => expectCreateAndUpdate(mhc({ selector: { matchLabels } }), expectErr));
  });

  describe('TestMachineHealthCheckClusterNameImmutable', () => {
    it.each([
      ['when the cluster name has not changed', 'foo', 'foo', false],
      ['when the cluster name has changed', 'foo', 'bar', true],
    ])('%s', (_name, oldName, newName, expectErr) => {
      const run = () => webhook.validateUpdate(mhc({ clusterName: oldName }), mhc({ clusterName: newName }));
      if (expectErr) expect(run).toThrow('spec.clusterName: Forbidden: field is immutable');
      else expect(run()).toEqual([]);
    });
  });

  describe('TestMachineHealthCheckUnhealthyNodeConditions', () => {
    it.each([
      ['pass with correctly defined unhealthyNodeConditions', [{ type: 'Ready', status: 'False', timeoutSeconds: 0 }]],
      ['do not fail if the UnhealthyNodeCondition array is nil', undefined],
      ['do not fail if the UnhealthyNodeCondition array is empty', []],
    ])('%s', (_name, unhealthyNodeConditions) =>
      expectCreateAndUpdate(mhc({ checks: { unhealthyNodeConditions } }), false),
    );
  });

  describe('TestMachineHealthCheckUnhealthyMachineConditions', () => {
    it.each([
      [
        'pass with correctly defined unhealthyMachineConditions',
        [{ type: 'EtcdPodHealthy', status: 'False' as const, timeoutSeconds: 0 }],
      ],
      ['do not fail if the UnhealthyMachineCondition array is nil', undefined],
      ['do not fail if the UnhealthyMachineCondition array is empty', []],
    ])('%s', (_name, unhealthyMachineConditions) =>
      expectCreateAndUpdate(mhc({ checks: { unhealthyMachineConditions } }), false),
    );
  });

  describe('TestMachineHealthCheckNodeStartupTimeout', () => {
    it.each([
      ['when the nodeStartupTimeout is not given', undefined, false],
      ['when the nodeStartupTimeout is greater than 30s', 60, false],
      ['when the nodeStartupTimeout is 30s', 30, false],
      ['when the nodeStartupTimeout is 29s', 29, true],
      ['when the nodeStartupTimeout is less than 0', -60, true],
      ['when the nodeStartupTimeout is 0 (disabled)', 0, false],
    ])('%s', (_name, nodeStartupTimeoutSeconds, expectErr) =>
      expectCreateAndUpdate(mhc({ checks: { nodeStartupTimeoutSeconds } }), expectErr),
    );

    it('words the error as upstream, and SetMinNodeStartupTimeoutSeconds lowers the minimum', () => {
      expect(() => webhook.validateCreate(mhc({ checks: { nodeStartupTimeoutSeconds: 29 } }))).toThrow(
        'MachineHealthCheck.cluster.x-k8s.io "mhc" is invalid: spec.checks.nodeStartupTimeoutSeconds: Invalid value: 29: must be at least 30s',
      );
      const lowered = new MachineHealthCheckWebhook({ minNodeStartupTimeoutSeconds: 1 });
      expect(lowered.validateCreate(mhc({ checks: { nodeStartupTimeoutSeconds: 29 } }))).toEqual([]);
    });
  });

  describe('TestMachineHealthCheckMaxUnhealthy', () => {
    it.each<[string, number | string, boolean]>([
      ['when the value is an integer', 10, false],
      ['when the value is a percentage', '10%', false],
      ['when the value is a random string', 'abcdef', true],
      ['when the value stringified integer', '10', true],
    ])('%s', (_name, unhealthyLessThanOrEqualTo, expectErr) =>
      expectCreateAndUpdate(mhc({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo } } }), expectErr),
    );

    it('words the error as upstream', () => {
      const m = mhc({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 'abcdef' } } });
      expect(() => webhook.validateCreate(m)).toThrow(
        'spec.remediation.triggerIf.unhealthyLessThanOrEqualTo: Invalid value: "abcdef": must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage',
      );
    });
  });

  it('TestMachineHealthCheckSelectorValidation: an empty selector is rejected', () => {
    const err = errorOf(() => webhook.validate(undefined, mhc({ selector: {} })));
    expect(err.message).toContain('selector must not be empty');
    expect(err.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'MachineHealthCheck.cluster.x-k8s.io "mhc" is invalid: spec.selector: Required value: selector must not be empty',
      details: { causes: [{ reason: 'FieldValueRequired', field: 'spec.selector' }] },
    });
  });

  it('TestMachineHealthCheckClusterNameSelectorValidation', () => {
    const m = mhc({
      clusterName: 'foo',
      selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'bar', baz: 'qux' } },
    });
    expect(() => webhook.validate(undefined, m)).toThrow(
      'spec.selector: Invalid value: {"matchLabels":{"baz":"qux","cluster.x-k8s.io/cluster-name":"bar"}}: cannot specify a cluster selector other than the one specified by ClusterName',
    );
    m.spec.selector.matchLabels = { 'cluster.x-k8s.io/cluster-name': 'foo', baz: 'qux' };
    expect(() => webhook.validate(undefined, m)).not.toThrow();
    m.spec.selector.matchLabels = { baz: 'qux' };
    expect(() => webhook.validate(undefined, m)).not.toThrow();
  });

  it('validates nothing on delete', () => {
    expect(webhook.validateDelete()).toEqual([]);
  });
});
