import { windowFigures, type ProbeSample } from './write-probe';

const ok = (start: number, ms = 10): ProbeSample => ({ start, end: start + ms, ok: true });
const failed = (start: number, ms: number, error: string): ProbeSample => ({
  start,
  end: start + ms,
  ok: false,
  error,
});

describe('windowFigures', () => {
  it('steady writes: the gap is the period, nothing failed', () => {
    const samples = [0, 250, 500, 750, 1000].map((t) => ok(t));
    expect(windowFigures(samples, 240, 1100)).toEqual({
      writes: 4,
      failed: 0,
      longestGapMs: 250,
      recoveryMs: 20,
      slowestMs: 10,
      errors: [],
    });
  });

  it('a leader kill: a write stuck on the old leader does not hide that later ones succeed', () => {
    const samples = [
      ok(0),
      failed(250, 7000, '500 etcdserver: request timed out'),
      failed(500, 100, '500 etcdserver: leader changed'),
      ok(750, 1250),
      ok(1000, 20),
    ];
    expect(windowFigures(samples, 200, 3000)).toEqual({
      writes: 4,
      failed: 2,
      longestGapMs: 1020 - 10,
      recoveryMs: 1020 - 200,
      slowestMs: 7000,
      errors: [
        ['500 etcdserver: request timed out', 1],
        ['500 etcdserver: leader changed', 1],
      ],
    });
  });

  it('writes still failing at the end of the window: the gap runs to the last answer, no recovery', () => {
    const samples = [
      ok(0),
      failed(250, 5000, 'no answer within 5000 ms'),
      failed(500, 5000, 'no answer within 5000 ms'),
    ];
    expect(windowFigures(samples, 100, 10_000)).toMatchObject({
      longestGapMs: 5500 - 10,
      failed: 2,
      errors: [['no answer within 5000 ms', 2]],
    });
    expect(windowFigures(samples, 100, 10_000).recoveryMs).toBeUndefined();
    expect(windowFigures(samples, 100, 2000).longestGapMs).toBe(2000 - 10);
  });
});
