import type { Manager } from '@capi/controller-runtime';
import { LeadershipLostExit } from './leadership-lost-exit';

describe('LeadershipLostExit', () => {
  it('asks main to exit 1 with "leader election lost" when the Manager loses leadership, as upstream', () => {
    const listeners: Array<() => void> = [];
    const manager = { onLeadershipLost: (l: () => void) => void listeners.push(l) } as unknown as Manager;
    const requests: Array<[number, string]> = [];
    new LeadershipLostExit(manager, {
      request: (code, reason) => void requests.push([code, reason]),
    }).onApplicationBootstrap();
    expect(requests).toEqual([]);
    listeners.forEach((l) => l());
    expect(requests).toEqual([[1, 'leader election lost']]);
  });
});
