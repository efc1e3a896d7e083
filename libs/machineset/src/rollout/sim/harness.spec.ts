import { describeFirstDifference, findRepoRoot } from './goldens';
import { FileLogger, LogLimitExceededError } from './logger';
import { randomTaskOrder, runRolloutSimulation, simulateRollout } from './simulate';
import { GoRand } from './gorand';
import { heldOutScenarios } from './scenarios';
import * as path from 'path';

describe('FileLogger', () => {
  it('writes the header, single lines and indents continuation lines unless they start with "["', () => {
    const l = new FileLogger('Name');
    l.log('one');
    l.log('two\n');
    l.log('[A] head\n  x\n[B] y\n');
    expect(l.toString()).toBe('## Name\n\none\ntwo\n[A] head\n    x\n[B] y\n');
  });
});

describe('FileLogger bounds', () => {
  it('streams to a sink without keeping the log, chunk by chunk in the same format', () => {
    const chunks: string[] = [];
    const streamed = new FileLogger('Name', { sink: (c) => chunks.push(c) });
    const kept = new FileLogger('Name');
    for (const l of [streamed, kept]) {
      l.log('one');
      l.log('[A] head\n  x\n[B] y\n');
    }
    expect(chunks.join('')).toBe(kept.toString());
    expect(chunks).toEqual(['## Name\n\n', 'one\n', '[A] head\n    x\n[B] y\n']);
    expect(streamed.toString()).toBe('');
    expect(streamed.length).toBe(kept.length);
    expect(streamed.streamed).toBe(true);
  });

  it('refuses to keep more than maxChars in memory, with a clear error, and keeps what fitted', () => {
    const l = new FileLogger('N', { maxChars: 12 });
    l.log('12345'); // "## N\n\n" (6) + "12345\n" (6) = 12
    expect(() => l.log('x')).toThrow(LogLimitExceededError);
    expect(() => l.log('x')).toThrow('rollout log longer than 12 characters: stream it with the onLog option');
    expect(l.toString()).toBe('## N\n\n12345\n');
  });
});

describe('large rollouts', () => {
  // The log grows with replicas x iterations (every MD step prints every Machine): a 10,000-replica maxSurge-1 run
  // writes gigabytes and used to die in one string join with "RangeError: Invalid string length".
  const large = { replicas: 60, maxSurge: 1, maxUnavailable: 0, maxIterations: 1000 };

  it('fails cleanly, not with a RangeError, when the in-memory log would exceed its bound', () => {
    const r = runRolloutSimulation({ ...large, maxLogChars: 20_000 });
    expect(r.converged).toBe(false);
    expect(r.error).toBe(
      'rollout log longer than 20000 characters: stream it with the onLog option instead of keeping it in memory',
    );
    expect(r.log.length).toBeLessThanOrEqual(20_000);
    expect(
      r.log.startsWith('## Regular rollout, 60 Replicas, maxSurge 1, maxUnavailable 0\n\n[Test] Initial state\n'),
    ).toBe(true);
  });

  it('streams the whole log of a run far larger than the in-memory bound and keeps none of it', () => {
    const inMemory = runRolloutSimulation(large);
    expect(inMemory.converged).toBe(true);
    let streamed = '';
    let chunks = 0;
    const r = runRolloutSimulation({
      ...large,
      maxLogChars: 20_000, // not used when streaming
      onLog: (c) => {
        streamed += c;
        chunks++;
      },
    });
    expect(r.error).toBeUndefined();
    expect(r.converged).toBe(true);
    expect(r.log).toBe('');
    expect(r.logLength).toBe(streamed.length);
    expect(streamed.length).toBeGreaterThan(5 * 20_000);
    expect(streamed).toBe(inMemory.log);
    expect(chunks).toBeGreaterThan(100);
  });
});

describe('describeFirstDifference', () => {
  it('is undefined for equal strings and points at the first differing line otherwise', () => {
    expect(describeFirstDifference('a\nb\n', 'a\nb\n')).toBeUndefined();
    const d = describeFirstDifference('a\nb\nc\n', 'a\nB\nc\n');
    expect(d).toContain('first difference at line 2');
    expect(d).toContain('expected: "b"');
    expect(d).toContain('actual:   "B"');
    expect(describeFirstDifference('a\n', 'a\nextra\n')).toContain('expected: ""');
  });
});

