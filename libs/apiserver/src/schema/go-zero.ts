// Fields kube-apiserver writes for built-in kinds even when they are zero: it decodes every object into its Go type and
// encodes it back with encoding/json, which writes a field without `omitempty` always, a struct field always (as {}),
// and a zero metav1.Time / MicroTime as null. The field lists are k8s.io/api's types.go json tags (core/v1,
// events/v1, coordination/v1) for the kinds this server serves; custom resources are unstructured and keep what was
// sent.

type Fill = Record<string, unknown>;

const NODE_SYSTEM_INFO: Fill = Object.fromEntries(
  [
    'machineID',
    'systemUUID',
    'bootID',
    'kernelVersion',
    'osImage',
    'containerRuntimeVersion',
    'kubeletVersion',
    'kubeProxyVersion',
    'operatingSystem',
    'architecture',
  ].map((k) => [k, '']),
);

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `obj` with the missing fields of `fill` set (a value that is itself a Fill is filled into a present map too). */
function fillIn(obj: Record<string, unknown>, fill: Fill): Record<string, unknown> {
  const out = { ...obj };
  for (const [k, zero] of Object.entries(fill)) {
    if (out[k] === undefined) out[k] = structuredClone(zero);
    else if (isMap(zero) && isMap(out[k]) && Object.keys(zero).length)
      out[k] = fillIn(out[k] as Record<string, unknown>, zero);
  }
  return out;
}

const each = (list: unknown, fill: Fill) =>
  Array.isArray(list) ? list.map((x) => (isMap(x) ? fillIn(x, fill) : x)) : list;

/**
 * podCIDR and podCIDRs as the v1 <-> internal NodeSpec conversions leave them (pkg/apis/core/v1/conversion.go):
 * podCIDR is the first of podCIDRs; a podCIDR alone becomes the only podCIDRs.
 */
function nodePodCIDRs(spec: Record<string, unknown>): Record<string, unknown> {
  const cidrs = Array.isArray(spec.podCIDRs) ? spec.podCIDRs : [];
  if (cidrs.length) return { ...spec, podCIDR: cidrs[0] };
  if (typeof spec.podCIDR === 'string' && spec.podCIDR) return { ...spec, podCIDRs: [spec.podCIDR] };
  return spec;
}

/** Per apiVersion/kind: the object with kube's always-written zero fields filled in. */
const KINDS: Record<string, (o: Record<string, unknown>) => Record<string, unknown>> = {
  'v1/Event': (o) =>
    fillIn(o, {
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    }),
  'events.k8s.io/v1/Event': (o) =>
    fillIn(o, {
      eventTime: null,
      regarding: {},
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    }),
  'v1/Node': (o) => {
    const out = fillIn(o, {
      spec: {},
      status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: NODE_SYSTEM_INFO },
    });
    out.spec = nodePodCIDRs(out.spec as Record<string, unknown>);
    const status = out.status as Record<string, unknown>;
    out.status = {
      ...status,
      conditions: each(status.conditions, { lastHeartbeatTime: null, lastTransitionTime: null }),
    };
    if (status.conditions === undefined) delete (out.status as Record<string, unknown>).conditions;
    return out;
  },
  'v1/Namespace': (o) => fillIn(o, { spec: {}, status: {} }),
  'coordination.k8s.io/v1/Lease': (o) => fillIn(o, { spec: {} }),
};

/** A built-in object as kube-apiserver would write it back: its Go type's always-written zero fields present. */
export function withGoZeroFields<T extends Record<string, unknown>>(obj: T): T {
  const fill = KINDS[`${obj.apiVersion}/${obj.kind}`];
  return fill ? (fill(obj) as T) : obj;
}

/**
 * events.k8s.io/v1 Event fields that are `omitempty` strings there but not in core v1 (stored as core v1, a zero
 * reportingComponent / reportingInstance becomes an omitted reportingController / reportingInstance).
 */
export function dropEventsV1EmptyStrings<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = { ...obj };
  for (const k of ['reportingController', 'reportingInstance', 'note', 'action', 'reason', 'type'])
    if (out[k] === '') delete out[k];
  return out as T;
}
