// What kube-apiserver does to a write before storing it: admission (prune, default, validate), apply intents its
// typed conversion rejects, and ObjectMeta updates ValidateObjectMetaUpdate forbids.
import type { KubeObject } from '@capi/apimachinery';
import { engines } from './engines';
import { droppedPaths } from './objects';
import { apiVersionOf, type ResourceInfo } from './registry';
import { invalid, StatusError, type Cause } from './status';
import { toStorage } from './conversion';
import { admitCrd, defaultCrdSpec } from './crds';
import { eventCreateCauses, eventUpdateCauses } from './events';
import { StrictDecodingError } from './identity';
import { dataSizeCauses } from './limits';
import { podCauses } from './pods';
import { pdbCauses } from './policy';
import { scaleCauses } from './scale';
import type { WriteOpts } from './resources';
import { ADMISSION_GROUP, MUTATING_KIND, VALIDATING_KIND, webhookConfigurationCauses } from '../admission/config';

const isCrd = (info: ResourceInfo) => info.group === 'apiextensions.k8s.io' && info.kind === 'CustomResourceDefinition';

/**
 * kube's field manager converts an apply intent to the schema's typed value before anything else: a field the schema
 * does not declare fails that conversion, whatever fieldValidation says, and the handler answers with the plain
 * error, a 500 (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager, structured-merge-diff's
 * ValidationErrors). Custom resources only: the built-in schemas here are loose.
 */
export function checkApplyFieldsDeclared(info: ResourceInfo, intent: KubeObject): void {
  const unknown = droppedPaths(intent, engines.pruneUnknownFields(structuredClone(intent), info.schema!));
  if (!unknown.length) return;
  const errors = unknown.map((p) => `.${p}: field not declared in schema`);
  const detail = errors.length === 1 ? errors[0] : ['errors:', ...errors.map((e) => `  ${e}`)].join('\n');
  const m = intent.metadata;
  throw new StatusError(
    500,
    `failed to create typed patch object (${m.namespace ?? ''}/${m.name ?? ''}; ${apiVersionOf(info)}, Kind=${info.kind}): ${detail}`,
    '',
  );
}

/**
 * kube's ValidateObjectMetaUpdate: metadata.uid is immutable, so a patch or apply naming another uid (an intent
 * computed for an object since deleted and recreated under the same name) is refused, not applied to the new one.
 */
export function checkUidUnchanged(info: ResourceInfo, live: KubeObject, uid: unknown): void {
  if (uid === undefined || uid === '' || uid === live.metadata.uid) return;
  throw invalid(info.group, info.kind, live.metadata.name ?? '', [
    {
      type: 'FieldValueInvalid',
      field: 'metadata.uid',
      message: `Invalid value: ${JSON.stringify(uid)}: field is immutable`,
    },
  ]);
}

/**
 * kube's ValidateObjectMetaUpdate: an object being deleted may lose finalizers but gain none (a write built from a
 * copy read before a finalizer was removed would otherwise bring it back and hold the deletion).
 */
export function checkNoNewFinalizers(info: ResourceInfo, live: KubeObject, next: KubeObject): void {
  if (!live.metadata.deletionTimestamp) return;
  const old = new Set(live.metadata.finalizers ?? []);
  const added = [...new Set((next.metadata.finalizers ?? []).filter((f) => !old.has(f)))].sort();
  if (!added.length) return;
  const goList = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
  throw invalid(info.group, info.kind, live.metadata.name ?? '', [
    {
      type: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goList}`,
    },
  ]);
}

/** prune → default → validate against the resource schema and the ObjectMeta rules. */
export function admit(
  info: ResourceInfo,
  obj: KubeObject,
  opts: Pick<WriteOpts, 'fieldValidation' | 'warnings' | 'subresource'>,
  live?: KubeObject,
): KubeObject {
  let out = obj;
  const validation = opts.fieldValidation;
  if (info.schema) {
    const before = validation === 'Strict' || validation === 'Warn' ? structuredClone(out) : undefined;
    out = engines.pruneUnknownFields(out, info.schema) as KubeObject;
    const unknown = before ? droppedPaths(before, out).map((f) => `unknown field "${f}"`) : [];
    if (unknown.length && validation === 'Strict') throw new StrictDecodingError(info, unknown);
    opts.warnings?.push(...unknown);
    out = engines.applyDefaultsInPlace(out, info.schema) as KubeObject; // `out` is prune's fresh copy
  }
  if (isCrd(info)) out = defaultCrdSpec(out);
  const causes: Cause[] = [
    ...engines.validateObjectMeta(out.metadata, info.namespaced, info.pathSegmentNames ? 'pathSegment' : undefined),
  ];
  if (!out.metadata.name)
    causes.push({
      type: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    });
  if (info.schema) causes.push(...engines.validate(out, info.schema));
  causes.push(...dataSizeCauses(info, out));
  if (info.custom && info.scale) causes.push(...scaleCauses(info.scale, out, opts.subresource === 'status'));
  if (isCrd(info)) causes.push(...admitCrd(out));
  if (!info.group && info.kind === 'Pod') causes.push(...podCauses(out, live, opts.subresource));
  if (info.group === 'policy' && info.kind === 'PodDisruptionBudget') causes.push(...pdbCauses(out));
  if (info.group === ADMISSION_GROUP && [MUTATING_KIND, VALIDATING_KIND].includes(info.kind))
    causes.push(...webhookConfigurationCauses(out));
  if (info.kind === 'Event' && !info.custom) {
    const eventsV1 = info.group === 'events.k8s.io';
    const core = toStorage(info, out);
    causes.push(
      ...(live ? eventUpdateCauses(core, toStorage(info, live), eventsV1) : eventCreateCauses(core, eventsV1)),
    );
  }
  // Errors name the internal kind: events.k8s.io Events are core Events there.
  if (causes.length) throw invalid(info.storedAs?.group ?? info.group, info.kind, out.metadata.name ?? '', causes);
  return out;
}
