// Structural-schema checks for a CRD's openAPIV3Schema (apiextensions-apiserver schema/validation.go and
// apis/apiextensions/validation): enough to reject broken CRDs before they are served. Field paths are
// relative to openAPIV3Schema, e.g. "properties[spec].properties[replicas].type".
import { FieldError, OpenApiSchema, child, fieldErrors, index, isPlainObject, key } from './types';
import { validate } from './validate';
import { pruneValueCopy } from './prune';
import { jsonEqual } from '@capi/apimachinery';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Generic keywords a value validation (inside allOf/anyOf/oneOf/not) must not set. */
const NESTED_FORBIDDEN = [
  'type',
  'default',
  'additionalProperties',
  'nullable',
  'description',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
];
const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/** Returns the structural-schema violations of a CRD version schema (empty when it can be served). */
export function validateCrdSchema(schema: OpenApiSchema): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPlainObject(schema)) return [fieldErrors.required('', 'must be a schema object')];
  if (schema.type !== 'object') errs.push(fieldErrors.invalid('type', schema.type ?? '', 'must be object at the root'));
  checkRootMetadata(schema, errs);
  checkNode(schema, '', errs, { root: true });
  return errs;
}

function checkRootMetadata(schema: OpenApiSchema, errs: FieldError[]): void {
  const meta = isPlainObject(schema.properties) ? schema.properties.metadata : undefined;
  if (!isPlainObject(meta)) return;
  const at = key('properties', 'metadata');
  for (const k of Object.keys(meta)) {
    if (!['type', 'properties', 'description'].includes(k))
      errs.push(fieldErrors.forbidden(child(at, k), 'must not be specified at the root metadata'));
  }
  if (isPlainObject(meta.properties)) {
    for (const k of Object.keys(meta.properties)) {
      if (k !== 'name' && k !== 'generateName')
        errs.push(
          fieldErrors.forbidden(
            key(child(at, 'properties'), k),
            'only name and generateName may be restricted in metadata',
          ),
        );
    }
  }
}

