import type { KubeObject } from '@capi/apimachinery';
import type { Predicate } from '@capi/controller-runtime';
import {
  clusterControlPlaneInitialized,
  clusterInfrastructureProvisioned,
  clusterPausedTransitions,
  clusterPausedTransitionsOrInfrastructureProvisioned,
} from './index';

interface Shape {
  paused?: boolean;
  infra?: boolean;
  cpInitialized?: 'True' | 'False';
  rv?: string;
}

const cluster = ({ paused, infra, cpInitialized, rv = '1' }: Shape): KubeObject =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'ns', name: 'c', resourceVersion: rv },
    spec: paused === undefined ? {} : { paused },
    status: {
      ...(infra === undefined ? {} : { initialization: { infrastructureProvisioned: infra } }),
      ...(cpInitialized
        ? {
            conditions: [
              { type: 'ControlPlaneInitialized', status: cpInitialized, reason: 'R', lastTransitionTime: '' },
            ],
          }
        : {}),
    },
  }) as KubeObject;

const update = (p: Predicate, o: Shape, n: Shape): boolean => p.update!(cluster(o), cluster({ ...n, rv: '2' }));

describe('Cluster predicates (upstream util/predicates/cluster_predicates.go)', () => {
  const all = [
    clusterPausedTransitions,
    clusterInfrastructureProvisioned,
    clusterControlPlaneInitialized,
    clusterPausedTransitionsOrInfrastructureProvisioned,
  ];

  it('pass no create and no delete', () => {
    for (const p of all) {
      expect(p.create!(cluster({ paused: true, infra: true, cpInitialized: 'True' }))).toBe(false);
      expect(p.delete!(cluster({ paused: true, infra: true, cpInitialized: 'True' }))).toBe(false);
    }
  });

  it('pass no update that changes only other status (a status write)', () => {
    for (const p of all)
      expect(update(p, { infra: true, cpInitialized: 'True' }, { infra: true, cpInitialized: 'True' })).toBe(false);
  });

  it.each([
    [{ paused: false }, { paused: true }, true],
    [{ paused: true }, { paused: false }, true],
    [{}, { paused: true }, true],
    [{ paused: true }, {}, true],
    [{ paused: false }, {}, false],
    [{ paused: true }, { paused: true }, false],
  ])('ClusterPausedTransitions %j -> %j: %s', (o, n, want) => {
    expect(update(clusterPausedTransitions, o, n)).toBe(want);
  });

  it.each([
    [{}, { infra: true }, true],
    [{ infra: false }, { infra: true }, true],
    [{ infra: true }, { infra: true }, false],
    [{ infra: true }, { infra: false }, false],
  ])('ClusterUpdateInfraProvisioned %j -> %j: %s', (o, n, want) => {
    expect(update(clusterInfrastructureProvisioned, o, n)).toBe(want);
  });

  it.each([
    [{}, { cpInitialized: 'True' }, true],
    [{ cpInitialized: 'False' }, { cpInitialized: 'True' }, true],
    [{ cpInitialized: 'True' }, { cpInitialized: 'True' }, false],
    [{ cpInitialized: 'True' }, { cpInitialized: 'False' }, false],
    [{}, { cpInitialized: 'False' }, false],
  ] as [Shape, Shape, boolean][])('ClusterControlPlaneInitialized %j -> %j: %s', (o, n, want) => {
    expect(update(clusterControlPlaneInitialized, o, n)).toBe(want);
  });

  it.each([
    [{ paused: true }, { paused: false }, true],
    [{ infra: false }, { infra: true }, true],
    [{ infra: true, paused: false }, { infra: true, paused: false }, false],
  ])('ClusterPausedTransitionsOrInfrastructureProvisioned %j -> %j: %s', (o, n, want) => {
    expect(update(clusterPausedTransitionsOrInfrastructureProvisioned, o, n)).toBe(want);
  });
});
