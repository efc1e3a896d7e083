import { planKubelets, shutdownEndsAt } from './kubelet';
import { node, pod, snapshot } from './test-fixtures';

const at = (iso: string) => Date.parse(iso);

describe('shutdownEndsAt', () => {
  it('is the deletion request plus the simulated shutdown, at most the grace period', () => {
    // deletionTimestamp = request + grace.
    const p = pod('p', 'a', { deletionTimestamp: '2026-01-01T00:00:30Z', grace: 30 });
    expect(shutdownEndsAt(p, 1000)).toBe(at('2026-01-01T00:00:01Z'));
    const short = pod('p', 'a', { deletionTimestamp: '2026-01-01T00:00:02Z', grace: 2 });
    expect(shutdownEndsAt(short, 5000)).toBe(at('2026-01-01T00:00:02Z'));
  });
});

describe('planKubelets', () => {
  const terminating = pod('t', 'a', { deletionTimestamp: '2026-01-01T00:00:30Z', grace: 30 });

  it('waits for a terminating Pod to shut down, then deletes it with grace 0', () => {
    const s = snapshot({ nodes: [node('a')], pods: [terminating] });
    expect(planKubelets(s, at('2026-01-01T00:00:00.500Z'), 1000)).toEqual({
      actions: [],
      wakeAt: at('2026-01-01T00:00:01Z'),
    });
    expect(planKubelets(s, at('2026-01-01T00:00:01Z'), 1000).actions).toEqual([
      { op: 'delete', ref: expect.objectContaining({ name: 't' }), uid: 'uid-t', force: true },
    ]);
  });

  it('force-deletes the Pods of a Node that is gone (Pod GC), mirror Pods too', () => {
    const s = snapshot({ nodes: [], pods: [pod('p', 'gone'), pod('m', 'gone', { mirror: true })] });
    expect(planKubelets(s, 0, 1000).actions.map((a) => [a.op, (a as { force?: boolean }).force])).toEqual([
      ['delete', true],
      ['delete', true],
    ]);
  });

  it('starts a new Pod: Running, Ready as its Node, with host and Pod IPs', () => {
    const fresh = { ...pod('p', 'a'), status: {} };
    const [action] = planKubelets(snapshot({ nodes: [node('a')], pods: [fresh] }), 0, 1000).actions;
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
    const actions = planKubelets(s, 0, 1000).actions;
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
    expect(planKubelets(snapshot({ nodes: [node('a')], pods }), at('2027-01-01T00:00:00Z'), 0).actions).toEqual([]);
  });
});
