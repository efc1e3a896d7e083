// Validation of a value against a structural OpenAPI v3 schema, following kube-openapi's validator as
// wrapped by apiextensions-apiserver (error types and wording). CEL `x-kubernetes-validations` are not evaluated.
import { satisfiesFormat } from './formats';
import { FieldError, OpenApiSchema, child, fieldErrors, index, isPlainObject } from './types';
import { canonicalJson, jsonEqual } from '@capi/apimachinery';
import { additionalSchemaOf, jsonTypeOf, propertiesOf } from './values';

const KNOWN_TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const regexCache = new Map<string, RegExp | null>();

function compile(pattern: string): RegExp | null {
  if (!regexCache.has(pattern)) {
    let re: RegExp | null = null;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null; // rejected when the CRD is registered; do not fail objects on it
    }
    regexCache.set(pattern, re);
  }
  return regexCache.get(pattern)!;
}

/** "spec.replicas in body" — the subject kube-openapi puts in front of each message. */
const inBody = (path: string) => (path ? `${path} in body` : 'in body');

function typeMatches(type: string, actual: string): boolean {
  return type === actual || (type === 'number' && actual === 'integer');
}

/** Validates `obj` against `schema`; returns every failure with a kube-style field path. */
export function validate(obj: unknown, schema: OpenApiSchema): FieldError[] {
  const errs: FieldError[] = [];
  validateNode(obj, schema, '', errs);
  return dedupe(errs);
}

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.type}\u0000${e.field}\u0000${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function validateNode(value: unknown, s: OpenApiSchema, path: string, errs: FieldError[]): void {
  if (!isPlainObject(s)) return;
  if (value === null || value === undefined) {
    if (s.nullable === true) return;
    if (typeof s.type === 'string')
      errs.push(fieldErrors.typeInvalid(path, null, `${inBody(path)} must be of type ${s.type}: "null"`));
    else if (s['x-kubernetes-int-or-string'] === true)
      errs.push(fieldErrors.typeInvalid(path, null, `${inBody(path)} must be of type integer,string: "null"`));
    return;
  }
  if (!checkType(value, s, path, errs)) return;
  if (s.enum !== undefined && Array.isArray(s.enum) && !s.enum.some((e: unknown) => jsonEqual(e, value))) {
    errs.push(fieldErrors.notSupported(path, value, s.enum));
  }
  if (typeof s.format === 'string' && !satisfiesFormat(s.format, value)) {
    errs.push(
      fieldErrors.typeInvalid(
        path,
        value,
        `${inBody(path)} must be of type ${s.format}: ${JSON.stringify(String(value))}`,
      ),
    );
  }
  if (typeof value === 'number') checkNumber(value, s, path, errs);
  else if (typeof value === 'string') checkString(value, s, path, errs);
  else if (Array.isArray(value)) checkArray(value, s, path, errs);
  else if (isPlainObject(value)) checkObject(value, s, path, errs);
  checkJunctors(value, s, path, errs);
}

/** False when the value has the wrong type (then the node's other checks are meaningless and skipped). */
function checkType(value: unknown, s: OpenApiSchema, path: string, errs: FieldError[]): boolean {
  const actual = jsonTypeOf(value);
  if (s['x-kubernetes-int-or-string'] === true) {
    if (actual === 'integer' || actual === 'string') return true;
    errs.push(
      fieldErrors.typeInvalid(
        path,
        actual,
        `${inBody(path)} must be of type integer,string: ${JSON.stringify(actual)}`,
      ),
    );
    return false;
  }
  const type = s.type;
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) return true; // untyped: preserve-unknown-fields or a value-validation branch
  if (typeMatches(type, actual)) return true;
  // kube-openapi's InvalidType carries the value's type name, which field.TypeInvalid quotes.
  errs.push(
    fieldErrors.typeInvalid(path, actual, `${inBody(path)} must be of type ${type}: ${JSON.stringify(actual)}`),
  );
  return false;
}

function checkNumber(v: number, s: OpenApiSchema, path: string, errs: FieldError[]): void {
  if (typeof s.minimum === 'number') {
    if (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum) {
      const rel = s.exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
      errs.push(fieldErrors.invalid(path, v, `${inBody(path)} should be ${rel} ${s.minimum}`));
    }
  }
  if (typeof s.maximum === 'number') {
    if (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum) {
      const rel = s.exclusiveMaximum === true ? 'less than' : 'less than or equal to';
      errs.push(fieldErrors.invalid(path, v, `${inBody(path)} should be ${rel} ${s.maximum}`));
    }
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9)
      errs.push(fieldErrors.invalid(path, v, `${inBody(path)} should be a multiple of ${s.multipleOf}`));
  }
}

