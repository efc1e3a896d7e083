import type { KubeObject } from '@capi/apimachinery';

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 0 },
                  color: { type: 'string', default: 'blue' },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
              status: {
                type: 'object',
                properties: {
                  phase: { type: 'string' },
                  ready: { type: 'boolean' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

export const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { kind: 'Gadget', plural: 'gadgets' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

export function widget(
  name: string,
  namespace: string,
  spec: Record<string, unknown> = { size: 1 },
  meta: Record<string, unknown> = {},
): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace, ...meta }, spec };
}

export function configMap(
  name: string,
  namespace: string,
  data: Record<string, string> = {},
  meta: Record<string, unknown> = {},
): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...meta }, data };
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastErr ? `: ${String(lastErr)}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
