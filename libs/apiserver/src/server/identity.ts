// A request body's apiVersion/kind against the resource of its URL, worded as kube-apiserver's decoders do.
// Built-in kinds are decoded into Go types: a missing apiVersion or kind is defaulted from the URL, another kind is a
// decoding error (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go transformDecodeError). Custom resources
// are unstructured: kind and apiVersion are required, and the CRD's validation names a wrong one
// (apiextensions-apiserver/pkg/registry/customresource/validator.go).
import { canonicalJson } from '@capi/apimachinery';
import { apiVersionOf, type Registry, type ResourceInfo } from './registry';
import { badRequest, invalid, StatusError } from './status';

/** Go's reflect package name of an internal type, per group (events.k8s.io decodes into core's Event). */
const INTERNAL_PACKAGE: Record<string, string> = {
  '': 'core',
  'events.k8s.io': 'core',
  'coordination.k8s.io': 'coordination',
  'apiextensions.k8s.io': 'apiextensions',
};

/** summarizeData of kube's handlers: a JSON body's first 30 characters, another body's first 30 bytes in hex. */
export function summarizeBody(body: Buffer | string): string {
  const data = typeof body === 'string' ? Buffer.from(body) : body;
  if (!data.length) return '<empty>';
  const text = data[0] === 0x7b; // '{'
  const head = data.subarray(0, 30);
  const shown = text ? head.toString('utf8') : head.toString('hex');
  return data.length > 30 ? `${shown} ...` : shown;
}

/** A body that cannot be decoded at all (no kind could be read from it). */
export const unrecognized = (info: ResourceInfo, why: string, body: Buffer | string): StatusError =>
  badRequest(`the object provided is unrecognized (must be of type ${info.kind}): ${why} (${summarizeBody(body)})`);

const versionOf = (apiVersion: string) => apiVersion.split('/').pop() ?? apiVersion;

/** A body whose kind was read but cannot be decoded as the URL's kind. */
export const cannotBeHandled = (info: ResourceInfo, apiVersion: string, kind: string, why: string): StatusError =>
  badRequest(`${kind} in version "${versionOf(apiVersion)}" cannot be handled as a ${info.kind}: ${why}`);

/** Why a kind registered in this server's scheme (one it serves) cannot become the URL's kind, or is unknown. */
export function notRegistered(apiVersion: string, kind: string): string {
  return `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:111"`;
}

/**
 * Checks (and for built-in kinds completes) a body's apiVersion and kind; throws kube's error when they are not the
 * URL's.
 */
export function checkKind(registry: Registry, info: ResourceInfo, obj: Record<string, any>): void {
  const want = apiVersionOf(info);
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = obj[field];
    if (v === undefined || v === null || typeof v === 'string') continue;
    // The decoders first read the TypeMeta with encoding/json.
    const got =
      typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'array' : 'object';
    const json = JSON.stringify(obj);
    throw unrecognized(
      info,
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${got} into Go struct field .${field} of type string`,
      json,
    );
  }
  if (info.custom) {
    if (!obj.kind) {
      const json = JSON.stringify(obj);
      throw unrecognized(info, `Object 'Kind' is missing in '${json}'`, json);
    }
    if (!obj.apiVersion)
      throw badRequest(`the API version in the data () does not match the expected API version (${want})`);
    const causes = [];
    if (obj.kind !== info.kind)
      causes.push({
        type: 'FieldValueInvalid',
        field: 'kind',
        message: `Invalid value: ${JSON.stringify(obj.kind)}: must be ${info.kind}`,
      });
    if (obj.apiVersion !== want)
      causes.push({
        type: 'FieldValueInvalid',
        field: 'apiVersion',
        message: `Invalid value: ${JSON.stringify(obj.apiVersion)}: must be ${want}`,
      });
    if (causes.length) throw invalid(info.group, String(obj.kind), obj.metadata?.name ?? '', causes);
    return;
  }
  obj.apiVersion ||= want;
  obj.kind ||= info.kind;
  if (obj.apiVersion === want && obj.kind === info.kind) return;
  const other = registry.byKind(obj.apiVersion, obj.kind);
  if (!other || other.custom)
    throw cannotBeHandled(info, obj.apiVersion, obj.kind, notRegistered(obj.apiVersion, obj.kind));
  const from = `${versionOf(obj.apiVersion)}.${obj.kind}`;
  const to = `${INTERNAL_PACKAGE[info.group] ?? info.group.split('.')[0]}.${info.kind}`;
  throw cannotBeHandled(info, obj.apiVersion, obj.kind, `converting (${from}) to (${to}): unknown conversion`);
}

/**
 * fieldValidation=Strict found unknown fields. As kube words it: the create/update handlers' decoder error ("<Kind> in
 * version ... cannot be handled as a <Kind>: strict decoding error: ..."), 400; a patch's is a 422 on the patched
 * object's JSON (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, an Invalid error of an empty kind).
 */
export class StrictDecodingError extends StatusError {
  constructor(
    info: ResourceInfo,
    readonly unknown: string[],
  ) {
    super(
      400,
      `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: strict decoding error: ${unknown.join(', ')}`,
      'BadRequest',
    );
  }

  ofPatch(patched: unknown): StatusError {
    return patchInvalid(canonicalJson(patched), `strict decoding error: ${this.unknown.join(', ')}`);
  }
}

/** The patch handler's Invalid "patch" of an empty kind, quoting the patched object's JSON. */
export function patchInvalid(patchedJson: string, why: string): StatusError {
  const message = `Invalid value: ${JSON.stringify(patchedJson)}: ${why}`;
  return new StatusError(422, ` "" is invalid: patch: ${message}`, 'Invalid', {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}
