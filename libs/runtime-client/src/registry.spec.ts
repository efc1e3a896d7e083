import { HOOKS_API_VERSION } from '@capi/api';
import type { ExtensionConfig } from './extension-config';
import { ExtensionRegistry, handlerNameWithoutConfig, RegistryNotReadyError } from './registry';

const ec = (name: string, handlers: string[], rv = '1'): ExtensionConfig => ({
  apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
  kind: 'ExtensionConfig',
  metadata: { name, resourceVersion: rv },
  spec: { clientConfig: { url: 'https://x' } },
  status: {
    handlers: handlers.map((h) => ({
      name: `${h}.${name}`,
      requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' },
    })),
  },
});

describe('ExtensionRegistry', () => {
  it('refuses reads and writes before warm-up', () => {
    const r = new ExtensionRegistry();
    expect(r.isReady()).toBe(false);
    expect(() => r.list()).toThrow(RegistryNotReadyError);
    expect(() => r.add(ec('a', ['h']))).toThrow(/warmed up/);
  });

  it("add replaces an ExtensionConfig's registrations, remove drops them, defaults are applied", () => {
    const r = new ExtensionRegistry();
    r.warmUp([ec('a', ['h1', 'h2']), ec('b', ['h1'])]);
    expect(r.list().map((x) => x.name)).toEqual(['h1.a', 'h1.b', 'h2.a']);
    r.add(ec('a', ['h3'], '2'));
    expect(r.list().map((x) => x.name)).toEqual(['h1.b', 'h3.a']);
    expect(r.get('h3.a')).toMatchObject({
      timeoutSeconds: 10,
      failurePolicy: 'Fail',
      extensionConfigResourceVersion: '2',
    });
    r.remove('b');
    expect(r.list().map((x) => x.name)).toEqual(['h3.a']);
  });

  it('a snapshot taken by a reader is not changed by later writes', () => {
    const r = new ExtensionRegistry();
    r.warmUp([ec('a', ['h1'])]);
    const snapshot = r.list();
    r.remove('a');
    expect(snapshot.map((x) => x.name)).toEqual(['h1.a']);
  });

  it('rejects an ExtensionConfig with an invalid namespaceSelector when it is added', () => {
    const r = new ExtensionRegistry();
    r.warmUp([]);
    const bad = ec('bad', ['h']);
    bad.spec.namespaceSelector = { matchExpressions: [{ key: 'team', operator: 'In', values: [] }] };
    expect(() => r.add(bad)).toThrow(/values set can't be empty/);
    expect(r.list()).toEqual([]);
  });

  it('strips only the ExtensionConfig suffix from handler names', () => {
    expect(handlerNameWithoutConfig({ name: 'update.machine.ext', extensionConfigName: 'ext' })).toBe('update.machine');
  });
});
