import { pruneUnknownFields } from './prune';
import { machineDeploymentSchema as md, validMachineDeployment } from './test-fixtures';

describe('pruneUnknownFields', () => {
  it('drops unknown fields at every level and keeps known ones', () => {
    const obj: any = validMachineDeployment();
    obj.spec.unknown = 1;
    obj.spec.template.spec.bogus = { a: 1 };
    obj.status = { phase: 'Running', extra: true, conditions: [{ type: 'Ready', status: 'True', junk: 'x' }] };
    obj.topLevel = 'x';
    const out: any = pruneUnknownFields(obj, md);
    expect(out).toEqual({
      ...validMachineDeployment(),
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
  });

  it('keeps apiVersion/kind and keeps only ObjectMeta fields in metadata', () => {
    const obj = { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n', labels: { a: 'b' }, notMeta: 1 } };
    expect(pruneUnknownFields(obj, { type: 'object', properties: {} })).toEqual({
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'n', labels: { a: 'b' } },
    });
  });

  it('respects x-kubernetes-preserve-unknown-fields, still pruning below declared properties', () => {
    const s = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { strict: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    };
    const out = pruneUnknownFields({ spec: { free: { deep: [{ x: 1 }] }, strict: { a: 'x', b: 'y' } } }, s);
    expect(out).toEqual({ spec: { free: { deep: [{ x: 1 }] }, strict: { a: 'x' } } });
  });

  it('prunes additionalProperties values by their schema', () => {
    const s = {
      type: 'object',
      properties: {
        m: { type: 'object', additionalProperties: { type: 'object', properties: { keep: { type: 'string' } } } },
      },
    };
    expect(pruneUnknownFields({ m: { k1: { keep: 'a', drop: 'b' } } }, s)).toEqual({ m: { k1: { keep: 'a' } } });
  });

  it('prunes embedded resources like a resource root', () => {
    const s = {
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    };
    const out = pruneUnknownFields(
      {
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', bad: 1 },
          spec: { a: 'x', b: 'y' },
          other: 1,
        },
      },
      s,
    );
    expect(out).toEqual({ template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x' } } });
  });

  it('ignores allOf/anyOf/oneOf when deciding what is known', () => {
    const s = {
      type: 'object',
      properties: { a: { type: 'string' } },
      anyOf: [{ properties: { b: { type: 'string' } } }],
    };
    expect(pruneUnknownFields({ a: 'x', b: 'y' }, s)).toEqual({ a: 'x' });
  });

  it('does not modify its input and passes non-objects through', () => {
    const obj: any = { ...validMachineDeployment(), junk: 1 };
    pruneUnknownFields(obj, md);
    expect(obj.junk).toBe(1);
    expect(pruneUnknownFields('x', md)).toBe('x');
  });
});
