import {
  alarm,
  EtcdRpcError,
  GRPC_FAILED_PRECONDITION,
  GRPC_NOT_FOUND,
  GRPC_UNAVAILABLE,
  GRPC_UNKNOWN,
  hostGone,
  joinMember,
  leaderOf,
  memberList,
  moveLeader,
  randomUint64,
  removeMember,
  status,
  type EtcdClusterState,
} from './cluster-state';

/** IDs 11, 12, 13... in join order (the cluster takes the first). */
function sequence(start = 10): () => string {
  let n = start;
  return () => String(n++);
}

function cluster(names: string[], now = 1000): EtcdClusterState {
  const ids = sequence();
  let s: EtcdClusterState | undefined;
  for (const [i, name] of names.entries()) s = joinMember(s, { name, ip: `10.0.0.${i + 1}` }, ids, now + i).state;
  return s!;
}

const idOf = (s: EtcdClusterState, name: string) => s.members.find((m) => m.name === name)!.id;

function rpcError(fn: () => unknown): EtcdRpcError {
  try {
    fn();
  } catch (e) {
    if (e instanceof EtcdRpcError) return e;
    throw e;
  }
  throw new Error('expected an etcd error');
}

describe('joining (upstream reconcileNormalETCD)', () => {
  it('the first member picks the cluster ID and leads; later members join with their own IDs and follow', () => {
    const s = cluster(['cp-1', 'cp-2', 'cp-3']);
    expect(s.clusterID).toBe('10');
    expect(s.members.map((m) => [m.name, m.id])).toEqual([
      ['cp-1', '11'],
      ['cp-2', '12'],
      ['cp-3', '13'],
    ]);
    expect(s.members[0]).toMatchObject({ peerURLs: ['https://10.0.0.1:2380'], clientURLs: ['https://10.0.0.1:2379'] });
    expect(leaderOf(s)).toBe('11');
    expect(status(s, 'cp-3')).toMatchObject({ header: { cluster_id: '10', member_id: '13' }, leader: '11' });
  });

  it('IDs are non-zero and unique, drawn again on a collision', () => {
    const draws = ['0', '5', '5', '0', '6'];
    const s1 = joinMember(undefined, { name: 'a', ip: '1.1.1.1' }, () => draws.shift()!, 1).state;
    const s2 = joinMember(s1, { name: 'b', ip: '1.1.1.2' }, () => draws.shift()!, 2).state;
    expect([s2.clusterID, ...s2.members.map((m) => m.id)]).toEqual(['5', '5', '6']);
    expect(randomUint64()).toMatch(/^\d+$/);
    expect(BigInt(randomUint64())).toBeLessThan(2n ** 64n);
  });

  it('a host joining again (re-registered, updated in place) changes nothing; a host back after going runs again', () => {
    const s = cluster(['cp-1', 'cp-2']);
    expect(joinMember(s, { name: 'cp-2', ip: 'x' }, sequence(50), 9).changed).toBe(false);
    const gone = hostGone(s, 'cp-2');
    const back = joinMember(gone, { name: 'cp-2', ip: 'x' }, sequence(50), 9);
    expect(back.changed).toBe(true);
    expect(back.member).toMatchObject({ id: '12', name: 'cp-2' });
    expect(back.member.down).toBeUndefined();
  });
});

