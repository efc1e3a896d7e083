import { Registry } from './registry';
import { openApiV2Format, openapiV2Document, toSwaggerSchema } from './openapi-v2';
import { decodeOpenApiV2, encodeOpenApiV2 } from './openapi-v2-proto';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget.',
            properties: {
              spec: {
                type: 'object',
                description: 'Desired state.',
                properties: {
                  size: { type: 'integer', description: 'How big.' },
                  surge: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('openapiV2Document', () => {
  const registry = new Registry();
  registry.setCrd(widgetCrd);
  const doc = openapiV2Document(registry, 'v1.36.3');

  it('is a Swagger 2.0 document with kube-openapi definition names and GVK extensions', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: 'Kubernetes', version: 'v1.36.3' });
    const widget = doc.definitions['com.example.v1.Widget'];
    expect(widget['x-kubernetes-group-version-kind']).toEqual([
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ]);
    expect(widget.properties.spec.description).toBe('Desired state.');
    expect(widget.properties.spec.properties.size).toEqual({ type: 'integer', description: 'How big.' });
    // Built-in kinds are there too, under io.k8s.api.<group>.
    expect(doc.definitions['io.k8s.api.core.v1.ServiceAccount']['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'ServiceAccount' },
    ]);
    expect(doc.definitions['com.example.v1.WidgetList'].properties.items.items).toEqual({
      $ref: '#/definitions/com.example.v1.Widget',
    });
  });

  it('lists the paths of each resource with operations referring to #/definitions', () => {
    const base = '/apis/example.com/v1/namespaces/{namespace}/widgets';
    expect(Object.keys(doc.paths).filter((p) => p.startsWith(base))).toEqual([
      base,
      `${base}/{name}`,
      `${base}/{name}/status`,
    ]);
    expect(Object.keys(doc.paths[base]).sort()).toEqual(['get', 'parameters', 'post']);
    expect(Object.keys(doc.paths[`${base}/{name}`]).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
    const get = doc.paths[`${base}/{name}`].get;
    expect(get['x-kubernetes-action']).toBe('get');
    expect(get['x-kubernetes-group-version-kind']).toEqual({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(get.responses['200'].schema).toEqual({ $ref: '#/definitions/com.example.v1.Widget' });
    expect(doc.paths[base].get.responses['200'].schema).toEqual({ $ref: '#/definitions/com.example.v1.WidgetList' });
    expect(doc.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}'].get.operationId).toBe(
      'getServiceAccount',
    );
    // No v3 leftovers anywhere.
    expect(JSON.stringify(doc)).not.toContain('#/components/schemas/');
    expect(JSON.stringify(doc)).not.toContain('"anyOf"');
  });
});

describe('toSwaggerSchema (apiextensions-apiserver pkg/controller/openapi/v2/conversion.go)', () => {
  it('drops what v2 cannot express and rewrites v3 references', () => {
    expect(
      toSwaggerSchema({
        type: 'object',
        properties: {
          ios: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          n: { type: 'object', nullable: true, properties: { a: { type: 'string' } }, description: 'd' },
          r: { $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' },
          l: { type: 'array', items: { type: 'string', oneOf: [{ format: 'x' }] } },
          m: { type: 'object', additionalProperties: { type: 'string', not: { enum: ['x'] } } },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        ios: { 'x-kubernetes-int-or-string': true },
        n: { description: 'd' },
        r: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' },
        l: { type: 'array', items: { type: 'string' } },
        m: { type: 'object', additionalProperties: { type: 'string' } },
      },
    });
  });
});

describe('openApiV2Format (k8s.io/kube-openapi/pkg/handler)', () => {
  const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
  it.each([
    [undefined, 'json'],
    ['application/json', 'json'],
    ['*/*', 'json'],
    [PB, 'protobuf'],
    [`application/json;q=0.9, ${PB}`, 'protobuf'],
    [`${PB}, application/json`, 'protobuf'],
    [`application/json, ${PB}`, 'json'],
    ['application/json;q=0', undefined],
    ['application/yaml', undefined],
  ])('%s → %s', (accept, format) => expect(openApiV2Format(accept)).toBe(format));
});

describe('encodeOpenApiV2 (gnostic openapi.v2.Document)', () => {
  const registry = new Registry();
  registry.setCrd(widgetCrd);
  const doc = openapiV2Document(registry, 'v1.36.3');
  const pb = decodeOpenApiV2(encodeOpenApiV2(doc));
  const definition = (name: string) => pb.definitions.additionalProperties.find((d: any) => d.name === name).value;

  it('carries the definitions: type, description, properties, $ref and GVK as vendor extension YAML', () => {
    expect(pb.swagger).toBe('2.0');
    expect(pb.info).toEqual({ title: 'Kubernetes', version: 'v1.36.3' });
    const widget = definition('com.example.v1.Widget');
    expect(widget.description).toBe('A widget.');
    expect(widget.type).toEqual({ value: ['object'] });
    expect(widget.vendorExtension).toEqual([
      {
        name: 'x-kubernetes-group-version-kind',
        value: { yaml: '[{"group":"example.com","version":"v1","kind":"Widget"}]' },
      },
    ]);
    const spec = widget.properties.additionalProperties.find((p: any) => p.name === 'spec').value;
    expect(spec.description).toBe('Desired state.');
    expect(spec.properties.additionalProperties).toEqual([
      { name: 'size', value: { type: { value: ['integer'] }, description: 'How big.' } },
      { name: 'surge', value: { vendorExtension: [{ name: 'x-kubernetes-int-or-string', value: { yaml: 'true' } }] } },
    ]);
    expect(definition('com.example.v1.WidgetList').properties.additionalProperties[1].value.items).toEqual({
      schema: [{ ref: '#/definitions/com.example.v1.Widget' }],
    });
  });

  it('carries the paths: operations, query/path/body parameters and responses', () => {
    const item = pb.paths.path.find(
      (p: any) => p.name === '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}',
    ).value;
    expect(item.get.operationId).toBe('getWidget');
    expect(item.get.responses.responseCode).toEqual([
      {
        name: '200',
        value: { response: { description: 'OK', schema: { schema: { ref: '#/definitions/com.example.v1.Widget' } } } },
      },
      { name: '401', value: { response: { description: 'Unauthorized' } } },
    ]);
    expect(item.parameters[0].parameter.nonBodyParameter.pathParameterSubSchema).toMatchObject({
      name: 'name',
      in: 'path',
      required: true,
      type: 'string',
    });
    expect(item.put.parameters[0].parameter.bodyParameter).toMatchObject({ name: 'body', in: 'body', required: true });
    expect(item.put.parameters[1].parameter.nonBodyParameter.queryParameterSubSchema).toMatchObject({ name: 'dryRun' });
    expect(item.get.vendorExtension.map((e: any) => e.name)).toEqual([
      'x-kubernetes-action',
      'x-kubernetes-group-version-kind',
    ]);
  });
});
