// /openapi/v2 in protobuf (application/com.github.proto-openapi.spec.v2@v1.0+protobuf): the gnostic openapi.v2
// Document kube-apiserver sends (k8s.io/kube-openapi/pkg/handler) and client-go's DiscoveryClient.OpenAPISchema() asks
// for, without a JSON fallback. Only the messages a Swagger 2.0 document of this server uses are declared, with the
// field numbers of github.com/google/gnostic-models openapiv2/OpenAPIv2.proto; values that are free JSON (default,
// enum, example, vendor extensions) travel as gnostic's Any.yaml text (JSON is YAML).
import * as protobuf from 'protobufjs';

type Json = Record<string, any>;
type Fields = Record<string, [id: number, type: string, repeated?: 'repeated']>;

const message = (fields: Fields, oneof?: string[]) => ({
  ...(oneof ? { oneofs: { oneof: { oneof } } } : {}),
  fields: Object.fromEntries(
    Object.entries(fields).map(([name, [id, type, rule]]) => [name, { id, type, ...(rule ? { rule } : {}) }]),
  ),
});

const SCHEMA: Fields = {
  ref: [1, 'string'],
  format: [2, 'string'],
  title: [3, 'string'],
  description: [4, 'string'],
  default: [5, 'Any'],
  multipleOf: [6, 'double'],
  maximum: [7, 'double'],
  exclusiveMaximum: [8, 'bool'],
  minimum: [9, 'double'],
  exclusiveMinimum: [10, 'bool'],
  maxLength: [11, 'int64'],
  minLength: [12, 'int64'],
  pattern: [13, 'string'],
  maxItems: [14, 'int64'],
  minItems: [15, 'int64'],
  uniqueItems: [16, 'bool'],
  maxProperties: [17, 'int64'],
  minProperties: [18, 'int64'],
  required: [19, 'string', 'repeated'],
  enum: [20, 'Any', 'repeated'],
  additionalProperties: [21, 'AdditionalPropertiesItem'],
  type: [22, 'TypeItem'],
  items: [23, 'ItemsItem'],
  allOf: [24, 'Schema', 'repeated'],
  properties: [25, 'Properties'],
  discriminator: [26, 'string'],
  readOnly: [27, 'bool'],
  example: [30, 'Any'],
  vendorExtension: [31, 'NamedAny', 'repeated'],
};

// Query and path parameters share these fields (QueryParameterSubSchema numbers; the path one is shifted, below).
const queryParameter: Fields = {
  required: [1, 'bool'],
  in: [2, 'string'],
  description: [3, 'string'],
  name: [4, 'string'],
  type: [6, 'string'],
  format: [7, 'string'],
  uniqueItems: [20, 'bool'],
};
const pathParameter: Fields = {
  ...queryParameter,
  type: [5, 'string'],
  format: [6, 'string'],
  uniqueItems: [19, 'bool'],
};
const operationsOfPathItem = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 } as const;

const root = protobuf.Root.fromJSON({
  nested: {
    openapi: {
      nested: {
        v2: {
          nested: {
            Any: message({ yaml: [2, 'string'] }),
            NamedAny: message({ name: [1, 'string'], value: [2, 'Any'] }),
            TypeItem: message({ value: [1, 'string', 'repeated'] }),
            ItemsItem: message({ schema: [1, 'Schema', 'repeated'] }),
            NamedSchema: message({ name: [1, 'string'], value: [2, 'Schema'] }),
            Properties: message({ additionalProperties: [1, 'NamedSchema', 'repeated'] }),
            Definitions: message({ additionalProperties: [1, 'NamedSchema', 'repeated'] }),
            AdditionalPropertiesItem: message({ schema: [1, 'Schema'], boolean: [2, 'bool'] }, ['schema', 'boolean']),
            Schema: message(SCHEMA),
            Info: message({ title: [1, 'string'], version: [2, 'string'], description: [3, 'string'] }),
            JsonReference: message({ ref: [1, 'string'], description: [2, 'string'] }),
            BodyParameter: message({
              description: [1, 'string'],
              name: [2, 'string'],
              in: [3, 'string'],
              required: [4, 'bool'],
              schema: [5, 'Schema'],
            }),
            QueryParameterSubSchema: message(queryParameter),
            PathParameterSubSchema: message(pathParameter),
            NonBodyParameter: message(
              {
                queryParameterSubSchema: [3, 'QueryParameterSubSchema'],
                pathParameterSubSchema: [4, 'PathParameterSubSchema'],
              },
              ['queryParameterSubSchema', 'pathParameterSubSchema'],
            ),
            Parameter: message({ bodyParameter: [1, 'BodyParameter'], nonBodyParameter: [2, 'NonBodyParameter'] }, [
              'bodyParameter',
              'nonBodyParameter',
            ]),
            ParametersItem: message({ parameter: [1, 'Parameter'], jsonReference: [2, 'JsonReference'] }, [
              'parameter',
              'jsonReference',
            ]),
            SchemaItem: message({ schema: [1, 'Schema'] }, ['schema']),
            Response: message({ description: [1, 'string'], schema: [2, 'SchemaItem'] }),
            ResponseValue: message({ response: [1, 'Response'], jsonReference: [2, 'JsonReference'] }, [
              'response',
              'jsonReference',
            ]),
            NamedResponseValue: message({ name: [1, 'string'], value: [2, 'ResponseValue'] }),
            Responses: message({ responseCode: [1, 'NamedResponseValue', 'repeated'] }),
            Operation: message({
              tags: [1, 'string', 'repeated'],
              summary: [2, 'string'],
              description: [3, 'string'],
              operationId: [5, 'string'],
              produces: [6, 'string', 'repeated'],
              consumes: [7, 'string', 'repeated'],
              parameters: [8, 'ParametersItem', 'repeated'],
              responses: [9, 'Responses'],
              schemes: [10, 'string', 'repeated'],
              deprecated: [11, 'bool'],
              vendorExtension: [13, 'NamedAny', 'repeated'],
            }),
            PathItem: message({
              ...Object.fromEntries(Object.entries(operationsOfPathItem).map(([k, id]) => [k, [id, 'Operation']])),
              parameters: [9, 'ParametersItem', 'repeated'],
              vendorExtension: [10, 'NamedAny', 'repeated'],
            }),
            NamedPathItem: message({ name: [1, 'string'], value: [2, 'PathItem'] }),
            Paths: message({ path: [2, 'NamedPathItem', 'repeated'] }),
            Document: message({
              swagger: [1, 'string'],
              info: [2, 'Info'],
              paths: [8, 'Paths'],
              definitions: [9, 'Definitions'],
              vendorExtension: [16, 'NamedAny', 'repeated'],
            }),
          },
        },
      },
    },
  },
});
const Document = root.lookupType('openapi.v2.Document');