describe('member list and status', () => {
  it('lists every member that was not removed, also those whose host is gone (a member until removed)', () => {
    const s = hostGone(cluster(['cp-1', 'cp-2', 'cp-3']), 'cp-3');
    expect(memberList(s, 'cp-1').members.map((m) => [m.ID, m.name, m.isLearner])).toEqual([
      ['11', 'cp-1', false],
      ['12', 'cp-2', false],
      ['13', 'cp-3', false],
    ]);
    expect(memberList(s, 'cp-2').header).toMatchObject({ cluster_id: '10', member_id: '12' });
  });

  it('a member whose host is gone or that never joined answers as a stopped server', () => {
    const s = hostGone(cluster(['cp-1', 'cp-2']), 'cp-2');
    expect(rpcError(() => memberList(s, 'cp-2'))).toMatchObject({
      code: GRPC_UNAVAILABLE,
      message: 'etcdserver: server stopped',
    });
    expect(rpcError(() => status(undefined, 'cp-9')).code).toBe(GRPC_UNAVAILABLE);
  });

  it('Status lists the active alarms in errors', () => {
    let s = cluster(['cp-1']);
    s = alarm(s, 'cp-1', { action: 'ACTIVATE', memberID: '11', alarm: 'NOSPACE' }).state;
    expect(status(s, 'cp-1').errors).toEqual(['memberID:11 alarm:NOSPACE ']);
  });
});

describe('leadership (upstream leader-from)', () => {
  it('when the leader goes, the running member that led last before it leads again', () => {
    let s = cluster(['cp-1', 'cp-2', 'cp-3']);
    s = moveLeader(s, 'cp-1', '12', 5000).state;
    expect(leaderOf(s)).toBe('12');
    expect(leaderOf(hostGone(s, 'cp-2'))).toBe('11');
  });

  it('when no running member ever led, raft elects one while a quorum runs; without quorum there is no leader', () => {
    const s = cluster(['cp-1', 'cp-2', 'cp-3']);
    expect(leaderOf(hostGone(s, 'cp-1'))).toBe('12');
    expect(leaderOf(hostGone(hostGone(s, 'cp-1'), 'cp-2'))).toBe('0');
    expect(status(hostGone(hostGone(s, 'cp-1'), 'cp-2'), 'cp-3').leader).toBe('0');
  });

  it('MoveLeader: moves to a running member; a second move within the same millisecond still wins', () => {
    let s = cluster(['cp-1', 'cp-2', 'cp-3']);
    s = moveLeader(s, 'cp-1', '13', 1000).state;
    s = moveLeader(s, 'cp-3', '12', 1000).state;
    expect(leaderOf(s)).toBe('12');
    const same = moveLeader(s, 'cp-2', '12', 1000);
    expect(same.changed).toBe(false);
    expect(same.response.header.member_id).toBe('12');
  });

  it("MoveLeader errors as etcd's: not sent to the leader, unknown or stopped target", () => {
    const s = hostGone(cluster(['cp-1', 'cp-2', 'cp-3']), 'cp-3');
    expect(rpcError(() => moveLeader(s, 'cp-2', '11', 1))).toMatchObject({
      code: GRPC_FAILED_PRECONDITION,
      message: 'etcdserver: not leader',
    });
    for (const target of ['99', '13'])
      expect(rpcError(() => moveLeader(s, 'cp-1', target, 1))).toMatchObject({
        code: GRPC_FAILED_PRECONDITION,
        message: 'etcdserver: bad leader transferee',
      });
  });
});

