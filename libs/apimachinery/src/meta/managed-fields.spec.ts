import { shareManagedFieldsTrees, stripManagedFields } from './managed-fields';
import type { KubeObject } from './types';

const tree = (owner: string) => ({
  'f:metadata': { 'f:labels': { 'f:role': {} }, 'f:ownerReferences': { [`k:{"uid":"${owner}"}`]: {} } },
  'f:spec': { 'f:version': {} },
});
const machine = (name: string, owner: string, time: string): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: {
    name,
    namespace: 'ns',
    managedFields: [
      {
        manager: 'capi-machineset',
        operation: 'Apply',
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        time,
        fieldsType: 'FieldsV1',
        fieldsV1: tree(owner),
      },
      {
        manager: 'capi-machine',
        operation: 'Update',
        subresource: 'status',
        time,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { 'f:phase': {} } },
      },
    ],
  },
  spec: { version: 'v1.31.0' },
});

describe('shareManagedFieldsTrees', () => {
  it('makes objects share equal fieldsV1 trees, frozen, and keeps everything else as it was', () => {
    const share = shareManagedFieldsTrees();
    const a = share(machine('a', 'ms-1', '2026-12-04T00:00:00Z'));
    const b = share(machine('b', 'ms-1', '2026-12-04T00:00:07Z'));
    const c = share(machine('c', 'ms-2', '2026-12-04T00:00:07Z'));
    const [aApply, aStatus] = a.metadata.managedFields!;
    const [bApply, bStatus] = b.metadata.managedFields!;
    expect(bApply.fieldsV1).toBe(aApply.fieldsV1);
    expect(bStatus.fieldsV1).toBe(aStatus.fieldsV1);
    expect(c.metadata.managedFields![0].fieldsV1).not.toBe(aApply.fieldsV1);
    expect(c.metadata.managedFields![0].fieldsV1).toEqual(tree('ms-2'));
    expect(Object.isFrozen((aApply.fieldsV1 as any)['f:metadata']['f:labels'])).toBe(true);
    // The entries themselves are the objects' own: only the trees are shared.
    expect(bApply).not.toBe(aApply);
    expect(bApply.time).toBe('2026-12-04T00:00:07Z');
    expect(b.spec).toEqual({ version: 'v1.31.0' });
    expect(Object.isFrozen(b.metadata)).toBe(false);
  });

  it('starts its table again beyond maxTrees, without changing what objects hold', () => {
    const share = shareManagedFieldsTrees(2);
    const first = share(machine('a', 'ms-1', 't'));
    share(machine('b', 'ms-2', 't'));
    share(machine('c', 'ms-3', 't')); // the table is full: cleared, then holds ms-3's trees
    const again = share(machine('d', 'ms-1', 't'));
    expect(again.metadata.managedFields![0].fieldsV1).not.toBe(first.metadata.managedFields![0].fieldsV1);
    expect(again.metadata.managedFields![0].fieldsV1).toEqual(first.metadata.managedFields![0].fieldsV1);
    expect(share(machine('e', 'ms-1', 't')).metadata.managedFields![0].fieldsV1).toBe(
      again.metadata.managedFields![0].fieldsV1,
    );
  });

  it('leaves objects without managedFields, or with odd entries, alone', () => {
    const share = shareManagedFieldsTrees();
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } };
    expect(share(bare)).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    const odd = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', managedFields: [null, { manager: 'x' }, { manager: 'y', fieldsV1: 'text' }] },
    } as unknown as KubeObject;
    expect(share(odd).metadata.managedFields).toEqual([null, { manager: 'x' }, { manager: 'y', fieldsV1: 'text' }]);
  });
});

describe('stripManagedFields (controller-runtime TransformStripManagedFields)', () => {
  it('returns the object without managedFields and leaves the input as it was', () => {
    const m = machine('m', 'ms-1', '2026-01-01T00:00:00Z');
    const stripped = stripManagedFields(m);
    expect(stripped.metadata).not.toHaveProperty('managedFields');
    expect(stripped.metadata.name).toBe('m');
    expect(stripped.spec).toBe(m.spec);
    expect(m.metadata.managedFields).toHaveLength(2);
  });

  it('returns an object without managedFields as it is', () => {
    const o: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
    expect(stripManagedFields(o)).toBe(o);
  });
});
