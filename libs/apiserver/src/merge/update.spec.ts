import type { KubeObject } from '@capi/apimachinery';
import { applyIntent, trackUpdate } from './apply';
import { MergeError } from './fieldset';
import { T0, T1, T2, fieldsOf, managersOf, widget, widgetSchema } from './test-fixtures';

const schema = widgetSchema;
const update = (
  live: KubeObject | undefined,
  updated: KubeObject,
  manager: string,
  extra: Partial<{ now: string; subresource: 'status'; ignoreStatus: boolean }> = {},
) =>
  trackUpdate({
    live,
    updated,
    manager,
    schema,
    now: extra.now ?? T1,
    subresource: extra.subresource,
    ignoreStatus: extra.ignoreStatus,
  });
const apply = (live: KubeObject | undefined, intent: KubeObject, manager: string) =>
  applyIntent({ live, intent, manager, force: false, schema, now: T0 });

describe('trackUpdate', () => {
  it('create: the creator owns every field, new containers marked with "." as kube writes them', () => {
    const obj = widget(
      {
        replicas: 2,
        containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }] }],
      },
      { labels: { app: 'web' } },
    );
    const out = update(undefined, obj, 'kubectl-create', { now: T0 });
    // Written by hand from what kube stores for an unstructured create (live starts empty, so every
    // container the request adds is itself a member).
    expect(JSON.stringify(out.metadata.managedFields)).toBe(
      JSON.stringify([
        {
          manager: 'kubectl-create',
          operation: 'Update',
          apiVersion: 'example.com/v1',
          time: T0,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': {
              '.': {},
              'f:containers': {
                '.': {},
                'k:{"name":"nginx"}': {
                  '.': {},
                  'f:image': {},
                  'f:name': {},
                  'f:ports': {
                    '.': {},
                    'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
                  },
                },
              },
              'f:replicas': {},
            },
          },
        },
      ]),
    );
    expect(out.spec).toEqual(obj.spec);
  });

  it('the writer gains what it changed, others lose it; unchanged fields stay with their owners', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'x' }), 'alice');
    const u = update(a, { ...a, spec: { replicas: 4, image: 'x' } }, 'hpa');
    expect(fieldsOf(u, 'alice')).toEqual({ 'f:spec': { 'f:image': {} } });
    expect(fieldsOf(u, 'hpa', 'Update')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(u.metadata.managedFields!.find((e) => e.manager === 'hpa')!.time).toBe(T1);
  });

  it('removed fields leave every entry, including the writer', () => {
    const a = update(undefined, widget({ replicas: 1, image: 'x' }), 'one', { now: T0 });
    const b = update(a, { ...a, spec: { replicas: 1 } }, 'two');
    expect(fieldsOf(b, 'one', 'Update')).toEqual({ 'f:spec': { '.': {}, 'f:replicas': {} } });
    expect(managersOf(b)).toEqual(['one/Update']);
  });

  it('a write that changes nothing adds no entry and keeps times', () => {
    const a = update(undefined, widget({ replicas: 1 }), 'one', { now: T0 });
    const b = update(a, a, 'two', { now: T2 });
    expect(b.metadata.managedFields).toEqual(a.metadata.managedFields);
  });

  it('entries are keyed by manager, operation, apiVersion and subresource', () => {
    const a = update(undefined, widget({ replicas: 1 }), 'ctl', { now: T0 });
    const v2 = { ...a, apiVersion: 'example.com/v2', spec: { replicas: 2 } };
    const b = update(a, v2, 'ctl', { now: T1 });
    expect(b.metadata.managedFields!.map((e) => e.apiVersion)).toEqual(['example.com/v1', 'example.com/v2']);
  });

  it('honours managedFields sent by the client and resets them with []', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'x' }), 'alice');
    const given = [
      {
        manager: 'bob',
        operation: 'Apply' as const,
        apiVersion: 'example.com/v1',
        fieldsType: 'FieldsV1' as const,
        fieldsV1: { 'f:spec': { 'f:image': {} } },
      },
    ];
    const moved = update(a, { ...a, metadata: { ...a.metadata, managedFields: given } }, 'editor');
    expect(managersOf(moved)).toEqual(['bob/Apply']);
    const reset = update(a, { ...a, metadata: { ...a.metadata, managedFields: [] } }, 'editor');
    expect(reset.metadata.managedFields).toBeUndefined();
    const resetAndChange = update(
      a,
      { ...a, spec: { replicas: 9, image: 'x' }, metadata: { ...a.metadata, managedFields: [{}] } },
      'editor',
    );
    expect(managersOf(resetAndChange)).toEqual(['editor/Update']);
  });

  it('omitted managedFields keep the live ones', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const { managedFields: _omit, ...meta } = a.metadata;
    const b = update(a, { ...a, metadata: meta, spec: { replicas: 1, image: 'y' } }, 'editor');
    expect(managersOf(b)).toEqual(['alice/Apply', 'editor/Update']);
  });

  it('status writes ignore managedFields in the request and own only status', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const req = {
      ...a,
      spec: { replicas: 7 },
      status: { observedGeneration: 1 },
      metadata: { ...a.metadata, managedFields: [] },
    };
    const b = update(a, req, 'ctrl', { subresource: 'status' });
    expect(managersOf(b)).toEqual(['alice/Apply', 'ctrl/Update/status']);
    expect(fieldsOf(b, 'ctrl', 'Update')).toEqual({ 'f:status': { '.': {}, 'f:observedGeneration': {} } });
  });

  it('main-resource writes do not own status unless ignoreStatus is false', () => {
    const obj = widget({ replicas: 1 }, {}, { observedGeneration: 1 });
    expect(fieldsOf(update(undefined, obj, 'c'), 'c', 'Update')).toEqual({ 'f:spec': { '.': {}, 'f:replicas': {} } });
    expect(fieldsOf(update(undefined, obj, 'c', { ignoreStatus: false }), 'c', 'Update')).toEqual({
      'f:spec': { '.': {}, 'f:replicas': {} },
      'f:status': { '.': {}, 'f:observedGeneration': {} },
    });
  });

  it('sorts entries as kube: Apply before Update, then by time', () => {
    const a = update(undefined, widget({ replicas: 1 }), 'zed', { now: T0 });
    const b = update(a, { ...a, spec: { replicas: 1, image: 'i' } }, 'amy', { now: T2 });
    const c = applyIntent({
      live: b,
      intent: widget({ params: { p: '1' } }),
      manager: 'app',
      force: false,
      schema,
      now: T1,
    });
    expect(managersOf(c)).toEqual(['app/Apply', 'zed/Update', 'amy/Update']);
  });

  it('rejects malformed managedFields in the request with a clear error', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const bad = { ...a, metadata: { ...a.metadata, managedFields: [{ manager: 'x', operation: 'Merge' as any }] } };
    expect(() => update(a, bad, 'e')).toThrow(MergeError);
    expect(() => update(a, bad, 'e')).toThrow('metadata.managedFields[0].operation: must be "Apply" or "Update"');
  });
});