/** gnostic keeps free-form values as their YAML text. */
const any = (v: unknown) => ({ yaml: JSON.stringify(v) });
const extensions = (o: Json) =>
  Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: any(v) }));
const named = <T>(o: Json | undefined, f: (v: any) => T) =>
  Object.entries(o ?? {}).map(([name, v]) => ({ name, value: f(v) }));

const COPIED = Object.keys(SCHEMA).filter((k) => !['ref', 'default', 'enum', 'vendorExtension'].includes(k));

function schema(s: Json): Json {
  const out: Json = {};
  for (const k of COPIED) {
    const v = s[k];
    if (v === undefined) continue;
    if (k === 'type') out.type = { value: Array.isArray(v) ? v : [v] };
    else if (k === 'items') out.items = { schema: (Array.isArray(v) ? v : [v]).map(schema) };
    else if (k === 'allOf') out.allOf = v.map(schema);
    else if (k === 'properties') out.properties = { additionalProperties: named(v, schema) };
    else if (k === 'additionalProperties')
      out.additionalProperties = typeof v === 'boolean' ? { boolean: v } : { schema: schema(v) };
    else if (k === 'example') out.example = any(v);
    else out[k] = v;
  }
  if (s.$ref !== undefined) out.ref = s.$ref;
  if (s.default !== undefined) out.default = any(s.default);
  if (Array.isArray(s.enum)) out.enum = s.enum.map(any);
  const ext = extensions(s);
  if (ext.length) out.vendorExtension = ext;
  return out;
}

function parameter(p: Json): Json {
  if (p.in === 'body') return { parameter: { bodyParameter: { ...p, schema: schema(p.schema ?? {}) } } };
  const sub = p.in === 'path' ? 'pathParameterSubSchema' : 'queryParameterSubSchema';
  return { parameter: { nonBodyParameter: { [sub]: p } } };
}

function operation(o: Json): Json {
  const responses = named(o.responses, (r: Json) => ({
    response: { description: r.description, ...(r.schema ? { schema: { schema: schema(r.schema) } } : {}) },
  }));
  return {
    ...o,
    parameters: (o.parameters ?? []).map(parameter),
    responses: { responseCode: responses },
    vendorExtension: extensions(o),
  };
}

function pathItem(item: Json): Json {
  const out: Json = { parameters: (item.parameters ?? []).map(parameter), vendorExtension: extensions(item) };
  for (const k of Object.keys(operationsOfPathItem)) if (item[k]) out[k] = operation(item[k]);
  return out;
}

/** The gnostic protobuf encoding of a Swagger 2.0 JSON document. */
export function encodeOpenApiV2(doc: Json): Buffer {
  const msg = Document.fromObject({
    swagger: doc.swagger,
    info: doc.info,
    paths: { path: named(doc.paths, pathItem) },
    definitions: { additionalProperties: named(doc.definitions, schema) },
    vendorExtension: extensions(doc),
  });
  return Buffer.from(Document.encode(msg).finish());
}

/** The decoded message, as plain data (for tests and debugging). */
export function decodeOpenApiV2(data: Uint8Array): Json {
  return Document.toObject(Document.decode(data), { longs: Number, defaults: false, arrays: false, oneofs: false });
}
