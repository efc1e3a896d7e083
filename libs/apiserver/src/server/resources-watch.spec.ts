// Resources.watch over an in-memory Store: what kube's cacher sends.
import type { KubeObject } from '@capi/controller-runtime';
import { Store } from '../storage';
import { Registry } from './registry';
import { INITIAL_EVENTS_END, Resources } from './resources';

function setup() {
  const store = new Store({ path: ':memory:' });
  const registry = new Registry();
  const resources = new Resources(store, registry);
  const ns = registry.lookup('', 'v1', 'namespaces')!;
  resources.create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'd' } });
  return { store, resources, cms: registry.lookup('', 'v1', 'configmaps')! };
}
const cm = (name: string, labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });

describe('Resources.watch', () => {
  it('from no resourceVersion: the current objects, then (bookmarks allowed) the initial-events-end bookmark', () => {
    const { store, resources, cms } = setup();
    resources.create(cms, 'd', cm('a'));
    const events: { type: string; object: any }[] = [];
    const stop = resources.watch(cms, 'd', { allowWatchBookmarks: true }, (e) => events.push(e));
    stop();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[1].object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(store.currentRevision()), annotations: { [INITIAL_EVENTS_END]: 'true' } } });
    const quiet: string[] = [];
    resources.watch(cms, 'd', { sendInitialEvents: false }, (e) => quiet.push(e.type))();
    expect(quiet).toEqual([]);
    store.close();
  });

  it('an object leaving a label selection is DELETED as it last matched, at the new resourceVersion', () => {
    const { store, resources, cms } = setup();
    const created = resources.create(cms, 'd', cm('a', { keep: 'yes' }));
    const events: { type: string; object: any }[] = [];
    const stop = resources.watch(cms, 'd', { labelSelector: 'keep=yes', resourceVersion: created.metadata.resourceVersion }, (e) => events.push(e));
    const patched = resources.patch(cms, 'd', 'a', 'merge', { metadata: { labels: { keep: null } } });
    stop();
    expect(events).toEqual([{ type: 'DELETED', object: { ...created, metadata: { ...created.metadata, resourceVersion: patched.metadata.resourceVersion } } }]);
    store.close();
  });
});
