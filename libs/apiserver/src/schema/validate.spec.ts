import { validate } from './validate';
import { machineDeploymentSchema as md, validMachineDeployment } from './test-fixtures';

const fields = (errs: { field: string }[]) => errs.map((e) => e.field);

describe('validate', () => {
  it('accepts a valid object', () => {
    expect(validate(validMachineDeployment(), md)).toEqual([]);
  });

  it('reports a wrong type with kube wording', () => {
    const obj: any = validMachineDeployment();
    obj.spec.replicas = 'string';
    expect(validate(obj, md)).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
    ]);
  });

  it('rejects a fractional number for an integer but accepts integers for number', () => {
    const obj: any = validMachineDeployment();
    obj.spec.replicas = 1.5;
    expect(validate(obj, md)[0].message).toBe(
      'Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    );
    expect(validate(3, { type: 'number' })).toEqual([]);
  });

  it('reports missing required fields at their path', () => {
    const obj: any = validMachineDeployment();
    delete obj.spec.clusterName;
    delete obj.spec.template.spec.clusterName;
    const errs = validate(obj, md);
    expect(errs).toEqual([
      { type: 'FieldValueRequired', field: 'spec.clusterName', message: 'Required value' },
      { type: 'FieldValueRequired', field: 'spec.template.spec.clusterName', message: 'Required value' },
    ]);
  });

  it('reports unsupported enum values with the supported list', () => {
    const obj: any = validMachineDeployment();
    obj.spec.strategy = { type: 'Recreate' };
    expect(validate(obj, md)).toEqual([
      {
        type: 'FieldValueNotSupported',
        field: 'spec.strategy.type',
        message: 'Unsupported value: "Recreate": supported values: "RollingUpdate", "OnDelete", "InPlace"',
      },
    ]);
  });

  it('quotes every supported value like kube (enum values are printed with %v then quoted)', () => {
    expect(validate(3, { type: 'integer', enum: [1, 2] })[0].message).toBe(
      'Unsupported value: 3: supported values: "1", "2"',
    );
  });

  it('checks minimum/maximum including exclusive bounds', () => {
    expect(validate(-1, { type: 'integer', minimum: 0 })[0].message).toBe(
      'Invalid value: -1: in body should be greater than or equal to 0',
    );
    expect(validate(0, { type: 'integer', minimum: 0, exclusiveMinimum: true })[0].message).toContain(
      'should be greater than 0',
    );
    expect(validate(10, { type: 'integer', maximum: 10, exclusiveMaximum: true })[0].message).toContain(
      'should be less than 10',
    );
    expect(validate(11, { type: 'integer', maximum: 10 })[0].message).toContain('should be less than or equal to 10');
    expect(validate(10, { type: 'integer', maximum: 10 })).toEqual([]);
    expect(validate(7, { type: 'integer', multipleOf: 2 })[0].message).toContain('should be a multiple of 2');
  });

  it('checks string length (in characters) and pattern', () => {
    const obj: any = validMachineDeployment();
    obj.spec.clusterName = 'x'.repeat(64);
    obj.spec.template.spec.version = '1.31';
    expect(validate(obj, md)).toEqual([
      { type: 'FieldValueTooLong', field: 'spec.clusterName', message: 'Too long: may not be more than 63 bytes' },
      {
        type: 'FieldValueInvalid',
        field: 'spec.template.spec.version',
        message: 'Invalid value: "1.31": spec.template.spec.version in body should match \'^v\\d+\\.\\d+\\.\\d+$\'',
      },
    ]);
    expect(validate('ééé', { type: 'string', maxLength: 3 })).toEqual([]);
    expect(validate('', { type: 'string', minLength: 1 })[0].message).toBe(
      'Invalid value: "": in body should be at least 1 chars long',
    );
  });

  it('checks maxItems/minItems and min/maxProperties', () => {
    const obj: any = validMachineDeployment();
    obj.spec.template.spec.readinessGates = ['a', 'b', 'c', 'd'].map((conditionType) => ({ conditionType }));
    expect(validate(obj, md)).toEqual([
      {
        type: 'FieldValueTooMany',
        field: 'spec.template.spec.readinessGates',
        message: 'Too many: 4: must have at most 3 items',
      },
    ]);
    expect(validate([], { type: 'array', items: { type: 'string' }, minItems: 1 })[0].type).toBe('FieldValueInvalid');
    expect(
      validate({ a: 1, b: 2 }, { type: 'object', maxProperties: 1, additionalProperties: { type: 'integer' } })[0].type,
    ).toBe('FieldValueTooMany');
    expect(validate({}, { type: 'object', minProperties: 1 })[0].message).toContain(
      'should have at least 1 properties',
    );
  });

  it('checks formats used by CAPI and ignores unknown ones', () => {
    expect(validate(2 ** 31, { type: 'integer', format: 'int32' })[0]).toMatchObject({ type: 'FieldValueTypeInvalid' });
    expect(validate(2 ** 31 - 1, { type: 'integer', format: 'int32' })).toEqual([]);
    expect(validate(2 ** 40, { type: 'integer', format: 'int64' })).toEqual([]);
    expect(validate('2024-02-30T00:00:00Z', { type: 'string', format: 'date-time' })[0].message).toBe(
      'Invalid value: "2024-02-30T00:00:00Z": in body must be of type date-time: "2024-02-30T00:00:00Z"',
    );
    expect(validate('2024-02-29T10:11:12.123456+02:00', { type: 'string', format: 'date-time' })).toEqual([]);
    expect(validate('aGVsbG8=', { type: 'string', format: 'byte' })).toEqual([]);
    expect(validate('not base64!', { type: 'string', format: 'byte' })).toHaveLength(1);
    expect(validate('https://example.com/x', { type: 'string', format: 'uri' })).toEqual([]);
    expect(validate('not a uri', { type: 'string', format: 'uri' })).toHaveLength(1);
    expect(validate('anything', { type: 'string', format: 'made-up' })).toEqual([]);
  });

  it('accepts int-or-string values and rejects others', () => {
    const obj: any = validMachineDeployment();
    obj.spec.strategy = { rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } };
    expect(validate(obj, md)).toEqual([]);
    obj.spec.strategy.rollingUpdate.maxSurge = true;
    const errs = validate(obj, md);
    expect(fields(errs)).toContain('spec.strategy.rollingUpdate.maxSurge');
    expect(errs[0].message).toBe(
      'Invalid value: "boolean": spec.strategy.rollingUpdate.maxSurge in body must be of type integer,string: "boolean"',
    );
  });

  it('treats null by nullable', () => {
    const obj: any = validMachineDeployment();
    obj.spec.template.spec.bootstrap = { dataSecretName: null };
    expect(validate(obj, md)).toEqual([]);
    obj.spec.template.spec.nodeDrainTimeout = null;
    expect(validate(obj, md)).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.template.spec.nodeDrainTimeout',
        message: 'Invalid value: null: spec.template.spec.nodeDrainTimeout in body must be of type string: "null"',
      },
    ]);
  });

  it('validates additionalProperties values with dotted paths', () => {
    const obj: any = validMachineDeployment();
    obj.spec.template.metadata = { labels: { ok: 'x', bad: 3 } };
    expect(fields(validate(obj, md))).toEqual(['spec.template.metadata.labels.bad']);
  });

  it('keeps unknown fields valid under preserve-unknown-fields but still checks declared ones', () => {
    const s = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { type: 'integer' } } };
    expect(validate({ whatever: { deep: [1] }, n: 1 }, s)).toEqual([]);
    expect(fields(validate({ n: 'x' }, s))).toEqual(['n']);
    expect(validate({ a: [1, 'x', null] }, { 'x-kubernetes-preserve-unknown-fields': true })).toEqual([]);
  });

  it('finds duplicates in list-type set', () => {
    const s = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
    expect(validate(['a', 'b', 'a'], s)).toEqual([
      { type: 'FieldValueDuplicate', field: '[2]', message: 'Duplicate value: "a"' },
    ]);
    expect(validate({ l: ['a', 'b'] }, { type: 'object', properties: { l: s } })).toEqual([]);
    // like kube, a value repeated several times is reported once, at its first repetition
    expect(validate(['a', 'a', 'a', 'b', 'b'], s).map((e) => e.field)).toEqual(['[1]', '[4]']);
    const objects = {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-map-type': 'atomic' },
      'x-kubernetes-list-type': 'set',
    };
    expect(validate([{ a: 1 }, { a: 1 }], objects)).toEqual([
      { type: 'FieldValueDuplicate', field: '[1]', message: 'Duplicate value: map[string]interface {}{"a":1}' },
    ]);
  });

  it('finds duplicate and missing keys in list-type map', () => {
    const obj: any = validMachineDeployment();
    obj.status = {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Available', status: 'False' },
        { type: 'Ready', status: 'False' },
        { status: 'True' },
      ],
    };
    expect(validate(obj, md)).toEqual([
      { type: 'FieldValueRequired', field: 'status.conditions[3].type', message: 'Required value' },
      {
        type: 'FieldValueDuplicate',
        field: 'status.conditions[2]',
        message: 'Duplicate value: map[string]interface {}{"type":"Ready"}',
      },
    ]);
  });

  it('finds duplicates of multi-field keys only when every key matches', () => {
    const s = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key', 'effect'],
      items: { type: 'object', properties: { key: { type: 'string' }, effect: { type: 'string' } } },
    };
    expect(
      validate(
        [
          { key: 'a', effect: 'NoSchedule' },
          { key: 'a', effect: 'NoExecute' },
        ],
        s,
      ),
    ).toEqual([]);
    expect(
      fields(
        validate(
          [
            { key: 'a', effect: 'NoSchedule' },
            { effect: 'NoSchedule', key: 'a' },
          ],
          s,
        ),
      ),
    ).toEqual(['[1]']);
    // items are type-checked, and the list-map check reports only the first non-object item
    const errs = validate([{ key: 'a', effect: 'E' }, 'str', 5], s);
    expect(errs.filter((e) => e.type === 'FieldValueInvalid')).toEqual([
      {
        type: 'FieldValueInvalid',
        field: '[1]',
        message: 'Invalid value: "str": must be an object for an array of list-type map',
      },
    ]);
    expect(errs.filter((e) => e.type === 'FieldValueTypeInvalid').map((e) => e.field)).toEqual(['[1]', '[2]']);
  });

  it('evaluates oneOf, anyOf, allOf and not', () => {
    const oneOf = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
    };
    expect(validate({ a: 'x' }, oneOf)).toEqual([]);
    expect(validate({ a: 'x', b: 'y' }, oneOf)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: '',
        message:
          'Invalid value: map[string]interface {}{"a":"x", "b":"y"}: in body must validate one and only one schema (oneOf)',
      },
    ]);
    expect(fields(validate({}, oneOf))).toEqual(['', 'a', 'b']);
    const anyOf = { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: 'z$' }] };
    expect(validate('abc', anyOf)).toEqual([]);
    expect(validate('xyz', anyOf)).toEqual([]);
    expect(validate('m', anyOf)[0].message).toContain('must validate at least one schema (anyOf)');
    const allOf = { type: 'string', allOf: [{ minLength: 2 }, { maxLength: 3 }] };
    expect(validate('abcd', allOf)).toEqual([
      { type: 'FieldValueTooLong', field: '', message: 'Too long: may not be more than 3 bytes' },
    ]);
    expect(validate('a', { type: 'string', not: { enum: ['a'] } })[0].message).toContain(
      'must not validate the schema (not)',
    );
  });

  it('requires apiVersion and kind in embedded resources', () => {
    const s = {
      type: 'object',
      properties: {
        obj: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(fields(validate({ obj: { metadata: {} } }, s))).toEqual(['obj.apiVersion', 'obj.kind']);
    expect(validate({ obj: { apiVersion: 'v1', kind: 'Pod' } }, s)).toEqual([]);
  });

  it('does not crash on malformed schemas or values', () => {
    expect(validate(undefined, { type: 'object' })).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: '',
        message: 'Invalid value: null: in body must be of type object: "null"',
      },
    ]);
    expect(validate({ a: 1 }, { type: 'object', properties: 'nope' } as any)).toEqual([]);
    expect(validate('x', { type: 'string', pattern: '([' })).toEqual([]);
  });
});
