import { HookRetryCache } from './retry-cache';

class ManualClock {
  t = 10_000;
  now() {
    return this.t;
  }
}
const machine = { metadata: { uid: 'u1', name: 'm1', namespace: 'ns' } };

describe('HookRetryCache', () => {
  it('returns the remaining delay and message until the retry time, then nothing', () => {
    const clock = new ManualClock();
    const cache = new HookRetryCache(clock);
    cache.set(machine, 'UpdateMachine', 10, 'Extension is updating Machine');
    clock.t += 4_000;
    expect(cache.get(machine, 'UpdateMachine')).toEqual({
      remainingMs: 6_000,
      message: 'Extension is updating Machine',
    });
    clock.t += 6_000;
    expect(cache.get(machine, 'UpdateMachine')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is keyed by machine uid (else namespace/name) and hook', () => {
    const cache = new HookRetryCache(new ManualClock());
    cache.set(machine, 'UpdateMachine', 5);
    expect(cache.get({ metadata: { uid: 'u2', name: 'm1', namespace: 'ns' } }, 'UpdateMachine')).toBeUndefined();
    expect(cache.get(machine, 'OtherHook')).toBeUndefined();
    cache.set({ metadata: { name: 'm2', namespace: 'ns' } }, 'UpdateMachine', 5, 'x');
    expect(cache.get({ metadata: { name: 'm2', namespace: 'ns' } }, 'UpdateMachine')?.message).toBe('x');
    expect(cache.get({ metadata: { name: 'm2', namespace: 'other' } }, 'UpdateMachine')).toBeUndefined();
  });

  it('retryAfterSeconds 0 (done) clears the entry; delete() too; expired entries are purged on set', () => {
    const clock = new ManualClock();
    const cache = new HookRetryCache(clock);
    cache.set(machine, 'UpdateMachine', 5);
    cache.set(machine, 'UpdateMachine', 0);
    expect(cache.get(machine, 'UpdateMachine')).toBeUndefined();
    cache.set(machine, 'UpdateMachine', 5);
    cache.delete(machine, 'UpdateMachine');
    expect(cache.size).toBe(0);
    cache.set({ metadata: { uid: 'a' } }, 'UpdateMachine', 1);
    clock.t += 2_000;
    cache.set({ metadata: { uid: 'b' } }, 'UpdateMachine', 1);
    expect(cache.size).toBe(1);
  });
});
