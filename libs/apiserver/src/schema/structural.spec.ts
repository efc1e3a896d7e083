import { validateCrdSchema } from './structural';
import { machineDeploymentSchema } from './test-fixtures';

const fieldsOf = (s: any) => validateCrdSchema(s).map((e) => e.field);

describe('validateCrdSchema', () => {
  it('accepts a realistic CAPI schema', () => {
    expect(validateCrdSchema(machineDeploymentSchema)).toEqual([]);
  });

  it('requires type object at the root', () => {
    expect(validateCrdSchema({ type: 'string' })).toEqual([
      { type: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "string": must be object at the root' },
    ]);
  });

  it('requires type on nested nodes unless int-or-string or preserve-unknown-fields', () => {
    const s = {
      type: 'object',
      properties: {
        spec: { properties: { a: { type: 'string' } } },
        ios: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        free: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(validateCrdSchema(s)).toEqual([
      {
        type: 'FieldValueRequired',
        field: 'properties[spec].type',
        message: 'Required value: must not be empty for specified object fields',
      },
    ]);
  });

  it('rejects unknown types, missing items, and properties mixed with additionalProperties', () => {
    expect(fieldsOf({ type: 'object', properties: { a: { type: 'str' } } })).toEqual(['properties[a].type']);
    expect(fieldsOf({ type: 'object', properties: { a: { type: 'array' } } })).toEqual(['properties[a].items']);
    expect(
      fieldsOf({
        type: 'object',
        properties: { a: { type: 'object', properties: {}, additionalProperties: { type: 'string' } } },
      }),
    ).toEqual(['properties[a].additionalProperties']);
    expect(fieldsOf({ type: 'object', properties: { a: { type: 'object', additionalProperties: false } } })).toEqual([
      'properties[a].additionalProperties',
    ]);
    expect(fieldsOf({ type: 'object', properties: { a: { $ref: '#/x', type: 'object' } } })).toEqual([
      'properties[a].$ref',
    ]);
    expect(
      fieldsOf({ type: 'object', properties: { a: { type: 'array', items: { type: 'string' }, uniqueItems: true } } }),
    ).toEqual(['properties[a].uniqueItems']);
  });

  it('forbids structure inside value validations but allows the int-or-string pattern', () => {
    const s = {
      type: 'object',
      properties: { a: { type: 'string', anyOf: [{ type: 'string', default: 'x' }], oneOf: [{ pattern: '^a' }] } },
    };
    expect(fieldsOf(s)).toEqual(['properties[a].anyOf[0].type', 'properties[a].anyOf[0].default']);
    const nested = {
      type: 'object',
      properties: {
        p: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] },
      },
    };
    expect(validateCrdSchema(nested)).toEqual([]);
    expect(fieldsOf({ type: 'object', properties: { p: { type: 'string', not: { type: 'string' } } } })).toEqual([
      'properties[p].not.type',
    ]);
  });

  it('checks list-type and map-type usage', () => {
    const base = (extra: any) => ({
      type: 'object',
      properties: {
        l: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } }, ...extra },
      },
    });
    expect(fieldsOf(base({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }))).toEqual([
      'properties[l].x-kubernetes-list-map-keys[0]',
    ]);
    expect(fieldsOf(base({ 'x-kubernetes-list-type': 'map' }))).toEqual(['properties[l].x-kubernetes-list-map-keys']);
    expect(fieldsOf(base({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['nope'] }))).toEqual([
      'properties[l].x-kubernetes-list-map-keys[0]',
    ]);
    expect(fieldsOf(base({ 'x-kubernetes-list-type': 'set' }))).toEqual(['properties[l].items.type']);
    expect(fieldsOf(base({ 'x-kubernetes-list-type': 'bag' }))).toEqual(['properties[l].x-kubernetes-list-type']);
    expect(fieldsOf(base({ 'x-kubernetes-list-map-keys': ['name'] }))).toEqual([
      'properties[l].x-kubernetes-list-map-keys',
    ]);
    expect(
      fieldsOf({ type: 'object', properties: { m: { type: 'string', 'x-kubernetes-map-type': 'atomic' } } }),
    ).toEqual(['properties[m].x-kubernetes-map-type']);
  });

  it('validates defaults against their schema and rejects unknown fields in them', () => {
    expect(
      validateCrdSchema({ type: 'object', properties: { n: { type: 'integer', default: 'x' } } })[0],
    ).toMatchObject({
      type: 'FieldValueTypeInvalid',
      field: 'properties[n].default',
    });
    expect(
      fieldsOf({
        type: 'object',
        properties: { o: { type: 'object', properties: { a: { type: 'string' } }, default: { b: 'x' } } },
      }),
    ).toEqual(['properties[o].default']);
    expect(
      fieldsOf({
        type: 'object',
        properties: { o: { type: 'object', properties: { kind: { type: 'string' } }, default: { kind: 'x' } } },
      }),
    ).toEqual([]);
  });

  it('only allows name/generateName restrictions in root metadata', () => {
    expect(
      fieldsOf({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } },
      }),
    ).toEqual([]);
    expect(
      fieldsOf({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
      }),
    ).toEqual(['properties[metadata].properties[labels]']);
  });

  it('rejects invalid patterns and non-object schemas without crashing', () => {
    expect(fieldsOf({ type: 'object', properties: { a: { type: 'string', pattern: '([' } } })).toEqual([
      'properties[a].pattern',
    ]);
    expect(fieldsOf({ type: 'object', properties: { a: 'nope' } })).toEqual(['properties[a]']);
    expect(validateCrdSchema(null as any)).toHaveLength(1);
  });
});
