import { benchStorage, managerLayoutFromEnv } from './rollout-targets';

describe('rollout bench layout', () => {
  it('runs the manager in a process of its own unless BENCH_MANAGER=in-process', () => {
    expect(managerLayoutFromEnv({})).toBe('process');
    expect(managerLayoutFromEnv({ BENCH_MANAGER: 'in-process' })).toBe('in-process');
    expect(() => managerLayoutFromEnv({ BENCH_MANAGER: 'thread' })).toThrow(
      'BENCH_MANAGER must be process or in-process, got thread',
    );
  });

  it("refuses the V8 profiles of the bench's process when the manager is not in it", () => {
    expect(() => managerLayoutFromEnv({ BENCH_CPU_PROFILE: '/tmp/p' })).toThrow(
      "BENCH_CPU_PROFILE act on the bench's own process: set BENCH_MANAGER=in-process",
    );
    expect(managerLayoutFromEnv({ BENCH_MANAGER: 'in-process', BENCH_HEAP_PROFILE: '/tmp/h' })).toBe('in-process');
  });

  it('storage: memory by default, sqlite on request, anything else refused', () => {
    expect(benchStorage({})).toBe('memory');
    expect(benchStorage({ BENCH_STORAGE: 'sqlite' })).toBe('sqlite');
    expect(() => benchStorage({ BENCH_STORAGE: 'disk' })).toThrow('BENCH_STORAGE must be memory or sqlite, got disk');
  });
});
