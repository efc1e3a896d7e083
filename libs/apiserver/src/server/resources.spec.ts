// Resources over an in-memory Store: watches as kube's cacher sends them, apply's typed conversion.
import type { KubeObject } from '@capi/apimachinery';
import { Store } from '../storage';
import { Registry, resourcesFromCrd } from './registry';
import { StatusError } from './status';
import { INITIAL_EVENTS_END, Resources } from './resources';

function setup() {
  const store = new Store({ path: ':memory:' });
  const registry = new Registry();
  const resources = new Resources(store, registry);
  const ns = registry.lookup('', 'v1', 'namespaces')!;
  resources.create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'd' } });
  return { store, resources, cms: registry.lookup('', 'v1', 'configmaps')! };
}
const cm = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
});

describe('Resources.watch', () => {
  it('from no resourceVersion: the current objects, then (bookmarks allowed) the initial-events-end bookmark', () => {
    const { store, resources, cms } = setup();
    resources.create(cms, 'd', cm('a'));
    const events: { type: string; object: any }[] = [];
    const stop = resources.watch(cms, 'd', { allowWatchBookmarks: true }, (e) => events.push(e));
    stop();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[1].object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { resourceVersion: String(store.currentRevision()), annotations: { [INITIAL_EVENTS_END]: 'true' } },
    });
    const quiet: string[] = [];
    resources.watch(cms, 'd', { sendInitialEvents: false }, (e) => quiet.push(e.type))();
    expect(quiet).toEqual([]);
    store.close();
  });

  it('an object leaving a label selection is DELETED as it last matched, at the new resourceVersion', () => {
    const { store, resources, cms } = setup();
    const created = resources.create(cms, 'd', cm('a', { keep: 'yes' }));
    const events: { type: string; object: any }[] = [];
    const stop = resources.watch(
      cms,
      'd',
      { labelSelector: 'keep=yes', resourceVersion: created.metadata.resourceVersion },
      (e) => events.push(e),
    );
    const patched = resources.patch(cms, 'd', 'a', 'merge', { metadata: { labels: { keep: null } } });
    stop();
    expect(events).toEqual([
      {
        type: 'DELETED',
        object: { ...created, metadata: { ...created.metadata, resourceVersion: patched.metadata.resourceVersion } },
      },
    ]);
    store.close();
  });
});

describe('Resources.apply', () => {
  it("a field the custom resource schema does not declare is a 500, as kube's typed patch conversion, whatever fieldValidation says", () => {
    const { store, resources } = setup();
    const [widgets] = resourcesFromCrd({
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    });
    const intent = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'd' },
      spec: { size: 1, colour: 'x', extra: 1 },
    };
    for (const fieldValidation of ['Ignore', 'Warn'] as const) {
      let err: StatusError | undefined;
      try {
        resources.apply(widgets, 'd', 'w', structuredClone(intent), { fieldManager: 'm', fieldValidation });
      } catch (e) {
        err = e as StatusError;
      }
      expect(err?.toStatus()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 500,
        message:
          'failed to create typed patch object (d/w; example.com/v1, Kind=Widget): errors:\n  .spec.colour: field not declared in schema\n  .spec.extra: field not declared in schema',
      });
    }
    expect(resources.apply(widgets, 'd', 'w', { ...intent, spec: { size: 1 } }, { fieldManager: 'm' }).spec).toEqual({
      size: 1,
    });
    store.close();
  });
});
