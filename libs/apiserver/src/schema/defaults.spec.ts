import { applyDefaults } from './defaults';
import { machineDeploymentSchema as md, validMachineDeployment } from './test-fixtures';

describe('applyDefaults', () => {
  it('fills absent fields top-down, including inside a defaulted object', () => {
    const out: any = applyDefaults(validMachineDeployment(), md);
    expect(out.spec.paused).toBe(false);
    // strategy defaults to {type: RollingUpdate}; rollingUpdate has no default so maxSurge is not reached
    expect(out.spec.strategy).toEqual({ type: 'RollingUpdate' });
  });

  it('defaults nested fields of a present object and does not overwrite set values', () => {
    const obj: any = validMachineDeployment();
    obj.spec.paused = true;
    obj.spec.strategy = { rollingUpdate: {} };
    const out: any = applyDefaults(obj, md);
    expect(out.spec.paused).toBe(true);
    expect(out.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } });
  });

  it('defaults inside array items and additionalProperties values', () => {
    const obj: any = validMachineDeployment();
    obj.spec.template.spec.readinessGates = [{ conditionType: 'A' }, { conditionType: 'B', polarity: 'Negative' }];
    const out: any = applyDefaults(obj, md);
    expect(out.spec.template.spec.readinessGates).toEqual([
      { conditionType: 'A', polarity: 'Positive' },
      { conditionType: 'B', polarity: 'Negative' },
    ]);
    const mapSchema = {
      type: 'object',
      additionalProperties: { type: 'object', properties: { port: { type: 'integer', default: 80 } } },
    };
    expect(applyDefaults({ a: {}, b: { port: 1 } }, mapSchema)).toEqual({ a: { port: 80 }, b: { port: 1 } });
  });

  it('replaces non-nullable nulls by the default, drops them without one, keeps nullable nulls', () => {
    const s = {
      type: 'object',
      properties: {
        withDefault: { type: 'string', default: 'd' },
        noDefault: { type: 'string' },
        nullable: { type: 'string', nullable: true, default: 'n' },
      },
    };
    expect(applyDefaults({ withDefault: null, noDefault: null, nullable: null }, s)).toEqual({
      withDefault: 'd',
      nullable: null,
    });
  });

  it('defaults null array items only when the items schema has a default', () => {
    expect(applyDefaults([null, 'x'], { type: 'array', items: { type: 'string', default: 'd' } })).toEqual(['d', 'x']);
    expect(applyDefaults([null], { type: 'array', items: { type: 'string' } })).toEqual([null]);
  });

  it('does not modify its input and copies defaults', () => {
    const input: any = validMachineDeployment();
    const before = structuredClone(input);
    const a: any = applyDefaults(input, md);
    const b: any = applyDefaults(input, md);
    expect(input).toEqual(before);
    a.spec.strategy.type = 'OnDelete';
    expect(b.spec.strategy.type).toBe('RollingUpdate');
    expect(md.properties.spec.properties.strategy.default).toEqual({ type: 'RollingUpdate' });
  });

  it('leaves values that do not match the schema shape alone', () => {
    expect(applyDefaults('x', md)).toBe('x');
    expect(applyDefaults({ spec: 'not-an-object' }, md)).toEqual({ spec: 'not-an-object' });
  });
});
