// Upstream core/webhooks/admission/test/machinedrainrules_test.go Test_validate (the cases the webhook decides; the
// uniqueness of machines/pods entries is the CRD's CEL rule, not the webhook's).
import type { MachineDrainRule } from '@capi/api';
import { MachineDrainRuleWebhook } from './machinedrainrule';

type Spec = MachineDrainRule['spec'];
const rule = (spec: Spec): MachineDrainRule => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineDrainRule',
  metadata: { name: 'mdr', namespace: 'default' },
  spec,
});
const invalidSelector = { matchExpressions: [{ operator: 'Invalid-Operator' }] } as never;
const invalidSelectorJSON = '{"matchExpressions":[{"key":"","operator":"Invalid-Operator"}]}';

const webhook = new MachineDrainRuleWebhook();

describe('MachineDrainRule webhook (Test_validate)', () => {
  it.each<[string, Spec, string]>([
    [
      'Return no error if MachineDrainRule is valid',
      {
        drain: { behavior: 'Drain', order: 5 },
        pods: [
          {
            selector: { matchLabels: { app: 'prometheus' } },
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
          },
        ],
        machines: [
          { selector: { matchLabels: { os: 'linux' } }, clusterSelector: { matchLabels: { stage: 'production' } } },
        ],
      },
      '',
    ],
    [
      'Return error if order is set with drain behavior Skip',
      { drain: { behavior: 'Skip', order: 5 } },
      'MachineDrainRule.cluster.x-k8s.io "mdr" is invalid: ' +
        'spec.drain.order: Invalid value: 5: order must not be set if drain behavior is "Skip" or "WaitCompleted"',
    ],
    [
      'Return error if order is set with drain behavior WaitCompleted',
      { drain: { behavior: 'WaitCompleted', order: 5 } },
      'MachineDrainRule.cluster.x-k8s.io "mdr" is invalid: ' +
        'spec.drain.order: Invalid value: 5: order must not be set if drain behavior is "Skip" or "WaitCompleted"',
    ],
    [
      'Return error for MachineDrainRules with invalid selector',
      {
        drain: { behavior: 'Skip' },
        machines: [{ selector: invalidSelector, clusterSelector: invalidSelector }],
        pods: [{ selector: invalidSelector, namespaceSelector: invalidSelector }],
      },
      'MachineDrainRule.cluster.x-k8s.io "mdr" is invalid: [' +
        `spec.machines[0].selector: Invalid value: ${invalidSelectorJSON}: "Invalid-Operator" is not a valid label selector operator, ` +
        `spec.machines[0].clusterSelector: Invalid value: ${invalidSelectorJSON}: "Invalid-Operator" is not a valid label selector operator, ` +
        `spec.pods[0].selector: Invalid value: ${invalidSelectorJSON}: "Invalid-Operator" is not a valid label selector operator, ` +
        `spec.pods[0].namespaceSelector: Invalid value: ${invalidSelectorJSON}: "Invalid-Operator" is not a valid label selector operator]`,
    ],
  ])('%s', (_name, spec, wantErr) => {
    for (const run of [
      () => webhook.validateCreate(rule(spec)),
      () => webhook.validateUpdate(rule(spec), rule(spec)),
    ]) {
      if (wantErr) expect(run).toThrow(wantErr);
      else expect(run()).toEqual([]);
    }
  });

  it('answers 422 Invalid with one cause per field', () => {
    try {
      webhook.validateCreate(rule({ drain: { behavior: 'Skip', order: 1 } }));
      throw new Error('not rejected');
    } catch (e) {
      expect((e as { status: unknown }).status).toMatchObject({
        code: 422,
        reason: 'Invalid',
        details: {
          name: 'mdr',
          group: 'cluster.x-k8s.io',
          kind: 'MachineDrainRule',
          causes: [{ field: 'spec.drain.order' }],
        },
      });
    }
  });

  it('allows an order with behavior Drain and validates nothing on delete', () => {
    expect(webhook.validateCreate(rule({ drain: { behavior: 'Drain', order: -3 } }))).toEqual([]);
    expect(webhook.validateDelete()).toEqual([]);
  });
});
