// Upstream controlplane/kubeadm/pkg/control_plane_test.go TestControlPlane "Failure domains" and
// util/failuredomains PickMost / PickFewest ordering.
import type { Cluster } from '@capi/api';
import { controlPlaneFailureDomains, failureDomainWithMostMachines, pickFewest, pickMost } from './failure-domains';
import { machine } from './testing/fixtures';

const inFd = (name: string, fd?: string) => {
  const m = machine(name);
  if (fd !== undefined) m.spec.failureDomain = fd;
  return m;
};

describe('failure domains', () => {
  it('only the Cluster failure domains marked controlPlane: true', () => {
    const cluster = {
      status: {
        failureDomains: [
          { name: 'one', controlPlane: true },
          { name: 'two', controlPlane: true },
          { name: 'three', controlPlane: true },
          { name: 'four', controlPlane: false },
          { name: 'five' },
        ],
      },
    } as unknown as Cluster;
    expect(controlPlaneFailureDomains(cluster)).toEqual(['one', 'two', 'three']);
  });

  describe('FailureDomainWithMostMachines', () => {
    const fds = ['one', 'two', 'three'];
    const machines = [inFd('machine-1', 'one'), inFd('machine-2', 'two'), inFd('machine-3', 'two')];
    it('with all machines in known failure domains: the one with most machines', () => {
      expect(failureDomainWithMostMachines(fds, machines, machines)).toBe('two');
    });
    it('with some machines in non defined failure domains: that one first', () => {
      const all = [...machines, inFd('machine-5', 'unknown')];
      expect(failureDomainWithMostMachines(fds, all, all)).toBe('unknown');
    });
  });

  it('PickMost: most eligible Machines, then most Machines; none without an eligible Machine', () => {
    const all = [inFd('a', 'one'), inFd('b', 'one'), inFd('c', 'two'), inFd('d', 'two'), inFd('e', 'two')];
    expect(pickMost(['one', 'two'], all, [all[0], all[2]])).toBe('two');
    expect(pickMost(['one', 'two'], all, [all[0]])).toBe('one');
    expect(pickMost(['one', 'two'], all, [])).toBe('');
    expect(pickMost([], all, all)).toBe('');
  });

  it('PickFewest: fewest priority Machines, then fewest Machines, then the Cluster order', () => {
    const all = [inFd('a', 'one'), inFd('b', 'two'), inFd('c', 'two')];
    expect(pickFewest(['one', 'two', 'three'], all, all)).toBe('three');
    expect(pickFewest(['one', 'two'], all, [])).toBe('one');
    expect(pickFewest(['two', 'one'], [inFd('a', 'one'), inFd('b', 'two')], [])).toBe('two');
  });
});
