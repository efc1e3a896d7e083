// Objects several suites need: a minimal infrastructure machine kind and ExtensionConfigs for test extension servers.
import { CONTRACT_VERSION_LABEL_V1BETA2, type ExtensionConfig } from '@capi/api';

export const TEST_INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const TEST_INFRA_API_VERSION = `${TEST_INFRA_GROUP}/v1beta2`;
export const TEST_MACHINE_KIND = 'TestMachine';

/**
 * CRD of a minimal infrastructure kind (e.g. `TestMachine`, `TestMachineTemplate`) following the v1beta2 contract
 * (contract label; spec and status free-form so tests set spec.providerID / status.initialization themselves). A fresh
 * object per call.
 */
export function testInfraCrd(kind: string) {
  const singular = kind.toLowerCase();
  const plural = `${singular}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${TEST_INFRA_GROUP}`, labels: { [CONTRACT_VERSION_LABEL_V1BETA2]: 'v1beta2' } },
    spec: {
      group: TEST_INFRA_GROUP,
      scope: 'Namespaced',
      names: { kind, plural, singular, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1beta2',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/** CRD of `TestMachine` (testInfraCrd). */
export const testMachineCrd = () => testInfraCrd(TEST_MACHINE_KIND);

export interface ExtensionEndpoint {
  url: string;
  caBundle: string;
}

/** An (undiscovered) ExtensionConfig `name` pointing at `endpoint`; hand it to discoverExtension. */
export function extensionConfigFor(
  name: string,
  endpoint: ExtensionEndpoint,
  opts: { resourceVersion?: string } = {},
): ExtensionConfig {
  return {
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name, ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}) },
    spec: { clientConfig: { url: endpoint.url, caBundle: endpoint.caBundle } },
  };
}
