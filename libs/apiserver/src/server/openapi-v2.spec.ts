import { Registry } from './registry';
import { acceptsOpenApiV2Json, openapiV2Document, toSwaggerSchema } from './openapi-v2';

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

describe('acceptsOpenApiV2Json', () => {
  it.each([
    [undefined, true],
    ['application/json', true],
    ['*/*', true],
    ['application/json;q=0.9, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', true],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', false],
    ['application/json;q=0', false],
    ['application/yaml', false],
  ])('%s → %s', (accept, ok) => expect(acceptsOpenApiV2Json(accept)).toBe(ok));
});
