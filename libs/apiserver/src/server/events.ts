// Validation of Events (both groups), after kube's pkg/apis/core/validation/events.go. It runs on the core v1 shape
// (events.k8s.io Events are stored as core Events) and names fields as kube does: core field names, except
// reportingController, named after the request's version.
import { jsonEqual, type KubeObject } from '@capi/apimachinery';
import { qualifiedNameErrors } from '../schema/objectmeta';
import type { Cause } from './status';

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const ns = (v: unknown) => str((v as { namespace?: unknown } | undefined)?.namespace);
const isZeroTime = (v: unknown) => v === undefined || v === null || v === '';
const nonEmptyMap = (v: unknown) =>
  typeof v === 'object' && v !== null && Object.values(v).some((x) => x !== undefined && x !== '');

/** Go's %q of a string or %v of a number, as field.Invalid quotes a value. */
const goValue = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v ?? ''));
const invalidCause = (field: string, value: unknown, detail: string): Cause => ({
  type: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
});
const required = (field: string): Cause => ({ type: 'FieldValueRequired', field, message: 'Required value' });

/** legacyValidateEvent: the rules every Event meets, in either version. */
function legacyCauses(e: Record<string, any>, eventsV1: boolean): Cause[] {
  const causes: Cause[] = [];
  const namespace = str(e.metadata?.namespace);
  const involvedNs = ns(e.involvedObject);
  const mismatch = () =>
    causes.push(invalidCause('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  if (isZeroTime(e.eventTime)) {
    if (!involvedNs ? namespace !== '' && namespace !== 'default' : namespace !== involvedNs) mismatch();
    return causes;
  }
  if (!involvedNs && namespace !== 'default' && namespace !== 'kube-system') mismatch();
  const controllerField = eventsV1 ? 'reportingController' : 'reportingComponent';
  const controller = str(e.reportingComponent);
  if (!controller) causes.push(required(controllerField));
  for (const m of qualifiedNameErrors(controller)) causes.push(invalidCause(controllerField, controller, m));
  const limits: [string, string, number][] = [
    ['reportingInstance', 'reportingInstance', 128],
    ['action', 'action', 128],
    ['reason', 'reason', 128],
  ];
  for (const [field, key, max] of limits) {
    if (!str(e[key])) causes.push(required(field));
    if (str(e[key]).length > max) causes.push(invalidCause(field, '', `can have at most ${max} characters`));
  }
  if (str(e.message).length > 1024) causes.push(invalidCause('message', '', 'can have at most 1024 characters'));
  return causes;
}

function seriesCauses(e: Record<string, any>): Cause[] {
  if (!e.series) return [];
  const causes: Cause[] = [];
  if (!(Number(e.series.count) >= 2)) causes.push(invalidCause('series.count', '', 'should be at least 2'));
  if (isZeroTime(e.series.lastObservedTime)) causes.push(required('series.lastObservedTime'));
  return causes;
}

/** ValidateEventCreate of an Event in core v1 shape; `eventsV1` when the request came through events.k8s.io/v1. */
export function eventCreateCauses(e: KubeObject, eventsV1: boolean): Cause[] {
  const o = e as Record<string, any>;
  const causes = legacyCauses(o, eventsV1);
  if (!eventsV1) return causes;
  causes.push(...seriesCauses(o));
  if (isZeroTime(o.eventTime)) causes.push(required('eventTime'));
  if (o.type !== 'Normal' && o.type !== 'Warning')
    causes.push(invalidCause('type', '', `has invalid value: ${str(o.type)}`));
  if (!isZeroTime(o.firstTimestamp)) causes.push(invalidCause('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(o.lastTimestamp)) causes.push(invalidCause('lastTimestamp', '', 'needs to be unset'));
  if (o.count) causes.push(invalidCause('count', '', 'needs to be unset'));
  if (nonEmptyMap(o.source)) causes.push(invalidCause('source', '', 'needs to be unset'));
  return causes;
}

/** Fields an update through events.k8s.io/v1 may not change (ValidateEventUpdate), in kube's order. */
const IMMUTABLE = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'reason',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];
const FIELD_NAME: Record<string, string> = { reportingComponent: 'reportingController' };

/** ValidateEventUpdate of core v1 shaped Events. */
export function eventUpdateCauses(next: KubeObject, old: KubeObject, eventsV1: boolean): Cause[] {
  const n = next as Record<string, any>;
  const o = old as Record<string, any>;
  const causes = legacyCauses(n, eventsV1);
  if (!eventsV1) return causes;
  if (!jsonEqual(n.series, o.series)) causes.push(...seriesCauses(n));
  const zero = (v: unknown) =>
    v === null || v === '' || (typeof v === 'object' && v !== null && !Object.keys(v).length) ? undefined : v;
  for (const k of IMMUTABLE) {
    if (jsonEqual(zero(n[k]), zero(o[k]))) continue;
    const v = n[k];
    causes.push({
      type: 'FieldValueInvalid',
      field: FIELD_NAME[k] ?? k,
      message: `Invalid value: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : goValue(v)}: field is immutable`,
    });
  }
  return causes;
}