describe('findRepoRoot', () => {
  it('finds the folder with nx.json', () => {
    expect(findRepoRoot(__dirname)).toBe(path.resolve(__dirname, '../../../../..'));
  });
  it('fails clearly when there is none', () => {
    expect(() => findRepoRoot('/')).toThrow(/no nx.json found/);
  });
});

describe('randomTaskOrder', () => {
  it('is deterministic for a seed and only yields valid task indexes', () => {
    const a = randomTaskOrder(5, new GoRand(0));
    expect(randomTaskOrder(5, new GoRand(0))).toEqual(a);
    expect(a.every((t) => t >= 0 && t < 5)).toBe(true);
  });
});

describe('simulateRollout (unknown scenarios)', () => {
  it('converges for a scenario without golden file and respects surge and unavailability limits', () => {
    const r = runRolloutSimulation({ replicas: 5, maxSurge: 2, maxUnavailable: 1, inPlace: true });
    expect(r.error).toBeUndefined();
    expect(r.converged).toBe(true);
    expect(r.log).toMatch(/\[Test\] Final state\n {4}md: 5\/5 replicas, 5 available, 5 upToDate\n/);
  });

  it('converges with a random seed and OnDelete', () => {
    expect(simulateRollout({ strategy: 'OnDelete', replicas: 4, maxUserUnavailable: 2, randomSeed: 7 })).toContain(
      '[Test] Final state',
    );
  });

  it('reports non-convergence with the partial log', () => {
    // maxUserUnavailable 0 means the user never deletes, so an OnDelete rollout cannot finish.
    const r = runRolloutSimulation({ strategy: 'OnDelete', replicas: 2, maxUserUnavailable: 0, maxIterations: 3 });
    expect(r.converged).toBe(false);
    expect(r.error).toBe('not converged after 3 iterations');
    expect(r.log).toContain('[Test] Desired state');
    expect(() =>
      simulateRollout({ strategy: 'OnDelete', replicas: 2, maxUserUnavailable: 0, maxIterations: 3 }),
    ).toThrow(/rollout simulation failed/);
  });

  it('rejects invalid replicas', () => {
    expect(() => runRolloutSimulation({ replicas: -1 })).toThrow(RangeError);
  });
});

describe('rollout limit checks', () => {
  const scaleUp = heldOutScenarios.find((s) =>
    s.name?.startsWith('Regular rollout, 6 Replicas, maxSurge 3, maxUnavailable 1, scale up to 12'),
  )!;

  it('logs a toleration line when a breach is tolerated', () => {
    const r = runRolloutSimulation(scaleUp);
    expect(r.converged).toBe(true);
    expect(r.log).toContain('\n[Toleration] tolerate maxUnavailable breach\n');
  });

  it('counts each MachineSet as max(spec, status) replicas for maxSurge, like upstream TotalMachineSetsReplicaSum', () => {
    // MD scaled 12 -> 6: the first MD step scales ms1 9 -> 2 while its 9 Machines still exist, so
    // max(spec, status) is 9 + 3 = 12 > 6 + 3 although the spec replicas only add up to 5.
    const scaleDown = heldOutScenarios.find(
      (s) => s.name === 'Regular rollout, 12 Replicas, maxSurge 3, maxUnavailable 1, scale down to 6',
    )!;
    const r = runRolloutSimulation({ ...scaleDown, tolerateMaxSurgeBreach: false });
    expect(r.converged).toBe(false);
    expect(r.iterations).toBe(1);
    expect(r.error).toBe('maxSurge breached: 12 replicas > 6 + 3');
    const tolerated = runRolloutSimulation(scaleDown);
    expect(tolerated.converged).toBe(true);
    expect(tolerated.log).toMatch(
      /^ {4}ms1: from 9\/9 to 9\/2 replicas.*\n(?: .*\n)*\[Toleration\] tolerate maxSurge breach\n/m,
    );
  });

  it('fails the run on an untolerated breach', () => {
    const r = runRolloutSimulation({ ...scaleUp, tolerateMaxUnavailableBreach: false });
    expect(r.converged).toBe(false);
    expect(r.error).toMatch(/^maxUnavailable breached: \d+ available < 11 minimum$/);
  });
});
