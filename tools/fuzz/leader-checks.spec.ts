import { deposedActivity, leadershipLostExitProblems } from './leader-checks';

describe('deposedActivity', () => {
  const req = (from: string, at: number, method: string, path: string) => ({ from, at, method, path });
  it("keeps the deposed leader's writes, Events and hook calls from the takeover on; reads, others and earlier ones are not counted", () => {
    const api = [
      req('a', 99, 'PATCH', '/apis/cluster.x-k8s.io/v1beta2/namespaces/d/machines/m/status'),
      req('a', 100, 'GET', '/apis/cluster.x-k8s.io/v1beta2/machines?watch=true'),
      req('a', 100, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/d/leases/l'),
      req('b', 101, 'PATCH', '/apis/cluster.x-k8s.io/v1beta2/namespaces/d/machines/m'),
      req('a', 102, 'POST', '/api/v1/namespaces/d/events'),
      req('a', 103, 'PATCH', '/api/v1/namespaces/d/events/e.1'),
      req('a', 104, 'DELETE', '/apis/cluster.x-k8s.io/v1beta2/namespaces/d/machinesets/ms'),
    ];
    const hooks = [req('a', 99, 'POST', '/update-machine'), req('b', 100, 'POST', '/x'), req('a', 100, 'POST', '/can')];
    const got = deposedActivity('a', 100, api, hooks);
    expect(got.writes.map((r) => `${r.method} ${r.at}`)).toEqual(['PUT 100', 'DELETE 104']);
    expect(got.events.map((r) => r.at)).toEqual([102, 103]);
    expect(got.hookCalls.map((r) => r.path)).toEqual(['/can']);
  });
});

describe('leadershipLostExitProblems', () => {
  const lost = { msg: 'manager exiting', code: 1, reason: 'leader election lost' };
  it('accepts exit 1 whose last record is the one leadership-lost exit record', () => {
    expect(leadershipLostExitProblems({ code: 1, signal: null }, [{ msg: 'x' }, lost])).toEqual([]);
  });
  it('names each way it differs', () => {
    expect(leadershipLostExitProblems({ code: null, signal: 'SIGKILL' }, [{ msg: 'x' }])).toEqual([
      'exit SIGKILL, want code 1',
      '0 "manager exiting" records, want 1',
      'last record is "x"',
    ]);
    expect(
      leadershipLostExitProblems({ code: 1, signal: null }, [{ ...lost, reason: 'uncaught exception: boom' }]),
    ).toEqual(['exit record says code 1, reason "uncaught exception: boom"']);
    expect(leadershipLostExitProblems({ code: 1, signal: null }, [lost, lost])).toEqual([
      '2 "manager exiting" records, want 1',
    ]);
  });
});
