import type { KubeObject } from '@capi/apimachinery';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  planDaemonSets,
  planDeployments,
  planReplicaSets,
  POD_TEMPLATE_HASH_LABEL,
  templateHash,
} from './controllers';
import { node, pod, snapshot } from './test-fixtures';
import type { SimAction } from './types';

const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const deployment = (replicas = 2): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-web', generation: 1 },
  spec: { replicas, selector: { matchLabels: { app: 'x' } }, template },
});
const replicaSet = (name: string, replicas: number, tmpl = template): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    generation: 1,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }],
  },
  spec: { replicas, template: tmpl },
});
const daemonSet = (tmpl: object = template): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'proxy', namespace: 'default', uid: 'uid-proxy', generation: 1 },
  spec: { template: tmpl },
});
const ops = (actions: SimAction[], op: SimAction['op']) => actions.filter((a) => a.op === op);
const created = (actions: SimAction[]) =>
  ops(actions, 'create').map((a) => (a as Extract<SimAction, { op: 'create' }>).object);

describe('planDeployments', () => {
  it('creates the ReplicaSet of the template, named by its hash, owned by the Deployment', () => {
    const [rs] = created(planDeployments(snapshot({ deployments: [deployment()] })));
    const hash = templateHash(template);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', uid: 'uid-web', controller: true });
    expect(rs.spec).toMatchObject({
      replicas: 2,
      selector: { matchLabels: { app: 'x', [POD_TEMPLATE_HASH_LABEL]: hash } },
      template: { metadata: { labels: { app: 'x', [POD_TEMPLATE_HASH_LABEL]: hash } } },
    });
  });

  it('scales the current ReplicaSet to spec.replicas and older ones to 0', () => {
    const current = replicaSet(`web-${templateHash(template)}`, 1);
    const old = replicaSet('web-old', 2, { ...template, spec: { containers: [{ name: 'c', image: 'old' }] } });
    const actions = planDeployments(snapshot({ deployments: [deployment(3)], replicaSets: [current, old] }));
    expect(ops(actions, 'patch')).toEqual([
      { op: 'patch', ref: expect.objectContaining({ name: current.metadata.name }), patch: { spec: { replicas: 3 } } },
      { op: 'patch', ref: expect.objectContaining({ name: 'web-old' }), patch: { spec: { replicas: 0 } } },
    ]);
    expect(created(actions)).toEqual([]);
  });

  it('reports ready and updated replicas in status', () => {
    const current = replicaSet(`web-${templateHash(template)}`, 2);
    const pods = [pod('a', 'n', { owner: current }), pod('b', 'n', { owner: current, ready: false })];
    const [status] = ops(
      planDeployments(snapshot({ deployments: [deployment()], replicaSets: [current], pods })),
      'status',
    );
    expect(status).toMatchObject({
      status: { replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 1 },
    });
  });
});

describe('planReplicaSets', () => {
  const rs = replicaSet('web-1', 3);

  it('creates the missing Pods on the Nodes the scheduler picks, spread', () => {
    const pods = created(planReplicaSets(snapshot({ replicaSets: [rs], nodes: [node('a'), node('b')] })));
    expect(pods.map((p) => (p.spec as { nodeName: string }).nodeName)).toEqual(['a', 'b', 'a']);
    expect(pods[0].metadata).toMatchObject({
      generateName: 'web-1-',
      labels: { app: 'x' },
      ownerReferences: [expect.objectContaining({ kind: 'ReplicaSet', uid: 'uid-web-1', controller: true })],
    });
  });

  it('replaces a Pod that is terminating or gone on another schedulable Node', () => {
    const pods = [
      pod('p1', 'a', { owner: rs }),
      pod('p2', 'b', { owner: rs, deletionTimestamp: '2026-01-01T00:00:30Z' }),
      pod('p3', 'c', { owner: rs }),
    ];
    const nodes = [node('a'), node('b', { unschedulable: true }), node('c'), node('d')];
    expect(
      created(planReplicaSets(snapshot({ replicaSets: [rs], nodes, pods }))).map(
        (p) => (p.spec as { nodeName?: string }).nodeName,
      ),
    ).toEqual(['d']);
  });

  it('creates nothing while no Node fits', () =>
    expect(created(planReplicaSets(snapshot({ replicaSets: [rs], nodes: [node('a', { ready: false })] })))).toEqual(
      [],
    ));

  it('deletes extra Pods, not ready ones first, then the newest', () => {
    const small = replicaSet('web-1', 1);
    const pods = [
      pod('old', 'a', { owner: small, created: '2026-01-01T00:00:00Z' }),
      pod('new', 'a', { owner: small, created: '2026-01-02T00:00:00Z' }),
      pod('unready', 'a', { owner: small, ready: false, created: '2025-01-01T00:00:00Z' }),
    ];
    const deletes = ops(planReplicaSets(snapshot({ replicaSets: [small], nodes: [node('a')], pods })), 'delete');
    expect(deletes.map((d) => (d as Extract<SimAction, { op: 'delete' }>).ref.name)).toEqual(['unready', 'new']);
    expect(deletes.every((d) => !(d as Extract<SimAction, { op: 'delete' }>).force)).toBe(true);
  });
});

describe('planDaemonSets', () => {
  const hash = templateHash(template);
  it('one Pod on every Node it fits, cordoned ones included, with the daemon tolerations', () => {
    const nodes = [node('a'), node('b', { unschedulable: true }), node('cp', { controlPlane: true })];
    const pods = created(planDaemonSets(snapshot({ daemonSets: [daemonSet()], nodes })));
    expect(pods.map((p) => (p.spec as { nodeName?: string }).nodeName)).toEqual(['a', 'b']);
    expect(pods[0].metadata.labels).toEqual({ app: 'x', [CONTROLLER_REVISION_HASH_LABEL]: hash });
    expect((pods[0].spec as { tolerations?: unknown[] }).tolerations).toContainEqual({
      key: 'node.kubernetes.io/unschedulable',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
  });

  it('replaces a Pod of an older template once it is gone; deletes Pods of Nodes that went', () => {
    const ds = daemonSet();
    const stale = pod('stale', 'a', { owner: ds, labels: { [CONTROLLER_REVISION_HASH_LABEL]: 'old' } });
    const orphan = pod('orphan', 'gone', { owner: ds, labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash } });
    const actions = planDaemonSets(snapshot({ daemonSets: [ds], nodes: [node('a')], pods: [stale, orphan] }));
    expect(ops(actions, 'delete').map((d) => (d as Extract<SimAction, { op: 'delete' }>).ref.name)).toEqual([
      'stale',
      'orphan',
    ]);
    expect(created(actions)).toEqual([]);
    const terminating = pod('stale', 'a', { owner: ds, deletionTimestamp: '2026-01-01T00:00:30Z' });
    expect(created(planDaemonSets(snapshot({ daemonSets: [ds], nodes: [node('a')], pods: [terminating] })))).toEqual(
      [],
    );
  });
});