function checkNode(s: OpenApiSchema, path: string, errs: FieldError[], ctx: { root?: boolean } = {}): void {
  if (!isPlainObject(s)) {
    errs.push(fieldErrors.invalid(path, s, 'must be a schema object'));
    return;
  }
  const at = (k: string) => child(path, k);
  if (s.$ref !== undefined) errs.push(fieldErrors.forbidden(at('$ref'), '$ref is not supported'));
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s.type === undefined || s.type === '') {
    if (!intOrString && !preserve && !ctx.root) {
      errs.push(fieldErrors.required(at('type'), 'must not be empty for specified object fields'));
    }
  } else if (typeof s.type !== 'string' || !TYPES.includes(s.type)) {
    errs.push(fieldErrors.notSupported(at('type'), s.type, TYPES));
  } else if (intOrString) {
    errs.push(fieldErrors.forbidden(at('type'), 'must be empty if x-kubernetes-int-or-string is true'));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false)
    errs.push(fieldErrors.invalid(at('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (s.properties !== undefined) {
    if (!isPlainObject(s.properties))
      errs.push(fieldErrors.invalid(at('properties'), s.properties, 'must be a map of schemas'));
    else {
      if (s.type !== undefined && s.type !== 'object')
        errs.push(fieldErrors.forbidden(at('properties'), 'must only be used with type object'));
      for (const [name, ps] of Object.entries(s.properties))
        checkNode(ps as OpenApiSchema, key(at('properties'), name), errs);
    }
  }
  if (s.additionalProperties !== undefined) {
    if (s.additionalProperties === false)
      errs.push(fieldErrors.forbidden(at('additionalProperties'), 'must not be false (unknown fields are pruned)'));
    else if (s.properties !== undefined)
      errs.push(
        fieldErrors.forbidden(at('additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
    if (isPlainObject(s.additionalProperties)) checkNode(s.additionalProperties, at('additionalProperties'), errs);
  }
  if (s.type === 'array') {
    if (!isPlainObject(s.items)) errs.push(fieldErrors.required(at('items'), 'must be specified for type array'));
  } else if (s.items !== undefined && s.type !== undefined) {
    errs.push(fieldErrors.forbidden(at('items'), 'must only be used with type array'));
  }
  if (isPlainObject(s.items)) checkNode(s.items, at('items'), errs);
  else if (Array.isArray(s.items))
    errs.push(fieldErrors.forbidden(at('items'), 'items must be a schema object and not an array'));
  if (s.uniqueItems === true)
    errs.push(
      fieldErrors.forbidden(
        at('uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  if (s['x-kubernetes-embedded-resource'] === true && s.type !== 'object') {
    errs.push(
      fieldErrors.invalid(at('type'), s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'),
    );
  }
  checkPattern(s, path, errs);
  checkListType(s, path, errs);
  checkMapType(s, path, errs);
  checkDefault(s, path, errs);
  for (const j of JUNCTORS) {
    if (s[j] === undefined) continue;
    if (!Array.isArray(s[j])) errs.push(fieldErrors.invalid(at(j), s[j], 'must be a list of schemas'));
    else
      s[j].forEach((b: OpenApiSchema, i: number) =>
        checkValueValidation(b, index(at(j), i), errs, intOrString && j !== 'oneOf'),
      );
  }
  if (s.not !== undefined) checkValueValidation(s.not, at('not'), errs, false);
}

/** A branch of allOf/anyOf/oneOf/not may only restrict values, not change the structure. */
function checkValueValidation(s: OpenApiSchema, path: string, errs: FieldError[], intOrStringBranch: boolean): void {
  if (!isPlainObject(s)) {
    errs.push(fieldErrors.invalid(path, s, 'must be a schema object'));
    return;
  }
  for (const k of NESTED_FORBIDDEN) {
    if (s[k] === undefined) continue;
    // x-kubernetes-int-or-string is written as anyOf/allOf: [{type: integer}, {type: string}]
    if (k === 'type' && intOrStringBranch && (s.type === 'integer' || s.type === 'string')) continue;
    errs.push(fieldErrors.forbidden(child(path, k), 'must not be specified in a nested context'));
  }
  checkPattern(s, path, errs);
  if (isPlainObject(s.properties))
    for (const [n, ps] of Object.entries(s.properties))
      checkValueValidation(ps as OpenApiSchema, key(child(path, 'properties'), n), errs, false);
  if (isPlainObject(s.items)) checkValueValidation(s.items, child(path, 'items'), errs, false);
  // allOf: [{anyOf: [{type: integer}, {type: string}]}] is the second accepted int-or-string pattern
  for (const j of JUNCTORS) {
    if (Array.isArray(s[j]))
      s[j].forEach((b: OpenApiSchema, i: number) =>
        checkValueValidation(b, index(child(path, j), i), errs, intOrStringBranch && j !== 'oneOf'),
      );
  }
  if (s.not !== undefined) checkValueValidation(s.not, child(path, 'not'), errs, false);
}

function checkPattern(s: OpenApiSchema, path: string, errs: FieldError[]): void {
  if (s.pattern === undefined) return;
  try {
    if (typeof s.pattern !== 'string') throw new Error('not a string');
    new RegExp(s.pattern, 'u');
  } catch {
    errs.push(fieldErrors.invalid(child(path, 'pattern'), s.pattern, 'must be a valid regular expression'));
  }
}

function checkListType(s: OpenApiSchema, path: string, errs: FieldError[]): void {
  const lt = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (lt === undefined) {
    if (keys !== undefined)
      errs.push(
        fieldErrors.forbidden(
          child(path, 'x-kubernetes-list-map-keys'),
          'must be empty if x-kubernetes-list-type is not map',
        ),
      );
    return;
  }
  const at = child(path, 'x-kubernetes-list-type');
  if (!['atomic', 'set', 'map'].includes(lt)) {
    errs.push(fieldErrors.notSupported(at, lt, ['atomic', 'set', 'map']));
    return;
  }
  if (s.type !== 'array') errs.push(fieldErrors.invalid(at, lt, 'must only be used if type is array'));
  const items = isPlainObject(s.items) ? s.items : undefined;
  if (
    lt === 'set' &&
    items &&
    !SCALAR_TYPES.has(items.type) &&
    items['x-kubernetes-map-type'] !== 'atomic' &&
    !items['x-kubernetes-int-or-string']
  ) {
    errs.push(
      fieldErrors.invalid(
        child(path, 'items.type'),
        items.type ?? '',
        'must be a scalar type or an atomic object/array if x-kubernetes-list-type is set',
      ),
    );
  }
  if (lt !== 'map') {
    if (keys !== undefined)
      errs.push(
        fieldErrors.forbidden(
          child(path, 'x-kubernetes-list-map-keys'),
          'must be empty if x-kubernetes-list-type is not map',
        ),
      );
    return;
  }
  const keysAt = child(path, 'x-kubernetes-list-map-keys');
  if (!Array.isArray(keys) || keys.length === 0) {
    errs.push(fieldErrors.required(keysAt, 'must not be empty if x-kubernetes-list-type is map'));
    return;
  }
  if (!items || items.type !== 'object') {
    errs.push(
      fieldErrors.invalid(
        child(path, 'items.type'),
        items?.type ?? '',
        'must be object if x-kubernetes-list-type is map',
      ),
    );
    return;
  }
  const props = isPlainObject(items.properties) ? items.properties : {};
  const required: unknown[] = Array.isArray(items.required) ? items.required : [];
  keys.forEach((k: unknown, i: number) => {
    const p = typeof k === 'string' ? props[k] : undefined;
    if (!isPlainObject(p)) {
      errs.push(fieldErrors.invalid(index(keysAt, i), k, 'entries must all be names of item properties'));
      return;
    }
    if (!SCALAR_TYPES.has(p.type) && !p['x-kubernetes-int-or-string']) {
      errs.push(
        fieldErrors.invalid(
          child(key(child(path, 'items.properties'), k as string), 'type'),
          p.type ?? '',
          'must be a scalar type if used as a map key',
        ),
      );
    }
    if (!required.includes(k) && p.default === undefined) {
      errs.push(fieldErrors.required(index(keysAt, i), `list map key "${k}" must be required or have a default`));
    }
  });
}

function checkMapType(s: OpenApiSchema, path: string, errs: FieldError[]): void {
  const mt = s['x-kubernetes-map-type'];
  if (mt === undefined) return;
  const at = child(path, 'x-kubernetes-map-type');
  if (mt !== 'granular' && mt !== 'atomic') errs.push(fieldErrors.notSupported(at, mt, ['granular', 'atomic']));
  else if (s.type !== 'object') errs.push(fieldErrors.invalid(at, mt, 'must only be used if type is object'));
}

/** A default must validate against its own schema and must not carry fields that pruning would drop. */
function checkDefault(s: OpenApiSchema, path: string, errs: FieldError[]): void {
  if (s.default === undefined) return;
  const at = child(path, 'default');
  for (const e of validate(s.default, s)) errs.push({ ...e, field: e.field ? `${at}.${e.field}` : at });
  if (typeof s.default === 'object' && s.default !== null && !s['x-kubernetes-embedded-resource']) {
    if (!jsonEqual(pruneValueCopy(s.default, s), s.default)) {
      errs.push(fieldErrors.invalid(at, s.default, 'must not have unknown fields'));
    }
  }
}
