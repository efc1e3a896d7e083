// ObjectMeta validation (k8s.io/apimachinery/pkg/api/validation/objectmeta.go and util/validation).
import { FieldError, child, fieldErrors, index, isPlainObject } from './types';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;
const full = (re: string) => new RegExp(`^${re}$`);
const RE = {
  label: full(DNS1123_LABEL),
  subdomain: full(DNS1123_SUBDOMAIN),
  qualified: full(QUALIFIED_NAME),
  labelValue: full(LABEL_VALUE),
};

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** Problems with a DNS-1123 subdomain (e.g. an object name), worded like kube's IsDNS1123Subdomain. */
export function dns1123SubdomainErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push('must be no more than 253 characters');
  if (!RE.subdomain.test(v)) {
    out.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`,
    );
  }
  return out;
}

/** Problems with a DNS-1123 label (e.g. a namespace name), worded like kube's IsDNS1123Label. */
export function dns1123LabelErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!RE.label.test(v)) {
    out.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
        `(e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL}')`,
    );
  }
  return out;
}

/** Problems with a qualified name ("prefix/name" or "name"), e.g. a label or annotation key. */
export function qualifiedNameErrors(v: string): string[] {
  const parts = v.split('/');
  let name = v;
  const out: string[] = [];
  if (parts.length === 2) {
    const [prefix, n] = parts;
    name = n;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else out.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  if (name.length > 0 && !RE.qualified.test(name)) {
    out.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`,
    );
  }
  return out;
}

/** Problems with a label value (may be empty). */
export function labelValueErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!RE.labelValue.test(v)) {
    out.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`,
    );
  }
  return out;
}

function stringMapErrors(v: unknown, field: string, errs: FieldError[]): v is Record<string, string> {
  if (v === undefined || v === null) return false;
  if (!isPlainObject(v)) {
    errs.push(fieldErrors.typeInvalid(field, v, 'must be a map of string keys to string values'));
    return false;
  }
  let ok = true;
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') {
      errs.push(fieldErrors.typeInvalid(child(field, k), val, 'must be a string'));
      ok = false;
    }
  }
  return ok;
}

function validateLabels(labels: unknown, errs: FieldError[]): void {
  const field = 'metadata.labels';
  if (!stringMapErrors(labels, field, errs)) return;
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldErrors.invalid(field, k, m));
    for (const m of labelValueErrors(v)) errs.push(fieldErrors.invalid(field, v, m));
  }
}

function validateAnnotations(annotations: unknown, errs: FieldError[]): void {
  const field = 'metadata.annotations';
  if (!stringMapErrors(annotations, field, errs)) return;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of qualifiedNameErrors(k.toLowerCase())) errs.push(fieldErrors.invalid(field, k, m));
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
}

function validateFinalizers(finalizers: unknown, errs: FieldError[]): void {
  const field = 'metadata.finalizers';
  if (finalizers === undefined || finalizers === null) return;
  if (!Array.isArray(finalizers)) {
    errs.push(fieldErrors.typeInvalid(field, finalizers, 'must be a list of strings'));
    return;
  }
  finalizers.forEach((f, i) => {
    if (typeof f !== 'string') errs.push(fieldErrors.typeInvalid(index(field, i), f, 'must be a string'));
    else for (const m of qualifiedNameErrors(f)) errs.push(fieldErrors.invalid(index(field, i), f, m));
  });
}

function validateOwnerReferences(refs: unknown, errs: FieldError[]): void {
  const field = 'metadata.ownerReferences';
  if (refs === undefined || refs === null) return;
  if (!Array.isArray(refs)) {
    errs.push(fieldErrors.typeInvalid(field, refs, 'must be a list of owner references'));
    return;
  }
  let controllers = 0;
  refs.forEach((r, i) => {
    const at = index(field, i);
    if (!isPlainObject(r)) {
      errs.push(fieldErrors.typeInvalid(at, r, 'must be an object'));
      return;
    }
    for (const name of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof r[name] !== 'string' || r[name] === '')
        errs.push(fieldErrors.required(child(at, name), `${name} must not be empty`));
    }
    if (r.controller === true) controllers++;
  });
  if (controllers > 1)
    errs.push(fieldErrors.invalid(field, refs, 'Only one reference can have Controller set to true'));
}

/** path.ValidatePathSegmentName: the names of RBAC objects (e.g. "kubeadm:get-nodes"). */
export function pathSegmentNameErrors(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  return ['/', '%'].filter((c) => v.includes(c)).map((c) => `may not contain '${c}'`);
}

function validateName(
  v: unknown,
  field: string,
  check: (s: string) => string[],
  errs: FieldError[],
  prefix = false,
): void {
  if (v === undefined || v === null || v === '') return;
  if (typeof v !== 'string') {
    errs.push(fieldErrors.typeInvalid(field, v, 'must be a string'));
    return;
  }
  // generateName is a prefix: a trailing '-' is fine because random characters follow (kube's maskTrailingDash).
  const checked = prefix && v.length > 1 && v.endsWith('-') ? `${v.slice(0, -2)}a` : v;
  for (const m of check(checked)) errs.push(fieldErrors.invalid(field, v, m));
}

/**
 * Validates ObjectMeta: name and generateName (DNS-1123 subdomain, or a path segment for RBAC kinds), namespace (DNS-1123 label; required when
 * namespaced, forbidden otherwise), label keys/values, annotation keys and total size, finalizers, ownerReferences.
 * A missing name is not reported here (the server decides between name and generateName).
 */
export function validateObjectMeta(
  meta: unknown,
  namespaced: boolean,
  names: 'dns1123Subdomain' | 'pathSegment' = 'dns1123Subdomain',
): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPlainObject(meta)) {
    errs.push(fieldErrors.typeInvalid('metadata', meta ?? null, 'must be an object'));
    return errs;
  }
  const nameCheck = names === 'pathSegment' ? pathSegmentNameErrors : dns1123SubdomainErrors;
  validateName(meta.name, 'metadata.name', nameCheck, errs);
  validateName(meta.generateName, 'metadata.generateName', nameCheck, errs, true);
  const ns = meta.namespace;
  if (namespaced) {
    if (ns === undefined || ns === null || ns === '') errs.push(fieldErrors.required('metadata.namespace'));
    else validateName(ns, 'metadata.namespace', dns1123LabelErrors, errs);
  } else if (ns !== undefined && ns !== null && ns !== '') {
    errs.push(fieldErrors.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  validateLabels(meta.labels, errs);
  validateAnnotations(meta.annotations, errs);
  validateFinalizers(meta.finalizers, errs);
  validateOwnerReferences(meta.ownerReferences, errs);
  return errs;
}
