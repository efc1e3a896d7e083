import type { ManagedFieldsEntry } from '@capi/apimachinery';
import {
  BEFORE_FIRST_APPLY_MANAGER,
  dropLabelsAndAnnotationsOwnership,
  labelsAndAnnotationsHandOverNeeded,
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

// The in-place start's hand-over decision (machineset inplace-start.ts).
describe('labelsAndAnnotationsHandOverNeeded', () => {
  const keep = {
    'cluster.x-k8s.io/cloned-from-name': 'tmpl-v2',
    'cluster.x-k8s.io/cloned-from-groupkind': 'TestMachineTemplate.infrastructure.cluster.x-k8s.io',
    'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
  };
  const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
  const withEntry = (
    fieldsV1: Record<string, unknown>,
    manager = 'capi-machineset',
    subresource?: string,
  ): ManagedFieldsEntry[] => [
    { manager, operation: 'Apply', apiVersion: INFRA, fieldsType: 'FieldsV1', fieldsV1, subresource },
  ];
  const needed = (entries: ManagedFieldsEntry[] | undefined) =>
    labelsAndAnnotationsHandOverNeeded(entries, 'capi-machineset', keep);

  it('is not needed when the apply owns only the annotations it re-applies (an earlier in-place update)', () => {
    const o = withEntry({
      'f:metadata': {
        'f:annotations': { 'f:cluster.x-k8s.io/cloned-from-name': {}, 'f:cluster.x-k8s.io/cloned-from-groupkind': {} },
      },
      'f:spec': { 'f:image': {} },
    });
    expect(needed(o)).toBe(false);
  });
  it('is not needed when the apply owns no labels or annotations (given up at creation)', () => {
    expect(needed(withEntry({ 'f:spec': { 'f:image': {} } }))).toBe(false);
    expect(needed(withEntry({ 'f:metadata': { 'f:labels': {} } }, 'capi-machineset-metadata'))).toBe(false);
    expect(needed(withEntry({ 'f:metadata': { 'f:labels': {} } }, 'capi-machineset', 'status'))).toBe(false);
  });
  it('is needed when the apply owns labels, or annotations it would not re-apply', () => {
    expect(needed(withEntry({ 'f:metadata': { 'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {} } } }))).toBe(true);
    expect(needed(withEntry({ 'f:metadata': { 'f:annotations': { 'f:note': {} } } }))).toBe(true);
    // The whole map owned as one value.
    expect(needed(withEntry({ 'f:metadata': { 'f:annotations': {} } }))).toBe(true);
  });
  it('is needed when managedFields were not read (the hand-over reads them)', () => {
    expect(needed(undefined)).toBe(true);
  });
});
