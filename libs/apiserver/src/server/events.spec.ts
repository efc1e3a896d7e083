import type { KubeObject } from '@capi/apimachinery';
import { eventCreateCauses, eventUpdateCauses } from './events';

const core = (extra: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'pb' },
  ...extra,
});
/** The fields named, once each (an empty reporter is both required and not a qualified name, as in kube). */
const fields = (causes: { field: string }[]) => [...new Set(causes.map((c) => c.field))];

describe('Event validation (kube pkg/apis/core/validation/events.go)', () => {
  it("an old-style Event is in its involved object's namespace, or in default without one", () => {
    expect(
      eventCreateCauses(core({ involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'pb' } }), false),
    ).toEqual([]);
    expect(eventCreateCauses(core({ involvedObject: { kind: 'Namespace', name: 'pb' } }), false)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'involvedObject.namespace',
        message: 'Invalid value: "": does not match event.namespace',
      },
    ]);
    expect(
      eventCreateCauses(
        { ...core({ involvedObject: { kind: 'Node', name: 'n' } }), metadata: { name: 'e', namespace: 'default' } },
        false,
      ),
    ).toEqual([]);
  });

  it('a new-style Event (eventTime set) names its reporter, action and reason; events.k8s.io calls it reportingController', () => {
    const e = core({ eventTime: '2026-01-01T00:00:00.000000Z', involvedObject: { namespace: 'pb' } });
    expect(fields(eventCreateCauses(e, false))).toEqual([
      'reportingComponent',
      'reportingInstance',
      'action',
      'reason',
    ]);
    expect(fields(eventCreateCauses(e, true))).toEqual([
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
      'type',
    ]);
  });

  it('events.k8s.io: the legacy fields must be unset on create; most fields are immutable on update', () => {
    const ok = core({
      eventTime: '2026-01-01T00:00:00.000000Z',
      involvedObject: { namespace: 'pb' },
      reportingComponent: 'ctl',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      type: 'Normal',
    });
    expect(eventCreateCauses(ok, true)).toEqual([]);
    expect(fields(eventCreateCauses({ ...ok, count: 3, firstTimestamp: '2026-01-01T00:00:00Z' }, true))).toEqual([
      'firstTimestamp',
      'count',
    ]);
    expect(eventUpdateCauses({ ...ok, message: 'changed' }, ok, true)).toEqual([
      { type: 'FieldValueInvalid', field: 'message', message: 'Invalid value: "changed": field is immutable' },
    ]);
    expect(
      eventUpdateCauses({ ...ok, series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' } }, ok, true),
    ).toEqual([]);
    expect(fields(eventUpdateCauses({ ...ok, series: { count: 1 } }, ok, true))).toEqual([
      'series.count',
      'series.lastObservedTime',
    ]);
    expect(eventUpdateCauses({ ...ok, message: 'changed' }, ok, false)).toEqual([]);
  });
});
