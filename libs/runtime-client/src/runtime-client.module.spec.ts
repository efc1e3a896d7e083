import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RuntimeClient } from './client';
import { ExtensionConfigReconciler } from './extension-config-reconciler';
import { ExtensionRegistry } from './registry';
import { FakeKubeClient } from './testing/fake-kube-client';
import {
  EXTENSION_CONFIG_RECONCILER,
  EXTENSION_REGISTRY,
  NAMESPACE_LABELS_READER,
  RUNTIME_CLIENT,
  RuntimeClientModule,
} from './runtime-client.module';

const KUBE = Symbol('KUBE');
const kube = new FakeKubeClient();
@Module({ providers: [{ provide: KUBE, useValue: kube }], exports: [KUBE] })
class KubeModule {}

describe('RuntimeClientModule', () => {
  it('provides client, registry, reconciler and a Namespace label reader backed by the kube client', async () => {
    await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a' } } });
    const mod = await Test.createTestingModule({
      imports: [RuntimeClientModule.forRoot({ kubeClientToken: KUBE, imports: [KubeModule] })],
    }).compile();
    expect(mod.get(RUNTIME_CLIENT)).toBeInstanceOf(RuntimeClient);
    expect(mod.get(EXTENSION_REGISTRY)).toBeInstanceOf(ExtensionRegistry);
    expect(mod.get(EXTENSION_CONFIG_RECONCILER)).toBeInstanceOf(ExtensionConfigReconciler);
    expect(await mod.get(NAMESPACE_LABELS_READER)('team-a')).toEqual({ team: 'a' });
    await expect(mod.get(NAMESPACE_LABELS_READER)('nope')).rejects.toMatchObject({ code: 404 });
    await mod.close();
  });

  it('lets downstream override the runtime client token', async () => {
    const fake = { isReady: () => true };
    const mod = await Test.createTestingModule({
      imports: [RuntimeClientModule.forRoot({ kubeClientToken: KUBE, imports: [KubeModule] })],
    })
      .overrideProvider(RUNTIME_CLIENT)
      .useValue(fake)
      .compile();
    expect(mod.get(RUNTIME_CLIENT)).toBe(fake);
    await mod.close();
  });
});
