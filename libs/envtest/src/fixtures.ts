// Objects several suites need: a minimal infrastructure machine kind and ExtensionConfigs for test extension servers.
import { CONTRACT_VERSION_LABEL_V1BETA2, type ExtensionConfig } from '@capi/api';

export const TEST_INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const TEST_INFRA_API_VERSION = `${TEST_INFRA_GROUP}/v1beta2`;
export const TEST_MACHINE_KIND = 'TestMachine';

/**
 * CRD of `TestMachine`, a minimal infrastructure machine following the v1beta2 contract (contract label; spec and
 * status free-form so tests set spec.providerID / status.initialization themselves). A fresh object per call.
 */
export function testMachineCrd() {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `testmachines.${TEST_INFRA_GROUP}`, labels: { [CONTRACT_VERSION_LABEL_V1BETA2]: 'v1beta2' } },
    spec: {
      group: TEST_INFRA_GROUP,
      scope: 'Namespaced',
      names: { kind: TEST_MACHINE_KIND, plural: 'testmachines', singular: 'testmachine', listKind: 'TestMachineList' },
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

/** Where a test extension server listens, as createExtensionServer / startInPlaceUpdater report it. */
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
