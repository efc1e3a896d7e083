import type { KubeObject } from '@capi/apimachinery';
import { defaultCrdSpec } from './crds';

const crd = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gens.example.com' },
  spec,
});

describe('defaultCrdSpec (kube SetDefaults_CustomResourceDefinitionSpec)', () => {
  it('singular, listKind and conversion None when absent; what was sent is kept', () => {
    expect(defaultCrdSpec(crd({ group: 'example.com', names: { kind: 'Gen', plural: 'gens' } })).spec).toEqual({
      group: 'example.com',
      names: { kind: 'Gen', plural: 'gens', singular: 'gen', listKind: 'GenList' },
      conversion: { strategy: 'None' },
    });
    const sent = {
      names: { kind: 'Gen', plural: 'gens', singular: 'one', listKind: 'Many' },
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' } } },
    };
    expect(defaultCrdSpec(crd(sent)).spec).toEqual(sent);
  });

  it('a conversion webhook service gets port 443', () => {
    const out = defaultCrdSpec(
      crd({
        names: { kind: 'Gen' },
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'n' } } } },
      }),
    );
    expect((out.spec as any).conversion.webhook.clientConfig.service).toEqual({ name: 's', namespace: 'n', port: 443 });
  });
});
