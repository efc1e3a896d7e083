import { sleep } from '../clock/clock';
import { FakeClock } from './fake-clock';

describe('FakeClock', () => {
  it('moves only when advanced and formats RFC 3339 offsets', () => {
    const clock = new FakeClock(Date.parse('2026-03-01T10:00:00.500Z'));
    expect(clock.now()).toBe(Date.parse('2026-03-01T10:00:00.500Z'));
    clock.advance(1_500);
    expect(clock.at()).toBe('2026-03-01T10:00:02Z');
    expect(clock.at(-62)).toBe('2026-03-01T09:59:00Z');
    expect(new FakeClock().now()).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });

  it('fires due timers in time order when advanced, cancelled ones never', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 20);
    clock.setTimeout(() => {
      fired.push('a');
      clock.setTimeout(() => fired.push('a+5'), 5);
    }, 10);
    const cancelled = clock.setTimeout(() => fired.push('never'), 15);
    clock.clearTimeout(cancelled);
    clock.advance(9);
    expect(fired).toEqual([]);
    clock.advance(11);
    expect(fired).toEqual(['a', 'a+5', 'b']);
    expect(clock.now()).toBe(20);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('drives sleep()', async () => {
    const clock = new FakeClock();
    let done = false;
    const slept = sleep(clock, 1_000).then(() => (done = true));
    clock.advance(999);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await slept;
    expect(done).toBe(true);
  });
});
