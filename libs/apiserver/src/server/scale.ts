// The /scale subresource of custom resources (apiextensions-apiserver's ScaleREST): an autoscaling/v1 Scale read
// from and written to the paths the CRD's `subresources.scale` names. Writes go through the parent's update/apply
// with subresource "scale", so resourceVersion preconditions, field ownership and watch events are the parent's.
import { formatLabelSelector, mergePatch, type KubeObject, type LabelSelector } from '@capi/apimachinery';
import { jsonPatch, strategicMergePatch } from './patch';
import { apiVersionOf, type ResourceInfo, type ScalePaths } from './registry';
import type { ApplyOpts, PatchKind, Resources, WriteOpts } from './resources';
import { badRequest, StatusError, type Cause } from './status';
import { toTable } from './table';
import { patchInvalid } from './identity';

export const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const SCALE_API_VERSION = `${SCALE_KIND.group}/${SCALE_KIND.version}`;

export interface Scale {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string };
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/** ".spec.replicas" → ["spec", "replicas"] (CRD validation only admits such simple paths). */
const segments = (path: string) => path.replace(/^\./, '').split('.');

function valueAt(obj: unknown, path: string): unknown {
  let cur: any = obj;
  for (const s of segments(path)) cur = cur !== null && typeof cur === 'object' ? cur[s] : undefined;
  return cur;
}

function setAt(obj: Record<string, any>, path: string, value: unknown): void {
  const segs = segments(path);
  let cur = obj;
  for (const s of segs.slice(0, -1)) {
    if (cur[s] === null || typeof cur[s] !== 'object' || Array.isArray(cur[s])) cur[s] = {};
    cur = cur[s];
  }
  cur[segs[segs.length - 1]] = value;
}

const integerAt = (obj: unknown, path: string) => {
  const v = valueAt(obj, path);
  return typeof v === 'number' && Number.isInteger(v) ? v : 0;
};

/** metav1.FormatLabelSelector: "<error>" for a selector that does not convert. */
function selectorString(selector: LabelSelector): string {
  try {
    return formatLabelSelector(selector);
  } catch {
    return '<error>';
  }
}

/** kube's scaleFromCustomResource: absent replicas read as 0, the selector only when the CRD names its path. */
export function scaleOf(paths: ScalePaths, obj: KubeObject): Scale {
  const m = obj.metadata;
  const selector = paths.labelSelectorPath ? valueAt(obj, paths.labelSelectorPath) : undefined;
  return {
    apiVersion: SCALE_API_VERSION,
    kind: SCALE_KIND.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: integerAt(obj, paths.specReplicasPath) },
    status: {
      replicas: integerAt(obj, paths.statusReplicasPath),
      // A built-in's selector is a LabelSelector (apps/v1 Deployment): kube's scale REST formats it as a string.
      ...(typeof selector === 'string'
        ? { selector }
        : selector && typeof selector === 'object'
          ? { selector: selectorString(selector as LabelSelector) }
          : {}),
    },
  };
}

/** Decoding (400) of a Scale in a request. */
function checkScale(body: unknown, name: string): Scale {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the request body must be a JSON object');
  const s = body as Record<string, any>;
  if (
    (s.kind !== undefined && s.kind !== SCALE_KIND.kind) ||
    (s.apiVersion !== undefined && s.apiVersion !== SCALE_API_VERSION)
  ) {
    throw badRequest(
      `${s.kind} in version "${s.apiVersion}" cannot be handled as a Scale: expected ${SCALE_API_VERSION}, Kind=Scale`,
    );
  }
  const meta = s.metadata ?? {};
  if (typeof meta !== 'object' || Array.isArray(meta)) throw badRequest('metadata must be an object');
  if (meta.name && meta.name !== name)
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  if (s.spec !== undefined && s.spec !== null && (typeof s.spec !== 'object' || Array.isArray(s.spec))) {
    throw badRequest(
      'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal into Go struct field Scale.spec of type v1.ScaleSpec',
    );
  }
  const replicas = s.spec?.replicas;
  if (
    replicas !== undefined &&
    !(typeof replicas === 'number' && Number.isInteger(replicas) && Math.abs(replicas) <= 2 ** 31 - 1)
  ) {
    const got =
      typeof replicas === 'number'
        ? 'number'
        : Array.isArray(replicas)
          ? 'array'
          : replicas === null
            ? 'null'
            : typeof replicas;
    throw badRequest(
      `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${got} into Go struct field ScaleSpec.spec.replicas of type int32`,
    );
  }
  // A negative count is refused by the custom resource's own validation (scaleCauses), as kube's ScaleREST writes
  // the parent through its update strategy.
  return s as Scale;
}

const MAX_INT32 = 2 ** 31 - 1;

/**
 * kube's ValidateScaleSpec / ValidateScaleStatus of a custom resource whose CRD declares the scale subresource, run on
 * every write of it (apiextensions-apiserver/pkg/registry/customresource/validator.go): the replica counts at the
 * declared paths are int32s, not negative; a /status write checks the status one only.
 */
export function scaleCauses(paths: ScalePaths, obj: unknown, statusOnly: boolean): Cause[] {
  const causes: Cause[] = [];
  const check = (path: string) => {
    const v = valueAt(obj, path);
    if (typeof v !== 'number') return;
    if (v < 0)
      causes.push({
        type: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${v}: should be a non-negative integer`,
      });
    else if (v > MAX_INT32)
      causes.push({
        type: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${v}: should be less than or equal to ${MAX_INT32}`,
      });
  };
  if (!statusOnly) check(paths.specReplicasPath);
  check(paths.statusReplicasPath);
  return causes;
}