function checkString(v: string, s: OpenApiSchema, path: string, errs: FieldError[]): void {
  const length = [...v].length; // characters (code points), as kube-openapi counts runes
  if (typeof s.maxLength === 'number' && length > s.maxLength) errs.push(fieldErrors.tooLong(path, s.maxLength));
  if (typeof s.minLength === 'number' && length < s.minLength) {
    errs.push(fieldErrors.invalid(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  }
  if (typeof s.pattern === 'string') {
    const re = compile(s.pattern);
    if (re && !re.test(v)) errs.push(fieldErrors.invalid(path, v, `${inBody(path)} should match '${s.pattern}'`));
  }
}

function checkArray(v: unknown[], s: OpenApiSchema, path: string, errs: FieldError[]): void {
  if (typeof s.maxItems === 'number' && v.length > s.maxItems)
    errs.push(fieldErrors.tooMany(path, v.length, s.maxItems));
  if (typeof s.minItems === 'number' && v.length < s.minItems) {
    errs.push(fieldErrors.invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  }
  if (s.uniqueItems === true) checkSet(v, path, errs);
  if (isPlainObject(s.items)) v.forEach((item, i) => validateNode(item, s.items, index(path, i), errs));
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') checkSet(v, path, errs);
  else if (listType === 'map') checkListMap(v, s['x-kubernetes-list-map-keys'], path, errs);
}

/** Like kube's listtype validation: each repeated value is reported once, at its first repetition. */
function reportRepeats(values: unknown[], path: string, errs: FieldError[], shown: (i: number) => unknown): void {
  const counts = new Map<string, number>();
  values.forEach((item, i) => {
    if (item === undefined) return;
    const k = canonicalJson(item);
    const n = counts.get(k) ?? 0;
    if (n === 1) errs.push(fieldErrors.duplicate(index(path, i), shown(i)));
    counts.set(k, n + 1);
  });
}

function checkSet(v: unknown[], path: string, errs: FieldError[]): void {
  reportRepeats(v, path, errs, (i) => v[i]);
}

function checkListMap(v: unknown[], keys: unknown, path: string, errs: FieldError[]): void {
  const keyNames = Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
  if (keyNames.length === 0) return;
  const bad = v.findIndex((item) => item !== null && !isPlainObject(item));
  if (bad >= 0) {
    errs.push(fieldErrors.invalid(index(path, bad), v[bad], 'must be an object for an array of list-type map'));
    return;
  }
  const keyValues = v.map((item, i) => {
    if (!isPlainObject(item)) return undefined; // null items carry no key
    for (const k of keyNames) if (item[k] === undefined) errs.push(fieldErrors.required(child(index(path, i), k)));
    return Object.fromEntries(keyNames.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));
  });
  reportRepeats(keyValues, path, errs, (i) => keyValues[i]);
}

function checkObject(v: Record<string, unknown>, s: OpenApiSchema, path: string, errs: FieldError[]): void {
  const count = Object.keys(v).length;
  if (typeof s.maxProperties === 'number' && count > s.maxProperties)
    errs.push(fieldErrors.tooMany(path, count, s.maxProperties));
  if (typeof s.minProperties === 'number' && count < s.minProperties) {
    errs.push(fieldErrors.invalid(path, count, `${inBody(path)} should have at least ${s.minProperties} properties`));
  }
  if (Array.isArray(s.required)) {
    for (const name of s.required)
      if (typeof name === 'string' && v[name] === undefined) errs.push(fieldErrors.required(child(path, name)));
  }
  const props = propertiesOf(s);
  const extra = additionalSchemaOf(s);
  for (const [name, fieldValue] of Object.entries(v)) {
    if (fieldValue === undefined) continue;
    const ps = props[name];
    if (ps) validateNode(fieldValue, ps, child(path, name), errs);
    else if (extra) validateNode(fieldValue, extra, child(path, name), errs);
    else if (s.additionalProperties === false && !s['x-kubernetes-preserve-unknown-fields']) {
      errs.push(fieldErrors.forbidden(child(path, name), `${inBody(child(path, name))} is a forbidden property`));
    }
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    for (const name of ['apiVersion', 'kind']) {
      if (typeof v[name] !== 'string' || v[name] === '')
        errs.push(fieldErrors.required(child(path, name), 'must not be empty'));
    }
  }
}

/** allOf/anyOf/oneOf/not: value validations evaluated at the same path. */
function checkJunctors(value: unknown, s: OpenApiSchema, path: string, errs: FieldError[]): void {
  const sub = (branch: OpenApiSchema) => {
    const out: FieldError[] = [];
    validateNode(value, branch, path, out);
    return out;
  };
  if (Array.isArray(s.allOf)) for (const b of s.allOf) errs.push(...sub(b));
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) {
    const results = s.anyOf.map(sub);
    if (!results.some((r: FieldError[]) => r.length === 0)) {
      errs.push(fieldErrors.invalid(path, value, `${inBody(path)} must validate at least one schema (anyOf)`));
      errs.push(...results.flat());
    }
  }
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0) {
    const results = s.oneOf.map(sub);
    const passing = results.filter((r: FieldError[]) => r.length === 0).length;
    if (passing !== 1) {
      errs.push(fieldErrors.invalid(path, value, `${inBody(path)} must validate one and only one schema (oneOf)`));
      if (passing === 0) errs.push(...results.flat());
    }
  }
  if (isPlainObject(s.not) && sub(s.not).length === 0) {
    errs.push(fieldErrors.invalid(path, value, `${inBody(path)} must not validate the schema (not)`));
  }
}
