import { encodePatch } from '@capi/api';
import { mergePatch as jsonMergePatch } from '@capi/apimachinery';
import { applyPatchToObject, MACHINE_PATCH_PATHS, MACHINE_SET_PATCH_PATHS, PatchApplyError } from './apply-patch';

const machine = () => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'ns', labels: { a: '1' } },
  spec: { clusterName: 'c', version: 'v1.30.0', failureDomain: 'fd1' },
});

describe('applyPatchToObject', () => {
  it('applies an RFC 6902 JSONPatch under spec', () => {
    const out = applyPatchToObject(
      machine(),
      encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: 'v1.31.0' }]),
      MACHINE_PATCH_PATHS,
    );
    expect(out.spec.version).toBe('v1.31.0');
    expect(out.metadata).toEqual(machine().metadata);
  });

  it('applies an RFC 7386 JSONMergePatch, null deletes', () => {
    const out = applyPatchToObject(
      machine(),
      encodePatch('JSONMergePatch', { spec: { version: 'v1.31.0', failureDomain: null } }),
      MACHINE_PATCH_PATHS,
    );
    expect(out.spec).toEqual({ clusterName: 'c', version: 'v1.31.0' });
  });

  it('drops changes outside the allowed paths', () => {
    const p = encodePatch('JSONPatch', [
      { op: 'add', path: '/metadata/labels/b', value: '2' },
      { op: 'add', path: '/status', value: { ready: true } },
      { op: 'replace', path: '/spec/version', value: 'v1.31.0' },
    ]);
    const out = applyPatchToObject(machine(), p, MACHINE_PATCH_PATHS) as ReturnType<typeof machine> & {
      status?: unknown;
    };
    expect(out.metadata.labels).toEqual({ a: '1' });
    expect(out.status).toBeUndefined();
    expect(out.spec.version).toBe('v1.31.0');
  });

  it('for MachineSets only spec.template.spec changes are kept', () => {
    const ms = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineSet',
      metadata: { name: 'ms' },
      spec: { replicas: 3, template: { metadata: { labels: { x: '1' } }, spec: { version: 'v1.30.0' } } },
    };
    const out = applyPatchToObject(
      ms,
      encodePatch('JSONMergePatch', {
        spec: { replicas: 5, template: { metadata: { labels: { x: '2' } }, spec: { version: 'v1.31.0' } } },
      }),
      MACHINE_SET_PATCH_PATHS,
    );
    expect(out.spec).toEqual({
      replicas: 3,
      template: { metadata: { labels: { x: '1' } }, spec: { version: 'v1.31.0' } },
    });
  });

  it('a patch removing the whole allowed path is ignored there (upstream CopySpec skips a missing source path)', () => {
    const out = applyPatchToObject(
      machine(),
      encodePatch('JSONPatch', [{ op: 'remove', path: '/spec' }]),
      MACHINE_PATCH_PATHS,
    );
    expect(out).toEqual(machine());
    const merge = applyPatchToObject(machine(), encodePatch('JSONMergePatch', { spec: null }), MACHINE_PATCH_PATHS);
    expect(merge.spec).toEqual(machine().spec);
    const ms = { kind: 'MachineSet', spec: { replicas: 1, template: { spec: { version: 'v1' } } } };
    expect(
      applyPatchToObject(
        ms,
        encodePatch('JSONPatch', [{ op: 'remove', path: '/spec/template/spec' }]),
        MACHINE_SET_PATCH_PATHS,
      ),
    ).toEqual(ms);
  });

  it('a JSONPatch with empty bytes is an error, an empty JSON merge patch is a no-op (as upstream)', () => {
    expect(() => applyPatchToObject(machine(), { patchType: 'JSONPatch' }, MACHINE_PATCH_PATHS)).toThrow(
      PatchApplyError,
    );
    expect(() => applyPatchToObject(machine(), { patchType: 'JSONPatch', patch: '' }, MACHINE_PATCH_PATHS)).toThrow(
      /error decoding json patch/,
    );
    expect(applyPatchToObject(machine(), { patchType: 'JSONMergePatch' }, MACHINE_PATCH_PATHS)).toEqual(machine());
    // An empty operations list decodes fine: nothing to do.
    expect(applyPatchToObject(machine(), encodePatch('JSONPatch', []), MACHINE_PATCH_PATHS)).toEqual(machine());
  });

  it('undefined patches and empty merge patches are a no-op and never mutate the input', () => {
    const m = machine();
    expect(applyPatchToObject(m, undefined, MACHINE_PATCH_PATHS)).toEqual(m);
    expect(applyPatchToObject(m, {}, MACHINE_PATCH_PATHS)).toEqual(m);
    expect(applyPatchToObject(m, { patchType: 'JSONMergePatch', patch: '' }, MACHINE_PATCH_PATHS)).toEqual(m);
    const out = applyPatchToObject(
      m,
      encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: 'x' }]),
      MACHINE_PATCH_PATHS,
    );
    expect(out).not.toBe(m);
    expect(m).toEqual(machine());
  });

  it('bad input gives a PatchApplyError: unknown patchType, bad base64 JSON, failing op, wrong document type', () => {
    const bad = (p: Parameters<typeof applyPatchToObject>[1]) => () =>
      applyPatchToObject(machine(), p, MACHINE_PATCH_PATHS);
    expect(bad({ patchType: 'StrategicMergePatch' as never, patch: Buffer.from('{}').toString('base64') })).toThrow(
      PatchApplyError,
    );
    expect(bad({ patch: Buffer.from('[]').toString('base64') })).toThrow(/unknown patchType/);
    expect(bad({ patchType: 'JSONPatch', patch: Buffer.from('not json').toString('base64') })).toThrow(
      /not valid JSON/,
    );
    expect(bad(encodePatch('JSONPatch', [{ op: 'test', path: '/spec/version', value: 'other' }]))).toThrow(
      /failed to apply JSONPatch/,
    );
    expect(bad(encodePatch('JSONPatch', [{ op: 'remove', path: '/spec/missing' }]))).toThrow(PatchApplyError);
    expect(bad(encodePatch('JSONPatch', { not: 'a list' }))).toThrow(/array/);
    expect(bad(encodePatch('JSONPatch', [{ op: 'replace', path: '', value: 'scalar' }]))).toThrow(/not a JSON object/);
  });

  it('jsonMergePatch follows RFC 7386 examples', () => {
    expect(jsonMergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(jsonMergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(jsonMergePatch({ a: 'b' }, { a: null })).toEqual({});
    expect(jsonMergePatch({ a: ['b'] }, { a: 'c' })).toEqual({ a: 'c' });
    expect(jsonMergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } })).toEqual({ a: { b: 'd' } });
    expect(jsonMergePatch(['a', 'b'], ['c', 'd'])).toEqual(['c', 'd']);
    expect(jsonMergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
  });
});