export interface ServeOpts extends WriteOpts {
  applyManager: string;
  force: boolean;
}

/** GET, PUT, PATCH and apply of `<resource>/<name>/scale` for resources whose CRD declares the scale subresource. */
export class ScaleSubresource {
  constructor(private readonly resources: Resources) {}

  /** Dispatches a request by method and body kind; returns the verb (for metrics) and the Scale to send. */
  serve(
    method: string,
    info: ResourceInfo,
    ns: string,
    name: string,
    write: { body: unknown; patch?: PatchKind | 'apply' } | undefined,
    opts: ServeOpts,
  ): { verb: string; scale: Scale } {
    const { applyManager, force, ...writeOpts } = opts;
    switch (method) {
      case 'GET':
        return { verb: 'get', scale: this.get(info, ns, name) };
      case 'PUT':
        if (write?.patch) throw new StatusError(415, 'PUT requires application/json', 'UnsupportedMediaType');
        return { verb: 'update', scale: this.update(info, ns, name, write?.body, writeOpts) };
      case 'PATCH':
        if (!write?.patch) throw new StatusError(415, 'PATCH requires a patch content type', 'UnsupportedMediaType');
        if (write.patch === 'apply')
          return {
            verb: 'apply',
            scale: this.apply(info, ns, name, write.body, { ...writeOpts, fieldManager: applyManager, force }),
          };
        return { verb: 'patch', scale: this.patch(info, ns, name, write.patch, write.body, writeOpts) };
      default:
        throw new StatusError(405, `method ${method} is not allowed on the scale subresource`, 'MethodNotAllowed');
    }
  }

  get(info: ResourceInfo, ns: string, name: string): Scale {
    return scaleOf(paths(info), this.resources.get(info, ns, name));
  }

  /**
   * PUT: only spec.replicas is taken (absent is 0, Go's int32 zero value, as in kube); a resourceVersion in the Scale
   * is a precondition on the parent (409).
   */
  update(info: ResourceInfo, ns: string, name: string, body: unknown, opts: WriteOpts): Scale {
    const scale = checkScale(body, name);
    const live = this.resources.get(info, ns, name);
    const next = structuredClone(live);
    delete next.metadata.managedFields;
    next.metadata.resourceVersion = scale.metadata?.resourceVersion || undefined;
    setAt(next, paths(info).specReplicasPath, scale.spec?.replicas ?? 0);
    return scaleOf(paths(info), this.resources.update(info, ns, name, next, { ...opts, subresource: 'scale' }));
  }

  /** PATCH: the patch applies to the current Scale (carrying its resourceVersion), then as PUT. */
  patch(info: ResourceInfo, ns: string, name: string, kind: PatchKind, patch: unknown, opts: WriteOpts): Scale {
    const current = this.get(info, ns, name);
    let patched: unknown;
    if (kind === 'json') patched = jsonPatch(current, patch);
    else if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
      throw badRequest('patch body must be a JSON object');
    else patched = kind === 'merge' ? mergePatch(current, patch) : strategicMergePatch(current, patch);
    try {
      checkScale(patched, name);
    } catch (e) {
      // kube's patch handler decodes the patched object itself: a value Go cannot decode is an Invalid "patch" of an
      // empty kind quoting the patched JSON (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
      const why = e instanceof StatusError && /(json: cannot unmarshal .*)$/.exec(e.message)?.[1];
      if (!why) throw e;
      throw patchInvalid(JSON.stringify(patched), why);
    }
    return this.update(info, ns, name, patched, opts);
  }

  /**
   * Server-side apply of a Scale: applied to the parent as an intent holding only the replicas, in the manager's
   * entry for subresource "scale", so it conflicts with other owners of the replicas field as kube's does.
   */
  apply(info: ResourceInfo, ns: string, name: string, intent: unknown, opts: ApplyOpts): Scale {
    const scale = checkScale(intent, name);
    const parent: KubeObject = { apiVersion: apiVersionOf(info), kind: info.kind, metadata: { name } };
    if (scale.metadata?.resourceVersion) parent.metadata.resourceVersion = scale.metadata.resourceVersion;
    if (scale.spec?.replicas !== undefined) setAt(parent, paths(info).specReplicasPath, scale.spec.replicas);
    return scaleOf(paths(info), this.resources.apply(info, ns, name, parent, { ...opts, subresource: 'scale' }));
  }
}

/** kube's printer columns for a Scale (`kubectl get --subresource=scale`): Name, Desired, Available, Age. */
const SCALE_COLUMNS: ResourceInfo['printerColumns'] = [
  {
    name: 'Desired',
    type: 'integer',
    jsonPath: '.spec.replicas',
    description: 'replicas is the desired number of instances for the scaled object.',
  },
  {
    name: 'Available',
    type: 'integer',
    jsonPath: '.status.replicas',
    description: 'replicas is the actual number of observed instances of the scaled object.',
  },
  // kube's scale printer ends with Age (printers.go scaleColumnDefinitions).
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  },
];

export function scaleTable(info: ResourceInfo, scale: Scale) {
  return toTable({ ...info, printerColumns: SCALE_COLUMNS }, [scale], {
    resourceVersion: scale.metadata.resourceVersion,
  });
}

function paths(info: ResourceInfo): ScalePaths {
  if (!info.scale) throw new Error(`${info.plural} has no scale subresource`);
  return info.scale;
}
