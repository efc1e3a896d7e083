// Shared fixtures for the merge specs (not exported from the lib).
import type { KubeObject } from '@capi/apimachinery';
import type { OpenApiSchema } from './types';

export const widgetSchema: OpenApiSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        image: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        params: { type: 'object', additionalProperties: { type: 'string' } },
        containers: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              image: { type: 'string' },
              ports: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
                items: {
                  type: 'object',
                  properties: {
                    containerPort: { type: 'integer' },
                    protocol: { type: 'string' },
                    name: { type: 'string' },
                  },
                },
              },
            },
          },
        },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: {
      type: 'object',
      properties: {
        observedGeneration: { type: 'integer' },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } },
          },
        },
      },
    },
  },
};

export function widget(
  spec: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
  status?: unknown,
): KubeObject {
  const obj: KubeObject = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', ...meta },
  };
  // An empty spec would be owned as a field of its own; leave it out so tests state only what they mean.
  if (Object.keys(spec).length > 0) obj.spec = spec;
  if (status !== undefined) obj.status = status;
  return obj;
}

export const T0 = '2026-01-01T00:00:00Z';
export const T1 = '2026-01-01T00:01:00Z';
export const T2 = '2026-01-01T00:02:00Z';

/** The fieldsV1 of one entry, found by manager and operation. */
export function fieldsOf(obj: KubeObject, manager: string, operation: 'Apply' | 'Update' = 'Apply'): unknown {
  return obj.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation)?.fieldsV1;
}

export function managersOf(obj: KubeObject): string[] {
  return (obj.metadata.managedFields ?? []).map(
    (e) => `${e.manager}/${e.operation}${e.subresource ? '/' + e.subresource : ''}`,
  );
}