describe('MemberRemove', () => {
  // upstream handler_test.go Test_etcd_scalingflow: MoveLeader then MemberRemove, as KCP does on scale down.
  it('scaling flow: move leader to 3, remove 2; 2 answers errors, 3 leads a cluster of two', () => {
    let s = cluster(['1', '2', '3']);
    s = moveLeader(s, '1', idOf(s, '3'), 2000).state;
    s = removeMember(s, '1', idOf(s, '2')).state;
    expect(rpcError(() => memberList(s, '2'))).toMatchObject({
      code: GRPC_UNKNOWN,
      message: 'inspect called on etcd which has been removed',
    });
    expect(status(s, '3').leader).toBe(idOf(s, '3'));
    expect(memberList(s, '3').members.map((m) => m.name)).toEqual(['1', '3']);
  });

  it('answers the members left; a removed member goes with its host, a down one at once', () => {
    let s = hostGone(cluster(['cp-1', 'cp-2', 'cp-3', 'cp-4']), 'cp-4');
    const out = removeMember(s, 'cp-1', '14');
    expect(out.response.members.map((m) => m.name)).toEqual(['cp-1', 'cp-2', 'cp-3']);
    expect(out.state.members.map((m) => m.name)).toEqual(['cp-1', 'cp-2', 'cp-3']);
    s = removeMember(out.state, 'cp-1', '13').state;
    expect(s.members.find((m) => m.name === 'cp-3')?.removed).toBe(true);
    expect(hostGone(s, 'cp-3').members.map((m) => m.name)).toEqual(['cp-1', 'cp-2']);
  });

  it('removing the leader: the member that led before it leads', () => {
    let s = cluster(['cp-1', 'cp-2', 'cp-3']);
    s = moveLeader(s, 'cp-1', '12', 5000).state;
    s = removeMember(s, 'cp-2', '12').state;
    expect(leaderOf(s)).toBe('11');
  });

  it("errors as etcd's: unknown or already removed member, the last member, a quorum that would not run", () => {
    const s = cluster(['cp-1', 'cp-2', 'cp-3']);
    const removed = removeMember(s, 'cp-1', '13').state;
    for (const [state, id] of [
      [s, '99'],
      [removed, '13'],
    ] as const)
      expect(rpcError(() => removeMember(state, 'cp-1', id))).toMatchObject({
        code: GRPC_NOT_FOUND,
        message: 'etcdserver: member not found',
      });
    expect(rpcError(() => removeMember(cluster(['cp-1']), 'cp-1', '11'))).toMatchObject({
      code: GRPC_FAILED_PRECONDITION,
      message: 'etcdserver: re-configuration failed due to not enough started members',
    });
    // 3 members, one down: removing a running one would leave 1 running of the 2 needed.
    const oneDown = hostGone(s, 'cp-3');
    expect(rpcError(() => removeMember(oneDown, 'cp-1', '12'))).toMatchObject({
      code: GRPC_UNAVAILABLE,
      message: 'etcdserver: unhealthy cluster',
    });
    // ...while the down one can go.
    expect(removeMember(oneDown, 'cp-1', '13').response.members).toHaveLength(2);
  });
});

describe('Alarm (etcd apply.go Alarm, the alarm store)', () => {
  it('GET lists by type (none: all); ACTIVATE raises once and answers it; DEACTIVATE answers only a raised one', () => {
    let s = cluster(['cp-1', 'cp-2']);
    const raise = alarm(s, 'cp-2', { action: 'ACTIVATE', memberID: '11', alarm: 'NOSPACE' });
    expect(raise.response.alarms).toEqual([{ memberID: '11', alarm: 'NOSPACE' }]);
    s = raise.state;
    const again = alarm(s, 'cp-1', { action: 'ACTIVATE', memberID: '11', alarm: 'NOSPACE' });
    expect([again.changed, again.response.alarms]).toEqual([false, [{ memberID: '11', alarm: 'NOSPACE' }]]);
    s = alarm(s, 'cp-1', { action: 'ACTIVATE', memberID: '12', alarm: 'CORRUPT' }).state;
    expect(alarm(s, 'cp-1', { action: 'GET', memberID: '0' }).response.alarms).toHaveLength(2);
    expect(alarm(s, 'cp-1', { action: 'GET', memberID: '0', alarm: 'CORRUPT' }).response.alarms).toEqual([
      { memberID: '12', alarm: 'CORRUPT' },
    ]);
    const off = alarm(s, 'cp-1', { action: 'DEACTIVATE', memberID: '11', alarm: 'NOSPACE' });
    expect(off.response.alarms).toEqual([{ memberID: '11', alarm: 'NOSPACE' }]);
    expect(
      alarm(off.state, 'cp-1', { action: 'DEACTIVATE', memberID: '11', alarm: 'NOSPACE' }).response.alarms,
    ).toEqual([]);
    expect(off.state.alarms).toEqual([{ memberID: '12', alarm: 'CORRUPT' }]);
  });
});
