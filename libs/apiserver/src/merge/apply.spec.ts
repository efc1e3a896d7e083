import type { KubeObject } from '@capi/apimachinery';
import { ApplyConflictError, BEFORE_FIRST_APPLY, applyIntent, trackUpdate } from './apply';
import { MergeError } from './fieldset';
import { T0, T1, T2, fieldsOf, managersOf, widget, widgetSchema } from './test-fixtures';

const schema = widgetSchema;
const apply = (
  live: KubeObject | undefined,
  intent: KubeObject,
  manager: string,
  extra: Partial<{ force: boolean; now: string; subresource: 'status'; ignoreStatus: boolean }> = {},
) =>
  applyIntent({
    live,
    intent,
    manager,
    force: extra.force ?? false,
    schema,
    now: extra.now ?? T1,
    subresource: extra.subresource,
    ignoreStatus: extra.ignoreStatus,
  });
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

function conflictOf(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApplyConflictError) return e;
    throw e;
  }
  throw new Error('expected an ApplyConflictError');
}

describe('applyIntent', () => {
  it('creates an object owned by the applier (kube docs ConfigMap example)', () => {
    const cmSchema = {
      type: 'object',
      properties: { data: { type: 'object', additionalProperties: { type: 'string' } } },
    };
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } },
      data: { key: 'some value' },
    };
    const out = applyIntent({
      live: undefined,
      intent: cm,
      manager: 'kubectl',
      force: false,
      schema: cmSchema,
      now: T0,
      ignoreStatus: false,
    });
    expect(out.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
      },
    ]);
    expect(out.data).toEqual({ key: 'some value' });
  });

  it('two managers on different fields: no conflict, both own their fields', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const b = apply(a, widget({ image: 'nginx' }), 'bob');
    expect(b.spec).toEqual({ replicas: 1, image: 'nginx' });
    expect(fieldsOf(b, 'alice')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(fieldsOf(b, 'bob')).toEqual({ 'f:spec': { 'f:image': {} } });
  });

  it('same field, different value: conflict naming the other manager in kube wording', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const err = conflictOf(() => apply(a, widget({ replicas: 3 }), 'bob'));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    expect(err.conflicts).toEqual([
      {
        manager: 'alice',
        field: '.spec.replicas',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        message: 'conflict with "alice"',
      },
    ]);
  });

  it('same field, same value: no conflict, shared ownership', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const b = apply(a, widget({ replicas: 1 }), 'bob');
    expect(fieldsOf(b, 'alice')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(fieldsOf(b, 'bob')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('lists several conflicts grouped by manager', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'a' }), 'alice');
    const u = update(a, widget({ replicas: 1, image: 'a', params: { p: '1' } }), 'kubectl-edit');
    const err = conflictOf(() => apply(u, widget({ replicas: 2, image: 'b', params: { p: '2' } }), 'bob'));
    expect(err.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alice":\n- .spec.image\n- .spec.replicas\n' +
        'conflicts with "kubectl-edit" using example.com/v1:\n- .spec.params.p',
    );
  });

  it('force moves ownership of conflicting fields to the applier', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'x' }), 'alice');
    const b = apply(a, widget({ replicas: 3 }), 'bob', { force: true });
    expect(b.spec).toEqual({ replicas: 3, image: 'x' });
    expect(fieldsOf(b, 'alice')).toEqual({ 'f:spec': { 'f:image': {} } });
    expect(fieldsOf(b, 'bob')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('a manager left owning nothing is dropped from managedFields', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const b = apply(a, widget({ replicas: 3 }), 'bob', { force: true });
    expect(managersOf(b)).toEqual(['bob/Apply']);
  });

  it('re-apply omitting a field removes it', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'x' }, { labels: { a: '1', b: '2' } }), 'alice');
    const b = apply(a, widget({ replicas: 1 }, { labels: { a: '1' } }), 'alice', { now: T2 });
    expect(b.spec).toEqual({ replicas: 1 });
    expect(b.metadata.labels).toEqual({ a: '1' });
    expect(fieldsOf(b, 'alice')).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:replicas': {} },
    });
    expect(b.metadata.managedFields![0].time).toBe(T2);
  });

  it('an omitted field that another manager also owns is kept', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'x' }), 'alice');
    const b = apply(a, widget({ image: 'x' }), 'bob');
    const c = apply(b, widget({ replicas: 1 }), 'alice');
    expect(c.spec).toEqual({ replicas: 1, image: 'x' });
    expect(fieldsOf(c, 'bob')).toEqual({ 'f:spec': { 'f:image': {} } });
    expect(fieldsOf(c, 'alice')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('an omitted field nobody tracked (set before any managedFields) is not removed', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice');
    const untracked = { ...a, spec: { ...(a.spec as object), image: 'manual' } };
    const b = apply(untracked, widget({}), 'alice');
    expect(b.spec).toEqual({ image: 'manual' });
  });

  it('a released container keeps what nobody tracked in it (no schema: maps granular)', () => {
    const a = applyIntent({
      live: undefined,
      intent: widget({ a: 1 }),
      manager: 'alice',
      force: false,
      schema: undefined,
      now: T0,
    });
    expect(fieldsOf(a, 'alice')).toEqual({ 'f:spec': { '.': {}, 'f:a': {} } });
    const edited = { ...a, spec: { a: 1, b: 2 } }; // written without tracking
    const b = applyIntent({
      live: edited,
      intent: widget({}),
      manager: 'alice',
      force: false,
      schema: undefined,
      now: T1,
    });
    expect(b.spec).toEqual({ b: 2 });
    const c = applyIntent({ live: a, intent: widget({}), manager: 'alice', force: false, schema: undefined, now: T1 });
    expect(c.spec).toBeUndefined();
  });

  it('status conditions are a list-map by type: per-condition ownership and conflicts', () => {
    const live = widget({ replicas: 1 });
    const a = apply(live, widget({}, {}, { conditions: [{ type: 'Ready', status: 'True' }] }), 'ctrl-a', {
      subresource: 'status',
    });
    const b = apply(a, widget({}, {}, { conditions: [{ type: 'Synced', status: 'False' }] }), 'ctrl-b', {
      subresource: 'status',
    });
    expect(b.status).toEqual({
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Synced', status: 'False' },
      ],
    });
    expect(fieldsOf(b, 'ctrl-a')).toEqual({
      'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
    });
    expect(b.metadata.managedFields!.every((e) => e.subresource === 'status')).toBe(true);
    const err = conflictOf(() =>
      apply(b, widget({}, {}, { conditions: [{ type: 'Ready', status: 'False' }] }), 'ctrl-b', {
        subresource: 'status',
      }),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "ctrl-a" with subresource "status": .status.conditions[type="Ready"].status',
    );
    // ctrl-a drops its condition: the item goes, ctrl-b's stays
    const c = apply(b, widget({}, {}, { conditions: [] }), 'ctrl-a', { subresource: 'status' });
    expect(c.status).toEqual({ conditions: [{ type: 'Synced', status: 'False' }] });
  });

  it('a list-map item stays while another manager owns a field in it', () => {
    const a = apply(undefined, widget({ containers: [{ name: 'c', image: 'i' }] }), 'alice');
    const b = apply(a, widget({ containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }), 'bob');
    const c = apply(b, widget({}), 'alice');
    expect(c.spec).toEqual({ containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] });
  });

  it('set lists: values are owned one by one and unioned', () => {
    const a = apply(undefined, widget({ tags: ['a', 'b'] }), 'alice');
    const b = apply(a, widget({ tags: ['b', 'c'] }), 'bob');
    expect(b.spec).toEqual({ tags: ['a', 'b', 'c'] });
    expect(fieldsOf(b, 'bob')).toEqual({ 'f:spec': { 'f:tags': { 'v:"b"': {}, 'v:"c"': {} } } });
    const c = apply(b, widget({ tags: ['b'] }), 'alice');
    expect(c.spec).toEqual({ tags: ['b', 'c'] }); // "a" only alice owned; "b" still alice+bob
  });

  it('atomic lists: replaced whole and owned as one field', () => {
    const a = apply(undefined, widget({ args: ['1', '2'] }), 'alice');
    expect(fieldsOf(a, 'alice')).toEqual({ 'f:spec': { 'f:args': {} } });
    const err = conflictOf(() => apply(a, widget({ args: ['1', '2', '3'] }), 'bob'));
    expect(err.conflicts.map((c) => c.field)).toEqual(['.spec.args']);
    const b = apply(a, widget({ args: ['3'] }), 'bob', { force: true });
    expect(b.spec).toEqual({ args: ['3'] });
  });

  it('atomic maps are one field; granular maps per key', () => {
    const a = apply(undefined, widget({ selector: { x: '1' }, params: { x: '1' } }), 'alice');
    const b = apply(a, widget({ params: { y: '2' } }), 'bob');
    expect(b.spec).toEqual({ selector: { x: '1' }, params: { x: '1', y: '2' } });
    expect(conflictOf(() => apply(b, widget({ selector: { y: '2' } }), 'bob')).conflicts.map((c) => c.field)).toEqual([
      '.spec.selector',
    ]);
  });

  it('labels and annotations are granular', () => {
    const a = apply(undefined, widget({}, { labels: { a: '1' }, annotations: { n: 'x' } }), 'alice');
    const b = apply(a, widget({}, { labels: { b: '2' }, annotations: { m: 'y' } }), 'bob');
    expect(b.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(b.metadata.annotations).toEqual({ n: 'x', m: 'y' });
    expect(fieldsOf(b, 'bob')).toEqual({ 'f:metadata': { 'f:annotations': { 'f:m': {} }, 'f:labels': { 'f:b': {} } } });
    expect(conflictOf(() => apply(b, widget({}, { labels: { a: '9' } }), 'bob')).message).toContain(
      '.metadata.labels.a',
    );
  });

  it('ownerReferences merge by uid, items atomic', () => {
    const ref = (uid: string, name: string) => ({ apiVersion: 'v1', kind: 'K', name, uid });
    const a = apply(undefined, widget({}, { ownerReferences: [ref('u1', 'one')] }), 'alice');
    const b = apply(a, widget({}, { ownerReferences: [ref('u2', 'two')] }), 'bob');
    expect(b.metadata.ownerReferences).toEqual([ref('u1', 'one'), ref('u2', 'two')]);
    expect(fieldsOf(b, 'bob')).toEqual({ 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u2"}': {} } } });
    const err = conflictOf(() => apply(b, widget({}, { ownerReferences: [ref('u1', 'renamed')] }), 'bob'));
    expect(err.conflicts.map((c) => c.field)).toEqual(['.metadata.ownerReferences[uid="u1"]']);
  });

  it('finalizers are a set', () => {
    const a = apply(undefined, widget({}, { finalizers: ['a.io/x'] }), 'alice');
    const b = apply(a, widget({}, { finalizers: ['b.io/y'] }), 'bob');
    expect(b.metadata.finalizers).toEqual(['a.io/x', 'b.io/y']);
    const c = apply(b, widget({}, {}), 'alice');
    expect(c.metadata.finalizers).toEqual(['b.io/y']);
  });

  it('an update after apply steals fields and a later apply reports the conflict', () => {
    const a = apply(undefined, widget({ replicas: 1, image: 'x' }), 'alice');
    const u = update(a, { ...a, spec: { replicas: 5, image: 'x' } }, 'kubectl-scale', { now: T2 });
    expect(fieldsOf(u, 'alice')).toEqual({ 'f:spec': { 'f:image': {} } });
    expect(fieldsOf(u, 'kubectl-scale', 'Update')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    const err = conflictOf(() => apply(u, widget({ replicas: 1, image: 'x' }), 'alice'));
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-scale" using example.com/v1: .spec.replicas',
    );
  });

  it('never owns name, uid and the other server fields; keeps live metadata', () => {
    const created = apply(undefined, widget({ replicas: 1 }), 'alice', { now: T0 });
    const live = {
      ...created,
      metadata: { ...created.metadata, uid: 'u-1', resourceVersion: '7', generation: 3, creationTimestamp: T0 },
    };
    const out = apply(live, widget({ replicas: 2 }, { name: 'w', uid: 'other' }), 'alice');
    expect(out.metadata).toMatchObject({ name: 'w', uid: 'u-1', resourceVersion: '7', generation: 3 });
    expect(fieldsOf(out, 'alice')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('an object without managedFields: existing fields go to before-first-apply', () => {
    const live = widget({ replicas: 1, image: 'x' });
    const err = conflictOf(() => apply(live, widget({ replicas: 2 }), 'alice'));
    expect(err.conflicts[0]).toMatchObject({
      manager: BEFORE_FIRST_APPLY,
      field: '.spec.replicas',
      operation: 'Update',
    });
    const out = apply(live, widget({ replicas: 1 }), 'alice');
    expect(managersOf(out)).toEqual(['alice/Apply', `${BEFORE_FIRST_APPLY}/Update`]);
  });

  it('main-resource apply neither changes nor owns status when the kind has a status subresource', () => {
    const live = apply(widget({}, {}, { observedGeneration: 1 }), widget({ replicas: 1 }), 'a');
    const out = apply(live, widget({ replicas: 1 }, {}, { observedGeneration: 9 }), 'a');
    expect(out.status).toEqual({ observedGeneration: 1 });
    expect(fieldsOf(out, 'a')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    const noSub = apply(live, widget({ replicas: 1 }, {}, { observedGeneration: 9 }), 'a', {
      ignoreStatus: false,
      force: true,
    });
    expect(noSub.status).toEqual({ observedGeneration: 9 });
  });

  it('status apply changes only status', () => {
    const live = apply(undefined, widget({ replicas: 1 }), 'a');
    const out = apply(live, widget({ replicas: 5 }, { labels: { x: 'y' } }, { observedGeneration: 2 }), 'ctrl', {
      subresource: 'status',
    });
    expect(out.spec).toEqual({ replicas: 1 });
    expect(out.metadata.labels).toBeUndefined();
    expect(out.status).toEqual({ observedGeneration: 2 });
    expect(fieldsOf(out, 'ctrl')).toEqual({ 'f:status': { 'f:observedGeneration': {} } });
  });

  it('a no-op re-apply keeps the entry time', () => {
    const a = apply(undefined, widget({ replicas: 1 }), 'alice', { now: T0 });
    const b = apply(a, widget({ replicas: 1 }), 'alice', { now: T2 });
    expect(b.metadata.managedFields![0].time).toBe(T0);
  });

  it('bad input gets a clear error', () => {
    expect(() =>
      apply(undefined, { ...widget(), metadata: { name: 'w', managedFields: [{ manager: 'x' }] } }, 'a'),
    ).toThrow(new MergeError('metadata.managedFields', 'must be nil in an apply configuration'));
    expect(() => apply(undefined, widget({ containers: [{ image: 'i' }] }), 'a')).toThrow(/omits key field "name"/);
    expect(() => apply(undefined, widget({}, {}, {}), 'a', { subresource: 'status' })).toThrow(MergeError);
    expect(() => apply(undefined, { ...widget(), kind: '' }, 'a')).toThrow('kind: must be set');
    expect(() => apply(undefined, 'nope' as unknown as KubeObject, 'a')).toThrow(
      'apply configuration must be a JSON object',
    );
  });

  it('does not modify its inputs', () => {
    const live = apply(
      undefined,
      widget({ replicas: 1, containers: [{ name: 'c', image: 'a' }] }, { labels: { x: '1' } }),
      'alice',
    );
    const intent = widget({ containers: [{ name: 'c', image: 'b' }, { name: 'd' }] }, { labels: { y: '2' } });
    const [liveCopy, intentCopy] = [structuredClone(live), structuredClone(intent)];
    apply(live, intent, 'alice');
    expect(live).toEqual(liveCopy);
    expect(intent).toEqual(intentCopy);
  });
});
