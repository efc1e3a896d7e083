import type { ManagedFieldsEntry } from '@capi/apimachinery';
import {
  BEFORE_FIRST_APPLY_MANAGER,
  dropLabelsAndAnnotationsOwnership,
  migratedManagedFields,
  mitigatedManagedFields,
  needsManagedFieldsMigration,
  removeFieldsV1Paths,
  SEED_FIELDS_V1,
} from './managedfields';

const applyEntry = (
  manager: string,
  fieldsV1: Record<string, unknown>,
  extra: Partial<ManagedFieldsEntry> = {},
): ManagedFieldsEntry => ({
  manager,
  operation: 'Apply',
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});
const full = {
  'f:metadata': {
    'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:a': {} },
    'f:annotations': { 'f:x': {} },
    'f:ownerReferences': { 'k:{"uid":"1"}': {} },
  },
  'f:spec': { 'f:size': {} },
};

describe('managedFields helpers (pure)', () => {
  it('removeFieldsV1Paths drops paths and parents left empty', () => {
    const { fieldsV1, removed } = removeFieldsV1Paths({ 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': {} }, [
      ['f:metadata', 'f:labels'],
    ]);
    expect(removed).toBe(true);
    expect(fieldsV1).toEqual({ 'f:spec': {} });
    expect(removeFieldsV1Paths({ 'f:spec': {} }, [['f:metadata', 'f:labels']]).removed).toBe(false);
  });

  it('drops labels/annotations ownership only from the Apply entry of the given manager', () => {
    const entries = [
      applyEntry('capi-machineset', full),
      applyEntry('capi-machineset', { 'f:status': { 'f:ready': {} } }, { subresource: 'status' }),
      applyEntry('someone', full),
      { ...applyEntry('capi-machineset', full), operation: 'Update' as const },
    ];
    const out = dropLabelsAndAnnotationsOwnership(entries, 'capi-machineset')!;
    expect(out[0].fieldsV1).toEqual({
      'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"1"}': {} } },
      'f:spec': { 'f:size': {} },
    });
    expect(out.slice(1)).toEqual(entries.slice(1));
    expect(entries[0].fieldsV1).toEqual(full); // input untouched
    expect(
      dropLabelsAndAnnotationsOwnership([applyEntry('capi-machineset', { 'f:spec': {} })], 'capi-machineset'),
    ).toBeUndefined();
  });

  it('migration: needed iff the manager owns the cluster-name label; drops Apply + classic Update, seeds the metadata manager', () => {
    const entries = [
      applyEntry('capi-machineset', full),
      { ...applyEntry('manager', full), operation: 'Update' as const },
      applyEntry('other', full),
    ];
    expect(needsManagedFieldsMigration(entries, 'capi-machineset')).toBe(true);
    expect(needsManagedFieldsMigration(entries, 'nobody')).toBe(false);
    expect(needsManagedFieldsMigration([applyEntry('capi-machineset', { 'f:spec': {} })], 'capi-machineset')).toBe(
      false,
    );
    const out = migratedManagedFields(
      entries,
      'infrastructure.cluster.x-k8s.io/v1beta2',
      'capi-machineset',
      'capi-machineset-metadata',
      new Date('2026-01-02T03:04:05.678Z'),
    );
    expect(out.map((e) => e.manager)).toEqual(['other', 'capi-machineset-metadata']);
    expect(out[1]).toEqual({
      manager: 'capi-machineset-metadata',
      operation: 'Apply',
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      time: '2026-01-02T03:04:05Z',
      fieldsType: 'FieldsV1',
      fieldsV1: SEED_FIELDS_V1,
    });
  });

  it('mitigation: cases 0, 1, 2a-c', () => {
    const mine = applyEntry('capi-kcp', full);
    const bfa = { ...applyEntry(BEFORE_FIRST_APPLY_MANAGER, full), operation: 'Update' as const };
    const other = applyEntry('other', full);
    const av = 'controlplane.cluster.x-k8s.io/v1beta2';
    expect(mitigatedManagedFields([mine], av, 'capi-kcp')).toBeUndefined(); // case 0
    expect(mitigatedManagedFields([], av, 'capi-kcp')!.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['capi-kcp', SEED_FIELDS_V1],
    ]); // 1
    expect(mitigatedManagedFields([bfa], av, 'capi-kcp')!.map((e) => e.manager)).toEqual(['capi-kcp']); // 2a
    expect(mitigatedManagedFields([bfa, other], av, 'capi-kcp')!.map((e) => e.manager)).toEqual(['other', 'capi-kcp']); // 2b
    expect(mitigatedManagedFields([bfa, mine, other], av, 'capi-kcp')).toEqual([mine, other]); // 2c
    const seed = { 'f:spec': { 'f:x': {} } };
    expect(mitigatedManagedFields([], av, 'capi-kcp', seed)![0].fieldsV1).toEqual(seed);
  });
});
