// checkAndDecrement cases of kubernetes pkg/registry/core/pod/storage/eviction_test.go that cannot be set up over HTTP
// on the embedded server (its disruption controller rewrites a budget's status before the next request): the
// resources here run without one, as kube-apiserver alone does.
import type { KubeObject } from '@capi/apimachinery';
import { Store } from '../storage';
import { evict } from './eviction';
import { Registry } from './registry';
import { Resources } from './resources';
import { StatusError } from './status';

const NOW = new Date('2026-01-01T00:00:00Z');
let store: Store;
let registry: Registry;
let resources: Resources;
const info = (plural: string, group = '') => registry.lookup(group, 'v1', plural)!;

beforeEach(() => {
  store = new Store({ path: ':memory:' });
  registry = new Registry();
  resources = new Resources(store, registry);
  resources.create(info('namespaces'), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  resources.create(info('pods'), 'default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: 'true' } },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
  });
  resources.update(
    info('pods'),
    'default',
    'p',
    {
      ...resources.get(info('pods'), 'default', 'p'),
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
    { subresource: 'status' },
  );
});
afterEach(() => store.close());

function budget(status: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject {
  const pdbs = info('poddisruptionbudgets', 'policy');
  const created = resources.create(pdbs, 'default', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'foo' },
    spec: { selector: { matchLabels: { a: 'true' } }, ...spec },
  });
  return resources.update(pdbs, 'default', 'foo', { ...created, status }, { subresource: 'status' });
}

const run = () =>
  evict(resources, registry, {
    namespace: 'default',
    name: 'p',
    body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'default' } },
    dryRun: [],
    now: NOW,
  });
const failure = (): StatusError => {
  try {
    run();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('the eviction succeeded');
};

describe('evict: checkAndDecrement', () => {
  it('a budget not observed at its generation: 429, retry after 10 s', () => {
    budget({ observedGeneration: 0, disruptionsAllowed: 1 });
    const e = failure();
    expect(e.code).toBe(429);
    expect(e.toStatus().details).toEqual({
      causes: [
        { reason: 'DisruptionBudget', message: 'The disruption budget foo is still being processed by the server.' },
      ],
      retryAfterSeconds: 10,
    });
  });

  it('negative disruptions allowed: Forbidden with the budget as cause', () => {
    budget({ observedGeneration: 1, disruptionsAllowed: -1 });
    const e = failure();
    expect(e.code).toBe(403);
    expect(e.message).toBe('poddisruptionbudget.policy "foo" is forbidden: pdb disruptions allowed is negative');
    expect(e.toStatus().details?.causes).toEqual([
      {
        reason: 'DisruptionBudget',
        message:
          'The disruption budget foo does not allow evicting pods currently: pdb disruptions allowed is negative',
      },
    ]);
  });

  it('a failed sync explains the refusal (the counts are not trusted)', () => {
    budget({
      observedGeneration: 1,
      disruptionsAllowed: 0,
      conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'hoge' }],
    });
    expect(failure().toStatus().details?.causes?.[0].message).toBe(
      'The disruption budget foo does not allow evicting pods currently because it failed sync: hoge',
    );
  });

  it('a condition with a reason when healthy exceeds desired', () => {
    budget({
      observedGeneration: 1,
      disruptionsAllowed: 0,
      currentHealthy: 4,
      desiredHealthy: 3,
      conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: 'fuga' }],
    });
    expect(failure().toStatus().details?.causes?.[0].message).toBe(
      'The disruption budget foo does not allow evicting pods currently (InsufficientPods): fuga',
    );
  });

  it('an allowed disruption is taken and the Pod recorded, then the Pod is deleted gracefully', () => {
    budget({ observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 0, expectedPods: 1 });
    expect(run()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pdb = resources.get(info('poddisruptionbudgets', 'policy'), 'default', 'foo');
    expect(pdb.status).toMatchObject({
      disruptionsAllowed: 0,
      disruptedPods: { p: '2026-01-01T00:00:00Z' },
      conditions: [expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })],
    });
    expect(resources.get(info('pods'), 'default', 'p').metadata.deletionGracePeriodSeconds).toBe(30);
  });

  const unready = () => {
    const pods = info('pods');
    resources.update(
      pods,
      'default',
      'p',
      { ...resources.get(pods, 'default', 'p'), status: { phase: 'Running', conditions: [] } },
      { subresource: 'status' },
    );
  };
  const recorded = () =>
    (resources.get(info('poddisruptionbudgets', 'policy'), 'default', 'foo').status as Record<string, unknown>)
      .disruptedPods;

  it('an unready Pod goes without using a disruption when the budget is met (IfHealthyBudget, the default)', () => {
    unready();
    budget({ observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 3 });
    expect(run().status).toBe('Success');
    expect(recorded()).toBeUndefined();
  });

  it('an unready Pod is guarded while the budget is not met, unless the policy is AlwaysAllow', () => {
    unready();
    budget({ observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2, expectedPods: 3 });
    expect(failure().code).toBe(429);
    resources.delete(info('poddisruptionbudgets', 'policy'), 'default', 'foo');
    budget(
      { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2, expectedPods: 3 },
      { unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    );
    expect(run().status).toBe('Success');
    expect(recorded()).toBeUndefined();
  });
});
