// Upstream drain/filters_test.go Test_machineDrainRuleAppliesToPod, Test_matchesSelector; drain_test.go
// Test_machineDrainRuleAppliesToMachine, Test_getMatchingMachineDrainRules.
import type { MachineDrainRule, MachineDrainRuleMachineSelector, MachineDrainRulePodSelector } from '@capi/api';
import type { KubeObject, LabelSelector } from '@capi/apimachinery';
import {
  machineDrainRuleAppliesToMachine,
  machineDrainRuleAppliesToPod,
  matchesSelector,
  matchingMachineDrainRules,
} from './rules';

const withLabels = (labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { labels },
});

describe('machineDrainRuleAppliesToPod', () => {
  const pod = withLabels({ app: 'prometheus' });
  const ns = withLabels({ 'kubernetes.io/metadata.name': 'monitoring' });
  const sel = (app: string, nsName: string): MachineDrainRulePodSelector => ({
    selector: { matchLabels: { app } },
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': nsName } },
  });
  it.each<[string, MachineDrainRulePodSelector[] | undefined, KubeObject | undefined, KubeObject | undefined, boolean]>(
    [
      ['nil always matches', undefined, undefined, undefined, true],
      ['empty always matches', [], undefined, undefined, true],
      [
        'matches if one entire PodSelector matches',
        [sel('does-not-match', 'does-not-match'), sel('prometheus', 'monitoring')],
        pod,
        ns,
        true,
      ],
      ['does not match if only PodSelector.selector matches', [sel('prometheus', 'does-not-match')], pod, ns, false],
      [
        'does not match if only PodSelector.namespaceSelector matches',
        [sel('does-not-match', 'monitoring')],
        pod,
        ns,
        false,
      ],
    ],
  )('%s', (_name, pods, p, n, matches) => {
    const rule = { spec: { drain: { behavior: 'Drain' as const }, pods } };
    expect(machineDrainRuleAppliesToPod(rule, p, n)).toBe(matches);
  });
});

describe('matchesSelector', () => {
  it.each<[string, LabelSelector | undefined, KubeObject | undefined, boolean]>([
    ['nil always matches', undefined, undefined, true],
    ['empty selector always matches', {}, undefined, true],
    ['selector matches', { matchLabels: { app: 'prometheus' } }, withLabels({ app: 'prometheus' }), true],
    ["selector doesn't match", { matchLabels: { app: 'logging' } }, withLabels({ app: 'prometheus' }), false],
  ])('%s', (_name, selector, obj, matches) => {
    expect(matchesSelector(selector, obj)).toBe(matches);
  });
});

describe('machineDrainRuleAppliesToMachine', () => {
  const machine = withLabels({ os: 'linux' });
  const cluster = withLabels({ stage: 'production' });
  const sel = (os: string, stage: string): MachineDrainRuleMachineSelector => ({
    selector: { matchLabels: { os } },
    clusterSelector: { matchLabels: { stage } },
  });
  it.each<
    [string, MachineDrainRuleMachineSelector[] | undefined, KubeObject | undefined, KubeObject | undefined, boolean]
  >([
    ['nil always matches', undefined, undefined, undefined, true],
    ['empty always matches', [], undefined, undefined, true],
    [
      'matches if one entire MachineSelector matches',
      [sel('does-not-match', 'does-not-match'), sel('linux', 'production')],
      machine,
      cluster,
      true,
    ],
    [
      'does not match if only MachineSelector.selector matches',
      [sel('linux', 'does-not-match')],
      machine,
      cluster,
      false,
    ],
    [
      'does not match if only MachineSelector.clusterSelector matches',
      [sel('does-not-match', 'production')],
      machine,
      cluster,
      false,
    ],
  ])('%s', (_name, machines, m, c, matches) => {
    const rule = { spec: { drain: { behavior: 'Drain' as const }, machines } };
    expect(machineDrainRuleAppliesToMachine(rule, m, c)).toBe(matches);
  });
});

describe('matchingMachineDrainRules (upstream getMatchingMachineDrainRules)', () => {
  const cluster: KubeObject = {
    apiVersion: 'v1',
    kind: 'Cluster',
    metadata: { name: 'test-cluster', namespace: 'ns' },
  };
  const machine: KubeObject = {
    apiVersion: 'v1',
    kind: 'Machine',
    metadata: { name: 'test-machine', namespace: 'ns' },
  };
  const rule = (name: string, spec: Partial<MachineDrainRule['spec']>, behavior = 'Drain'): MachineDrainRule => ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDrainRule',
    metadata: { name, namespace: 'ns' },
    spec: { drain: { behavior: behavior as 'Drain' }, ...spec },
  });

  it('returns an error for MachineDrainRules with invalid selector', () => {
    const invalid = rule(
      'mdr-invalid-selector',
      { machines: [{ selector: { matchExpressions: [{ key: '', operator: 'Invalid-Operator' }] } }] },
      'Skip',
    );
    expect(() => matchingMachineDrainRules([invalid], machine, cluster)).toThrow(
      'failed to get matching MachineDrainRules: invalid selectors in MachineDrainRule mdr-invalid-selector',
    );
  });

  it('returns matching MachineDrainRules in correct order', () => {
    const drainA = rule('mdr-behavior-drain-a', { drain: { behavior: 'Drain', order: 11 } });
    const drainB = rule('mdr-behavior-drain-b', { drain: { behavior: 'Drain', order: 15 } });
    const skip = rule('mdr-behavior-skip', {}, 'Skip');
    const waitCompleted = rule('mdr-behavior-wait-completed', {}, 'WaitCompleted');
    const unknown = rule('mdr-behavior-unknown', {}, 'Unknown');
    const notMatching = rule('mdr-not-matching-not-matching-selector', {
      machines: [{ selector: { matchLabels: { os: 'does-not-match' } } }],
    });
    // The listing is by namespace, so a rule of another namespace never gets here.
    expect(
      matchingMachineDrainRules([drainB, drainA, skip, waitCompleted, unknown, notMatching], machine, cluster).map(
        (r) => r.metadata.name,
      ),
    ).toEqual([
      'mdr-behavior-drain-a',
      'mdr-behavior-drain-b',
      'mdr-behavior-skip',
      'mdr-behavior-unknown',
      'mdr-behavior-wait-completed',
    ]);
  });
});
