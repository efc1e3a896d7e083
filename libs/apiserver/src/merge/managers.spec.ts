import { FieldSet } from './fieldset';
import {
  ManagedFieldsDecodeError,
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  managerId,
} from './managers';

describe('managedFields entries', () => {
  it('keys Apply entries without apiVersion and Update entries with it', () => {
    const base = { manager: 'm', subresource: undefined };
    expect(managerId({ ...base, operation: 'Apply', apiVersion: 'v1' })).toBe(
      managerId({ ...base, operation: 'Apply', apiVersion: 'v2' }),
    );
    expect(managerId({ ...base, operation: 'Update', apiVersion: 'v1' })).not.toBe(
      managerId({ ...base, operation: 'Update', apiVersion: 'v2' }),
    );
    expect(managerId({ ...base, operation: 'Update', apiVersion: 'v1' })).not.toBe(
      managerId({ ...base, operation: 'Update', apiVersion: 'v1', subresource: 'status' }),
    );
  });

  it('unions duplicate entries and round-trips through encode', () => {
    const entries = [
      {
        manager: 'a',
        operation: 'Update' as const,
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1' as const,
        fieldsV1: { 'f:x': {} },
      },
      {
        manager: 'a',
        operation: 'Update' as const,
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1' as const,
        fieldsV1: { 'f:y': {} },
      },
    ];
    const decoded = decodeManagedFields(entries);
    expect(decoded.size).toBe(1);
    expect(encodeManagedFields(decoded.values())).toEqual([{ ...entries[0], fieldsV1: { 'f:x': {}, 'f:y': {} } }]);
  });

  it('drops entries that own nothing when encoding', () => {
    expect(encodeManagedFields([{ manager: 'a', operation: 'Apply', apiVersion: 'v1', set: new FieldSet() }])).toEqual(
      [],
    );
  });

  it('rejects malformed entries', () => {
    expect(() => decodeManagedFields({})).toThrow(ManagedFieldsDecodeError);
    expect(() => decodeManagedFields([{ manager: 'a', operation: 'Apply', fieldsType: 'FieldsV2' }])).toThrow(
      'metadata.managedFields[0].fieldsType: must be "FieldsV1"',
    );
    expect(() => decodeManagedFields([{ manager: 'a', operation: 'Apply', fieldsV1: { 'f:x': 3 } }])).toThrow(
      /managedFields\[0\]\.fieldsV1/,
    );
  });

  it('names managers as kube does in conflicts', () => {
    expect(describeManager({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' })).toBe('"kubectl"');
    expect(describeManager({ manager: 'kcm', operation: 'Update', apiVersion: 'apps/v1' })).toBe('"kcm" using apps/v1');
    expect(describeManager({ manager: 'c', operation: 'Update', apiVersion: 'v1', subresource: 'status' })).toBe(
      '"c" with subresource "status" using v1',
    );
  });
});
