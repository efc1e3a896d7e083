// A trimmed CAPI-style CRD schema used by the specs (shape of MachineDeployment/Machine openAPIV3Schema).
import { OpenApiSchema } from './types';

export const machineDeploymentSchema: OpenApiSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['clusterName', 'template'],
      properties: {
        clusterName: { type: 'string', minLength: 1, maxLength: 63 },
        replicas: { type: 'integer', format: 'int32', minimum: 0 },
        paused: { type: 'boolean', default: false },
        strategy: {
          type: 'object',
          default: { type: 'RollingUpdate' },
          properties: {
            type: { type: 'string', enum: ['RollingUpdate', 'OnDelete', 'InPlace'], default: 'RollingUpdate' },
            rollingUpdate: {
              type: 'object',
              properties: {
                maxSurge: {
                  'x-kubernetes-int-or-string': true,
                  anyOf: [{ type: 'integer' }, { type: 'string' }],
                  default: 1,
                },
                maxUnavailable: {
                  'x-kubernetes-int-or-string': true,
                  anyOf: [{ type: 'integer' }, { type: 'string' }],
                },
              },
            },
          },
        },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
        },
        template: {
          type: 'object',
          properties: {
            metadata: {
              type: 'object',
              properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
            },
            spec: {
              type: 'object',
              required: ['clusterName'],
              properties: {
                clusterName: { type: 'string' },
                version: { type: 'string', pattern: '^v\\d+\\.\\d+\\.\\d+$' },
                bootstrap: {
                  type: 'object',
                  properties: {
                    configRef: {
                      type: 'object',
                      'x-kubernetes-map-type': 'atomic',
                      properties: {
                        apiVersion: { type: 'string' },
                        kind: { type: 'string' },
                        name: { type: 'string' },
                      },
                    },
                    dataSecretName: { type: 'string', nullable: true },
                  },
                },
                nodeDrainTimeout: { type: 'string' },
                readinessGates: {
                  type: 'array',
                  maxItems: 3,
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['conditionType'],
                  items: {
                    type: 'object',
                    required: ['conditionType'],
                    properties: {
                      conditionType: { type: 'string', maxLength: 316 },
                      polarity: { type: 'string', default: 'Positive' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        phase: { type: 'string' },
        replicas: { type: 'integer', format: 'int32' },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['type', 'status'],
            properties: {
              type: { type: 'string' },
              status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
              lastTransitionTime: { type: 'string', format: 'date-time' },
              reason: { type: 'string' },
            },
          },
        },
        observedGeneration: { type: 'integer', format: 'int64' },
      },
    },
  },
};

export const validMachineDeployment = () => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineDeployment',
  metadata: { name: 'md-0', namespace: 'default' },
  spec: {
    clusterName: 'c1',
    replicas: 3,
    template: { spec: { clusterName: 'c1', version: 'v1.31.0' } },
  },
});
