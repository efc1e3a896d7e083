// kube's Pod registry strategy and validation, the parts clients of this server see
// (kubernetes pkg/registry/core/pod/strategy.go, pkg/apis/core/validation/validation.go ValidatePod*,
// pkg/apis/core/helper/qos/qos.go).
import type { KubeObject } from '@capi/apimachinery';
import type { Cause } from './status';

type Obj = Record<string, any>;
const isMap = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isMap) : []);

const QOS_RESOURCES = ['cpu', 'memory'];

/**
 * The QoS class of a Pod (qos.go ComputePodQOS): Guaranteed when every container limits cpu and memory with requests
 * equal to the limits (kube defaults missing requests to the limits), BestEffort when none requests or limits either,
 * Burstable otherwise. Pod-level resources, when given, decide instead.
 */
export function podQos(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const sets = isMap(spec.resources)
    ? [spec.resources]
    : [...list(spec.initContainers), ...list(spec.containers)].map((c) => c.resources ?? {});
  let any = false;
  let guaranteed = sets.length > 0;
  for (const r of sets) {
    const limits: Obj = isMap(r.limits) ? r.limits : {};
    const requests: Obj = { ...limits, ...(isMap(r.requests) ? r.requests : {}) };
    for (const name of QOS_RESOURCES) {
      if (requests[name] !== undefined || limits[name] !== undefined) any = true;
      if (limits[name] === undefined || String(requests[name]) !== String(limits[name])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** podStrategy.PrepareForCreate: the status a client sends is dropped; a new Pod is Pending with its QoS class. */
export function podOnCreate(pod: KubeObject): KubeObject {
  const spec: Obj = isMap(pod.spec) ? pod.spec : {};
  return { ...pod, status: { phase: 'Pending', qosClass: podQos(spec) } };
}

const required = (field: string): Cause => ({ type: 'FieldValueRequired', field, message: 'Required value' });

/** ValidatePodSpec's container rules: at least one container; each named (uniquely) and with an image. */
function containerCauses(spec: Obj): Cause[] {
  const causes: Cause[] = [];
  if (!list(spec.containers).length) causes.push(required('spec.containers'));
  const names = new Set<string>();
  for (const field of ['initContainers', 'containers']) {
    list(spec[field]).forEach((c, i) => {
      const path = `spec.${field}[${i}]`;
      if (!c.name) causes.push(required(`${path}.name`));
      else if (names.has(c.name))
        causes.push({
          type: 'FieldValueDuplicate',
          field: `${path}.name`,
          message: `Duplicate value: ${JSON.stringify(c.name)}`,
        });
      else names.add(c.name);
      if (!c.image) causes.push(required(`${path}.image`));
    });
  }
  return causes;
}

/** The spec fields ValidatePodUpdate lets a Pod update change (images, the deadline, added tolerations, grace). */
function mutableMasked(spec: Obj): Obj {
  const out: Obj = { ...spec };
  for (const field of ['containers', 'initContainers'])
    if (Array.isArray(out[field])) out[field] = list(out[field]).map(({ image: _image, ...c }) => c);
  delete out.activeDeadlineSeconds;
  delete out.tolerations;
  delete out.terminationGracePeriodSeconds;
  return out;
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    isMap(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );

const UPDATE_FORBIDDEN =
  'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/**
 * Validation causes of a Pod write: the container rules on create and update, and on an update of the main resource
 * ValidatePodUpdate's immutability (kube appends a diff of the specs to the message; this server names the rule).
 */
export function podCauses(pod: KubeObject, live?: KubeObject, subresource?: string): Cause[] {
  const spec: Obj = isMap(pod.spec) ? pod.spec : {};
  const causes = containerCauses(spec);
  if (!live || subresource) return causes;
  const old: Obj = isMap(live.spec) ? live.spec : {};
  const oldTolerations = list(old.tolerations).map(canonical);
  const newTolerations = new Set(list(spec.tolerations).map(canonical));
  const removedToleration = oldTolerations.some((t) => !newTolerations.has(t));
  if (removedToleration || canonical(mutableMasked(old)) !== canonical(mutableMasked(spec)))
    causes.push({ type: 'FieldValueForbidden', field: 'spec', message: UPDATE_FORBIDDEN });
  return causes;
}
