import type { KubeObject } from '@capi/apimachinery';
import type { InformerCache, InformerEventHandler, Request } from '@capi/controller-runtime';
import { ExternalObjectTracker } from './tracker';

/** An InformerCache stand-in that records the informers asked for and lets the test fire their events. */
function fakeCache() {
  const handlers = new Map<string, InformerEventHandler<KubeObject>[]>();
  const cache = {
    informerFor: (apiVersion: string, kind: string) => ({
      addEventHandler: (h: InformerEventHandler<KubeObject>) => {
        const key = `${apiVersion}/${kind}`;
        handlers.set(key, [...(handlers.get(key) ?? []), h]);
        return () => undefined;
      },
    }),
  } as unknown as InformerCache;
  return { cache, handlers };
}

const obj = (name: string, owner?: string): KubeObject => ({
  apiVersion: 'infrastructure.example.com/v1',
  kind: 'FooMachine',
  metadata: { name, namespace: 'ns', ...(owner ? { annotations: { owner } } : {}) },
});

describe('ExternalObjectTracker', () => {
  it('adds one watch per kind, however often it is asked', () => {
    const { cache, handlers } = fakeCache();
    const tracker = new ExternalObjectTracker(
      cache,
      () => [],
      () => undefined,
    );
    expect(tracker.watch('infrastructure.example.com/v1', 'FooMachine')).toBe(true);
    expect(tracker.watch('infrastructure.example.com/v1', 'FooMachine')).toBe(false);
    expect(tracker.watch('infrastructure.example.com/v1', 'BarMachine')).toBe(true);
    expect(tracker.isWatching('infrastructure.example.com/v1', 'FooMachine')).toBe(true);
    expect(tracker.isWatching('infrastructure.example.com/v1', 'BazMachine')).toBe(false);
    expect([...handlers.keys()]).toEqual([
      'infrastructure.example.com/v1/FooMachine',
      'infrastructure.example.com/v1/BarMachine',
    ]);
    expect(handlers.get('infrastructure.example.com/v1/FooMachine')).toHaveLength(1);
  });

  it('enqueues what the mapping returns for every add, both sides of an update, and a delete', () => {
    const { cache, handlers } = fakeCache();
    const enqueued: Request[] = [];
    const toRequests = (o: KubeObject): Request[] => {
      const owner = o.metadata.annotations?.owner;
      return owner ? [{ namespace: o.metadata.namespace, name: owner }] : [];
    };
    new ExternalObjectTracker(cache, toRequests, (r) => enqueued.push(r)).watch(
      'infrastructure.example.com/v1',
      'FooMachine',
    );
    const [h] = handlers.get('infrastructure.example.com/v1/FooMachine')!;
    h.onAdd?.(obj('a', 'm1'));
    h.onAdd?.(obj('orphan'));
    h.onUpdate?.(obj('a', 'm1'), obj('a', 'm2'));
    h.onDelete?.(obj('a', 'm2'));
    expect(enqueued.map((r) => r.name)).toEqual(['m1', 'm1', 'm2', 'm2']);
  });
});
