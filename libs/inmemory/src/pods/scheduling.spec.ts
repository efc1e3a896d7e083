import { daemonSetNodes, pickNode, toleratesTaint, unfitReason } from './scheduling';
import { node } from './test-fixtures';

const cpToleration = {
  key: 'node-role.kubernetes.io/control-plane',
  operator: 'Exists' as const,
  effect: 'NoSchedule',
};

describe('toleratesTaint (k8s.io/api core/v1 toleration.go)', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  it.each([
    ['empty key with Exists tolerates everything', { operator: 'Exists' as const }, true],
    ['same key, Exists', { key: 'k', operator: 'Exists' as const }, true],
    ['same key and value (Equal default)', { key: 'k', value: 'v' }, true],
    ['same key, other value', { key: 'k', value: 'w' }, false],
    ['other key', { key: 'x', operator: 'Exists' as const }, false],
    ['matching effect', { key: 'k', operator: 'Exists' as const, effect: 'NoSchedule' }, true],
    ['other effect', { key: 'k', operator: 'Exists' as const, effect: 'NoExecute' }, false],
  ])('%s', (_name, toleration, want) => expect(toleratesTaint(toleration, taint)).toBe(want));
});

describe('unfitReason', () => {
  it('a cordoned Node takes no new Pod', () =>
    expect(unfitReason({}, node('a', { unschedulable: true }))).toBe('node(s) were unschedulable'));
  it('a Node that is not Ready takes no new Pod', () =>
    expect(unfitReason({}, node('a', { ready: false }))).toBe('node(s) were not ready'));
  it('a control-plane Node only takes Pods tolerating its taint', () => {
    expect(unfitReason({}, node('a', { controlPlane: true }))).toBe('node(s) had untolerated taint');
    expect(unfitReason({ tolerations: [cpToleration] }, node('a', { controlPlane: true }))).toBeUndefined();
  });
  it('the nodeSelector must match', () =>
    expect(unfitReason({ nodeSelector: { zone: 'a' } }, node('a'))).toBe(
      "node(s) didn't match Pod's node affinity/selector",
    ));
});

describe('pickNode', () => {
  const nodes = [node('cp-1', { controlPlane: true }), node('w-2'), node('w-1'), node('w-3', { unschedulable: true })];

  it('prefers the Node with the fewest Pods of the same controller', () =>
    expect(pickNode({}, nodes, new Map([['w-1', 1]]))).toBe('w-2'));
  it('breaks ties by name, then skips cordoned and tainted Nodes', () =>
    expect(pickNode({}, nodes, new Map())).toBe('w-1'));
  it("prefers workers to tolerated control-plane Nodes, even when they run the controller's Pods already", () =>
    expect(
      pickNode(
        { tolerations: [cpToleration] },
        nodes,
        new Map([
          ['w-1', 2],
          ['w-2', 1],
        ]),
      ),
    ).toBe('w-2'));
  it('uses control-plane Nodes when nothing else fits', () =>
    expect(pickNode({ tolerations: [cpToleration] }, [node('cp-1', { controlPlane: true })], new Map())).toBe('cp-1'));
  it('then the Node with fewer Pods overall', () =>
    expect(pickNode({}, [node('a'), node('b')], new Map(), new Map([['a', 3]]))).toBe('b'));
  it('nothing when no Node fits (the Pod would stay Pending)', () =>
    expect(pickNode({}, [node('cp', { controlPlane: true }), node('w', { ready: false })], new Map())).toBeUndefined());
  it('never a Node being deleted', () => {
    const deleting = { ...node('a'), metadata: { ...node('a').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    expect(pickNode({}, [deleting], new Map())).toBeUndefined();
  });
});

describe('daemonSetNodes', () => {
  it('includes cordoned and not-ready Nodes (the daemon controller tolerates them), not untolerated taints', () =>
    expect(
      daemonSetNodes({}, [
        node('a', { unschedulable: true }),
        node('b', { ready: false }),
        node('cp', { controlPlane: true }),
      ]).map((n) => n.metadata.name),
    ).toEqual(['a', 'b']));
  it('all Nodes with a tolerate-everything toleration; the nodeSelector still applies', () =>
    expect(
      daemonSetNodes({ tolerations: [{ operator: 'Exists' }], nodeSelector: { 'kubernetes.io/os': 'linux' } }, [
        node('cp', { controlPlane: true }),
        node('win', { labels: { 'kubernetes.io/os': 'windows' } }),
      ]).map((n) => n.metadata.name),
    ).toEqual(['cp']));
});
