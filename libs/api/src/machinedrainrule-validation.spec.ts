import { formatSelectorError, validateMachineDrainRuleSelectors } from './machinedrainrule-validation';
import { buildCrd } from './crd';
import { MachineDrainRuleDefinition, type MachineDrainRule } from './types/machinedrainrule';

const rule = (spec: Partial<MachineDrainRule['spec']>): Pick<MachineDrainRule, 'spec'> => ({
  spec: { drain: { behavior: 'Skip' }, ...spec },
});

describe('validateMachineDrainRuleSelectors (upstream ValidateMachineDrainRulesSelectors)', () => {
  it('accepts rules without selectors and with valid ones', () => {
    expect(validateMachineDrainRuleSelectors(rule({}))).toEqual([]);
    expect(
      validateMachineDrainRuleSelectors(
        rule({
          machines: [{ selector: { matchLabels: { os: 'linux' } }, clusterSelector: {} }],
          pods: [
            {
              selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['logging'] }] },
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
            },
          ],
        }),
      ),
    ).toEqual([]);
  });

  it('names each invalid selector by its field path', () => {
    const bad = { matchExpressions: [{ key: 'k', operator: 'Invalid-Operator' }] };
    const errs = validateMachineDrainRuleSelectors(
      rule({
        machines: [{ selector: { matchLabels: { ok: 'yes' } } }, { selector: bad, clusterSelector: bad }],
        pods: [{ selector: bad }, { namespaceSelector: { matchLabels: { 'bad key!': 'x' } } }],
      }),
    );
    expect(errs.map((e) => e.field)).toEqual([
      'spec.machines[1].selector',
      'spec.machines[1].clusterSelector',
      'spec.pods[0].selector',
      'spec.pods[1].namespaceSelector',
    ]);
    expect(formatSelectorError(errs[0])).toBe(
      'spec.machines[1].selector: Invalid value: {"matchExpressions":[{"key":"k","operator":"Invalid-Operator"}]}: "Invalid-Operator" is not a valid label selector operator',
    );
  });
});

describe('MachineDrainRule CRD (upstream cluster.x-k8s.io_machinedrainrules.yaml)', () => {
  const crd = buildCrd(MachineDrainRuleDefinition);
  const v = crd.spec.versions[0];
  const spec = (v.schema.openAPIV3Schema.properties as Record<string, Record<string, unknown>>).spec;
  const props = spec.properties as Record<string, Record<string, unknown>>;

  it('is namespaced, in category cluster-api, without status or status subresource', () => {
    expect(crd.metadata.name).toBe('machinedrainrules.cluster.x-k8s.io');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toEqual({
      kind: 'MachineDrainRule',
      listKind: 'MachineDrainRuleList',
      plural: 'machinedrainrules',
      singular: 'machinedrainrule',
      categories: ['cluster-api'],
    });
    expect(crd.spec.versions.map((x) => x.name)).toEqual(['v1beta2']);
    expect(v.subresources).toBeUndefined();
    expect(v.schema.openAPIV3Schema.properties).not.toHaveProperty('status');
    expect(v.additionalPrinterColumns?.map((c) => [c.name, c.jsonPath])).toEqual([
      ['Behavior', '.spec.drain.behavior'],
      ['Order', '.spec.drain.order'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it('has upstream validation: drain.behavior enum required, selector lists of 1..32 unique entries', () => {
    expect(spec.required).toEqual(['drain']);
    const drain = props.drain as { required: string[]; properties: Record<string, Record<string, unknown>> };
    expect(drain.required).toEqual(['behavior']);
    expect(drain.properties.behavior).toMatchObject({ type: 'string', enum: ['Drain', 'Skip', 'WaitCompleted'] });
    expect(drain.properties.order).toMatchObject({ type: 'integer', format: 'int32' });
    for (const [field, keys] of [
      ['machines', ['selector', 'clusterSelector']],
      ['pods', ['selector', 'namespaceSelector']],
    ] as const) {
      expect(props[field]).toMatchObject({
        type: 'array',
        minItems: 1,
        maxItems: 32,
        'x-kubernetes-list-type': 'atomic',
        'x-kubernetes-validations': [
          { rule: 'self.all(x, self.exists_one(y, x == y))', message: `entries in ${field} must be unique` },
        ],
        items: { type: 'object', minProperties: 1 },
      });
      const item = (props[field] as { items: { properties: Record<string, unknown> } }).items;
      expect(Object.keys(item.properties)).toEqual(keys);
      expect(item.properties[keys[0]]).toMatchObject({ 'x-kubernetes-map-type': 'atomic' });
    }
  });
});
