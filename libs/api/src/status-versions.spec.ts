// Upstream internal/util/version/version_test.go.
import { aggregateStatusVersions, versionsFromMachines } from './status-versions';
import type { Machine } from './types/machine';

const machine = (version?: string, kubelet?: string, name = '', creationTimestamp?: string): Machine =>
  ({
    metadata: { name, ...(creationTimestamp ? { creationTimestamp } : {}) },
    spec: { clusterName: 'c', bootstrap: {}, infrastructureRef: { apiGroup: 'g', kind: 'K', name: 'n' }, version },
    ...(kubelet ? { status: { nodeInfo: { kubeletVersion: kubelet } } } : {}),
  }) as unknown as Machine;

describe('aggregateStatusVersions (upstream TestAggregateStatusVersions)', () => {
  it('returns nil for empty versions', () => expect(aggregateStatusVersions([])).toBeUndefined());
  it('sorts semver first and then lexicographically', () => {
    const got = aggregateStatusVersions(
      ['foo', 'v1.30.10', 'v1.30.2', 'bar'].map((version) => ({ version, replicas: 1 })),
    );
    expect(got?.map((v) => v.version)).toEqual(['v1.30.2', 'v1.30.10', 'bar', 'foo']);
  });
  it('uses deterministic tie breakers for equivalent and non-sortable versions', () => {
    const input = ['v1.30.0+bbb', 'v1.30.0+aaa', 'v1.30.0', '1.30.0'].map((version) => ({ version, replicas: 1 }));
    expect(aggregateStatusVersions(input)?.map((v) => v.version)).toEqual([
      '1.30.0',
      'v1.30.0',
      'v1.30.0+bbb',
      'v1.30.0+aaa',
    ]);
  });
  it('sums replicas by version', () => {
    const got = aggregateStatusVersions([
      { version: 'v1.31.1', replicas: 1 },
      { version: 'v1.31.1', replicas: 2 },
      { version: 'v1.32.0', replicas: 3 },
      { version: 'v1.33.0' },
    ]);
    expect(got).toEqual([
      { version: 'v1.31.1', replicas: 3 },
      { version: 'v1.32.0', replicas: 3 },
      { version: 'v1.33.0', replicas: 0 },
    ]);
  });
});

describe('versionsFromMachines (upstream TestVersionsFromMachines)', () => {
  it('returns sorted versions from machine spec versions', () => {
    const machines = [
      machine(),
      machine('v1.32.0'),
      machine('v1.31.1'),
      machine('v1.31.1'),
      machine('v1.31.1', 'v1.30.0'),
      machine('v1.31.1', 'v1.31.1'),
    ];
    expect(versionsFromMachines(machines)).toEqual([
      { version: 'v1.30.0', replicas: 1 },
      { version: 'v1.31.1', replicas: 3 },
      { version: 'v1.32.0', replicas: 1 },
    ]);
  });
  it('orders non-sortable build metadata by machine creation timestamp', () => {
    const machines = [
      machine('v1.32.0+aaa', undefined, 'newer', '2026-01-01T00:01:00Z'),
      machine('v1.32.0+bbb', undefined, 'older', '2026-01-01T00:00:00Z'),
    ];
    expect(versionsFromMachines(machines)).toEqual([
      { version: 'v1.32.0+bbb', replicas: 1 },
      { version: 'v1.32.0+aaa', replicas: 1 },
    ]);
  });
  it('no Machines, or none with a version: undefined', () => {
    expect(versionsFromMachines([])).toBeUndefined();
    expect(versionsFromMachines([machine()])).toBeUndefined();
  });
});
