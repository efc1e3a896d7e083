import { planKubelets, shutdownEndsAt } from './kubelet';
import { node, pod, snapshot } from './test-fixtures';

const at = (iso: string) => Date.parse(iso);

describe('shutdownEndsAt', () => {
  it('is when the kubelet saw the deletion plus the simulated shutdown, at most the grace period', () => {
    const p = pod('p', 'a', { deletionTimestamp: '2026-01-01T00:00:30Z', grace: 30 });
    expect(shutdownEndsAt(p, 5000, 1000)).toBe(6000);
    const short = pod('p', 'a', { deletionTimestamp: '2026-01-01T00:00:02Z', grace: 2 });
    expect(shutdownEndsAt(short, 5000, 5000)).toBe(7000);
  });
});

describe('planKubelets', () => {
  const terminating = pod('t', 'a', { deletionTimestamp: '2026-01-01T00:00:30Z', grace: 30 });

  it('waits for a terminating Pod to shut down, then deletes it with grace 0', () => {
    const s = snapshot({ nodes: [node('a')], pods: [terminating] });
    const first = planKubelets(s, 500, new Map(), 1000);
    expect(first).toEqual({ actions: [], wakeAt: 1500, terminatingSince: new Map([['uid-t', 500]]) });
    expect(planKubelets(s, 1400, first.terminatingSince, 1000).actions).toEqual([]);
    const done = planKubelets(s, 1500, first.terminatingSince, 1000);
    expect(done.actions).toEqual([
      { op: 'delete', ref: expect.objectContaining({ name: 't' }), uid: 'uid-t', force: true },
    ]);
    expect(done.terminatingSince.size).toBe(0);
  });

  it('force-deletes the Pods of a Node that is gone (Pod GC), mirror Pods too', () => {
    const s = snapshot({ nodes: [], pods: [pod('p', 'gone'), pod('m', 'gone', { mirror: true })] });
    expect(planKubelets(s, 0, new Map(), 1000).actions.map((a) => [a.op, (a as { force?: boolean }).force])).toEqual([
      ['delete', true],
      ['delete', true],
    ]);
  });

  it('starts a new Pod: Running, Ready as its Node, with host and Pod IPs', () => {
    const fresh = { ...pod('p', 'a'), status: {} };
    const [action] = planKubelets(snapshot({ nodes: [node('a')], pods: [fresh] }), 0, new Map(), 1000).actions;
    expect(action).toMatchObject({
      op: 'status',
      status: {
        phase: 'Running',
        hostIP: '10.0.0.1',
        podIP: expect.stringMatching(/^10\.244\./),
        conditions: expect.arrayContaining([{ type: 'Ready', status: 'True', lastTransitionTime: expect.any(String) }]),
        containerStatuses: [expect.objectContaining({ name: 'c', ready: true })],
      },
    });
  });

  it('marks Pods of a Node that is not ready not ready, and leaves running Pods alone', () => {
    const s = snapshot({ nodes: [node('a', { ready: false }), node('b')], pods: [pod('p', 'a'), pod('q', 'b')] });
    const actions = planKubelets(s, 0, new Map(), 1000).actions;
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      ref: { name: 'p' },
      status: {
        conditions: expect.arrayContaining([
          { type: 'Ready', status: 'False', lastTransitionTime: expect.any(String) },
        ]),
      },
    });
  });

  it('leaves mirror Pods, finished and unscheduled Pods alone', () => {
    const pods = [
      { ...pod('m', 'a', { mirror: true }), status: {} },
      pod('done', 'a', { phase: 'Succeeded' }),
      { ...pod('pending', undefined), status: {} },
      pod('mt', 'a', { mirror: true, deletionTimestamp: '2026-01-01T00:00:00Z' }),
    ];
    expect(
      planKubelets(snapshot({ nodes: [node('a')], pods }), at('2027-01-01T00:00:00Z'), new Map(), 0).actions,
    ).toEqual([]);
  });
});
