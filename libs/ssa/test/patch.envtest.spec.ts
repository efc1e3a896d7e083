// ssa.patch against an API server over HTTPS (envtest, either target), counting the requests the client sends.
import { FakeClock } from '@capi/apimachinery/testing';
import { countingClientFor, startEnvtest, type Envtest } from '@capi/envtest';
import type { KubeObject } from '@capi/apimachinery';
import {
  isApiError,
  isInvalid,
  isNotFound,
  type CountingClientMetrics,
  type KubeClient,
} from '@capi/controller-runtime';
import { Test } from '@nestjs/testing';
import { Registry } from 'prom-client';
import { patch, ServerSideApplier, SSA_CACHE, SsaCache, SsaModule } from '@capi/ssa';
import { DEFAULT_SSA_CACHE_TTL_MS } from '../src/cache';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.ssa.test.capi.io' },
  spec: {
    group: 'ssa.test.capi.io',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { size: { type: 'integer', minimum: 0 }, color: { type: 'string', default: 'blue' } },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'ssa.test.capi.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  spec,
});
const ref = (name: string) => ({ apiVersion: 'ssa.test.capi.io/v1', kind: 'Widget', namespace: 'default', name });

describe('ssa.patch against an API server (envtest)', () => {
  let env: Envtest;
  let requests: CountingClientMetrics;
  let client: KubeClient;

  beforeAll(async () => {
    env = await startEnvtest({ installProjectCrds: false, crds: [widgetCrd] });
    ({ client, requests } = countingClientFor(env));
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });

  /** Runs `fn` and returns the number of write requests the client sent meanwhile (it is the only writer). */
  async function writesDuring(fn: () => Promise<unknown>): Promise<number> {
    requests.reset();
    await fn();
    return requests.writes();
  }

  /** One "reconcile": read the object as an informer would deliver it, then apply the intent through the cache. */
  async function reconcile(cache: SsaCache, intent: KubeObject): Promise<{ writes: number; modified: KubeObject }> {
    const original = await client.tryGet(ref(intent.metadata.name!));
    const modified = structuredClone(intent);
    const writes = await writesDuring(() => patch(client, modified, { fieldOwner: 'capi-test', original, cache }));
    return { writes, modified };
  }

  it('second reconcile with no change makes 0 writes; the caller gets the current object', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const intent = widget('w-nochange', { size: 1 });
    expect((await reconcile(cache, intent)).writes).toBe(1);
    const second = await reconcile(cache, intent);
    expect(second.writes).toBe(0);
    const stored = await client.get(ref('w-nochange'));
    expect(second.modified).toEqual(stored);
  });

  it('one change costs exactly one apply, then the next reconcile is served from the cache', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    await reconcile(cache, widget('w-change', { size: 1 }));
    const changed = await reconcile(cache, widget('w-change', { size: 2 }));
    expect(changed.writes).toBe(1);
    expect((changed.modified.spec as { size: number }).size).toBe(2);
    expect((await reconcile(cache, widget('w-change', { size: 2 }))).writes).toBe(0);
    expect((await reconcile(cache, widget('w-change', { size: 2 }, { l: 'x' }))).writes).toBe(1);
  });

  it("someone else's write to fields we do not own (new resourceVersion) costs no apply: our fields are as we left them", async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const intent = widget('w-other', { size: 3 });
    await reconcile(cache, intent);
    await client.patch(
      ref('w-other'),
      'merge',
      { metadata: { labels: { other: 'writer' } } },
      { fieldManager: 'someone-else' },
    );
    const after = await reconcile(cache, intent);
    expect(after.writes).toBe(0);
    expect(after.modified).toEqual(await client.get(ref('w-other'))); // the caller still gets the current object
    expect(after.modified.metadata.labels).toEqual({ other: 'writer' });
  });

  it('someone else changing a field we own, or a new intent, makes the next reconcile do 1 real apply', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const intent = widget('w-taken', { size: 3 });
    await reconcile(cache, intent);
    await client.patch(ref('w-taken'), 'merge', { spec: { size: 9 } }, { fieldManager: 'someone-else' });
    const restored = await reconcile(cache, intent);
    expect(restored.writes).toBe(1);
    expect((restored.modified.spec as { size: number }).size).toBe(3);
    expect((await reconcile(cache, intent)).writes).toBe(0);
    // Another manager applying the same value shares the field: still nothing for us to do.
    await client.apply(widget('w-taken', { size: 3 }), { fieldManager: 'someone-else', force: true });
    expect((await reconcile(cache, intent)).writes).toBe(0);
    // A forced apply of another value takes the field over: our entry no longer lists it.
    await client.apply(widget('w-taken', { size: 5 }), { fieldManager: 'someone-else', force: true });
    expect((await reconcile(cache, intent)).writes).toBe(1);
    expect((await reconcile(cache, widget('w-taken', { size: 4 }))).writes).toBe(1);
  });

  it('a creation intent (no uid yet) answers for the same intent sent later with the uid; another uid is sent', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const created = await reconcile(cache, widget('w-uid', { size: 1 }));
    expect(created.writes).toBe(1);
    const uid = created.modified.metadata.uid!;
    const withUid = (u: string) => ({
      ...widget('w-uid', { size: 1 }),
      metadata: { ...widget('w-uid', { size: 1 }).metadata, uid: u },
    });
    expect((await reconcile(cache, withUid(uid))).writes).toBe(0);
    // Not answered from the cache: the server decides about a uid that is not the object's.
    const other = await writesDuring(() =>
      patch(client, withUid('another-uid'), { fieldOwner: 'capi-test', original: created.modified, cache }).catch(
        () => undefined,
      ),
    );
    expect(other).toBe(1);
  });

  it('entries expire after the TTL (injectable clock)', async () => {
    const clock = new FakeClock(0);
    const cache = new SsaCache({ controllerName: 'test', clock });
    const intent = widget('w-ttl', { size: 4 });
    await reconcile(cache, intent);
    clock.advance(DEFAULT_SSA_CACHE_TTL_MS - 1);
    expect((await reconcile(cache, intent)).writes).toBe(0); // a hit refreshes the entry...
    clock.advance(DEFAULT_SSA_CACHE_TTL_MS - 1);
    expect((await reconcile(cache, intent)).writes).toBe(0);
    clock.advance(DEFAULT_SSA_CACHE_TTL_MS); // ...until nobody asks for a whole TTL
    expect((await reconcile(cache, intent)).writes).toBe(1);
  });

  it('LRU bound: an evicted entry costs one real apply again', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0), maxEntries: 1 });
    await reconcile(cache, widget('w-lru-a', { size: 1 }));
    await reconcile(cache, widget('w-lru-b', { size: 1 }));
    expect((await reconcile(cache, widget('w-lru-b', { size: 1 }))).writes).toBe(0);
    expect((await reconcile(cache, widget('w-lru-a', { size: 1 }))).writes).toBe(1);
  });

  it('dry-run persists nothing and never fills the cache', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const modified = widget('w-dry', { size: 5 });
    await patch(client, modified, { fieldOwner: 'capi-test', cache, dryRun: true });
    expect(modified.metadata.managedFields?.[0]?.manager).toBe('capi-test'); // the server's answer written back
    expect(await client.tryGet(ref('w-dry'))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('strips status/resourceVersion/managedFields from the intent and writes the response back', async () => {
    await patch(client, widget('w-strip', { size: 1 }), { fieldOwner: 'capi-test' });
    const stale = await client.get(ref('w-strip'));
    const modified: KubeObject = { ...structuredClone(stale), spec: { size: 6 }, status: { phase: 'Bogus' } };
    modified.metadata.resourceVersion = '1'; // a stale RV in the intent must not cause a conflict
    await patch(client, modified, { fieldOwner: 'capi-test' });
    expect(Number(modified.metadata.resourceVersion)).toBeGreaterThan(Number(stale.metadata.resourceVersion));
    expect(modified.status).toBeUndefined();
    expect(modified.metadata.managedFields?.some((m) => m.manager === 'capi-test' && m.operation === 'Apply')).toBe(
      true,
    );
  });

  it('server errors surface as ApiError with the Status and are not cached', async () => {
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const intent = { ...widget('w-bad', { size: 1 }), metadata: { name: 'w-bad', namespace: 'no-such-namespace' } };
    const err = await patch(client, intent, { fieldOwner: 'capi-test', cache }).catch((e) => e);
    expect(isApiError(err)).toBe(true);
    expect(isNotFound(err)).toBe(true);
    expect(cache.size).toBe(0);
    await expect(patch(client, { ...intent, metadata: {} }, { fieldOwner: 'capi-test' })).rejects.toThrow(
      /metadata.name/,
    );
  });

  it('server defaulting is visible to the caller; schema errors surface as Invalid', async () => {
    const modified = widget('w-default', { size: 1 });
    await patch(client, modified, { fieldOwner: 'capi-test' });
    expect((modified.spec as { color?: string }).color).toBe('blue');
    const cache = new SsaCache({ controllerName: 'test', clock: new FakeClock(0) });
    const err = await patch(client, widget('w-invalid', { size: -1 }), { fieldOwner: 'capi-test', cache }).catch(
      (e) => e,
    );
    expect(isInvalid(err)).toBe(true);
    expect(cache.size).toBe(0);
  });

  it('ServerSideApplier (SsaModule) keeps one cache per controller and exports metrics', async () => {
    const registry = new Registry();
    const mod = await Test.createTestingModule({
      imports: [SsaModule.forRoot({ registry, clock: new FakeClock(0) })],
    }).compile();
    const applier = mod.get(ServerSideApplier);
    expect(mod.get(SSA_CACHE)).toBe(applier);
    expect(applier.cacheFor('capi-machineset')).toBe(applier.cacheFor('capi-machineset'));
    expect(applier.cacheFor('capi-machineset')).not.toBe(applier.cacheFor('capi-machine'));

    const intent = widget('w-applier', { size: 7 });
    const apply = async () => {
      const original = await client.get(ref('w-applier')).catch(() => undefined);
      return writesDuring(() =>
        applier.patch(client, structuredClone(intent), { fieldOwner: 'capi-machineset', original }),
      );
    };
    expect(await apply()).toBe(1);
    expect(await apply()).toBe(0);
    expect(applier.cacheFor('capi-machineset').size).toBe(2); // keyed by resourceVersion and by our owned fields
    const hits = await registry.getSingleMetric('capi_ssa_cache_hits_total')!.get();
    expect(hits.values).toEqual([{ labels: { kind: 'Widget', controller: 'capi-machineset' }, value: 1 }]);
    await mod.close();
  });
});
