import { compareMachineTemplates } from './machine-template';
import { indentIfMultiline, summarize } from './summary';
import type { Condition } from './schema/meta';

const c = (type: string, status: Condition['status'], reason = 'R', message?: string): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: 't',
  ...(message ? { message } : {}),
});
const reasons = { issue: 'IssuesReported', unknown: 'UnknownReported', info: 'InfoReported' };

describe('indentIfMultiline (upstream)', () => {
  it('single line: a space before the message', () => expect(indentIfMultiline('hello')).toBe(' hello'));
  it('bulleted lines are indented by two', () => expect(indentIfMultiline('* a\n* b')).toBe('\n  * a\n  * b'));
  it('mixed lines: plain ones get a bullet, bulleted ones four spaces', () =>
    expect(indentIfMultiline('title:\n* a')).toBe('\n  * title:\n    * a'));
});

describe('summarize (upstream NewSummaryCondition, default merge strategy)', () => {
  it('issues beat unknowns beat info; messages in the order of the types, info left out', () => {
    const r = summarize([c('B', 'Unknown', 'U', 'b unknown'), c('A', 'True'), c('C', 'False', 'NotC')], {
      targetType: 'Ready',
      forConditionTypes: ['A', 'B', 'C'],
      reasons,
    });
    expect(r).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'IssuesReported',
      message: '* B: b unknown\n* C: NotC',
    });
  });
  it('missing types count as Unknown NotYetReported unless ignored', () => {
    expect(summarize([c('A', 'True')], { targetType: 'Ready', forConditionTypes: ['A', 'B'], reasons })).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'UnknownReported',
      message: '* B: Condition not yet reported',
    });
    expect(
      summarize([c('A', 'True')], {
        targetType: 'Ready',
        forConditionTypes: ['A', 'B'],
        ignoreTypesIfMissing: ['B'],
        reasons,
      }),
    ).toEqual({ type: 'Ready', status: 'True', reason: 'InfoReported' });
  });
  it('negative polarity: True is the issue', () => {
    expect(
      summarize([c('Deleting', 'True', 'Draining', 'x')], {
        targetType: 'Ready',
        forConditionTypes: ['Deleting'],
        negativePolarity: ['Deleting'],
        reasons,
      }),
    ).toMatchObject({ status: 'False', message: '* Deleting: x' });
  });
  it('overrides and custom priorities apply to the summary only', () => {
    const r = summarize([c('A', 'False', 'Gone'), c('B', 'True')], {
      targetType: 'Ready',
      forConditionTypes: ['A', 'B'],
      reasons,
      priority: (x) => (x.reason === 'Gone' ? 'Info' : undefined),
      overrides: [c('B', 'True', 'R', 'short')],
    });
    expect(r).toEqual({ type: 'Ready', status: 'True', reason: 'InfoReported', message: '* B: short' });
  });
});

describe('compareMachineTemplates (upstream MachineTemplateUpToDate)', () => {
  const t = (spec: Record<string, unknown>) => ({
    spec: { infrastructureRef: { apiGroup: 'i', kind: 'TestMachineTemplate', name: 'a' }, ...spec },
  });
  it('up to date when only in-place fields differ', () => {
    expect(compareMachineTemplates(t({ version: 'v1', nodeDrainTimeoutSeconds: 5 }), t({ version: 'v1' }))).toEqual({
      upToDate: true,
      logMessages: [],
      conditionMessages: [],
    });
  });
  it('log and condition messages per difference; Template suffix dropped for Machines', () => {
    const r = compareMachineTemplates(
      t({
        version: 'v1',
        failureDomain: 'a',
        bootstrap: { configRef: { apiGroup: 'b', kind: 'KubeadmConfigTemplate', name: 'x' } },
      }),
      {
        spec: {
          version: 'v2',
          failureDomain: 'b',
          bootstrap: { configRef: { apiGroup: 'b', kind: 'KubeadmConfigTemplate', name: 'y' } },
          infrastructureRef: { apiGroup: 'i', kind: 'TestMachineTemplate', name: 'b' },
        },
      },
    );
    expect(r.upToDate).toBe(false);
    expect(r.conditionMessages).toEqual([
      'Version v1, v2 required',
      'KubeadmConfig is not up-to-date',
      'TestMachine is not up-to-date',
      'Failure domain a, b required',
    ]);
    expect(r.logMessages[0]).toBe('spec.version v1, v2 required');
  });
  it('dataSecretName differences use the same message for logs and conditions', () => {
    const r = compareMachineTemplates(
      t({ bootstrap: { dataSecretName: 's1' } }),
      t({ bootstrap: { dataSecretName: 's2' } }),
    );
    expect(r.conditionMessages).toEqual(['spec.bootstrap.dataSecretName s1, s2 required']);
    expect(r.logMessages).toEqual(r.conditionMessages);
  });
});
