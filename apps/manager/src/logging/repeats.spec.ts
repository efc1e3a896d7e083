import { RepeatFilter } from './repeats';

function setup(windowMs = 1000) {
  let t = 0;
  const out: string[] = [];
  const filter = new RepeatFilter({ write: (l: string) => void out.push(l) }, { windowMs, now: () => t });
  const rec = (fields: Record<string, unknown>) =>
    filter.write(`${JSON.stringify({ level: 'info', time: new Date(t).toISOString(), ...fields })}\n`);
  return {
    filter,
    rec,
    lines: out,
    advance: (ms: number) => void (t += ms),
    records: () => out.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const waiting = (reconcileID: string) => ({
  msg: 'waiting for owning controller to mark UpdateMachine hook as pending',
  controller: 'machine',
  Machine: { name: 'm1', namespace: 'default' },
  reconcileID,
});

describe('RepeatFilter', () => {
  afterEach(() => jest.useRealTimers());

  it('prints a burst of records equal but for time and reconcileID once, then one summary before the next record', () => {
    const { rec, advance, records } = setup();
    for (let i = 0; i < 13; i++) {
      rec(waiting(`r${i}`));
      advance(7);
    }
    rec({ msg: 'something else' });
    expect(records().map((r) => [r.msg, r.reconcileID, r.repeated])).toEqual([
      [waiting('').msg, 'r0', undefined],
      [waiting('').msg, 'r12', 12],
      ['something else', undefined, undefined],
    ]);
    expect(records()[1]).toMatchObject({ controller: 'machine', Machine: { name: 'm1', namespace: 'default' } });
  });

  it('writes the summary when the window ends, and a later identical record starts a new window', () => {
    jest.useFakeTimers();
    const { rec, advance, records } = setup(1000);
    rec(waiting('r0'));
    advance(100);
    rec(waiting('r1'));
    rec(waiting('r2'));
    expect(records()).toHaveLength(1);
    jest.advanceTimersByTime(899);
    expect(records()).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(records()[1]).toMatchObject({ reconcileID: 'r2', repeated: 2 });
    advance(2000);
    rec(waiting('r3'));
    expect(records()[2]).toMatchObject({ reconcileID: 'r3' });
    expect(records()[2].repeated).toBeUndefined();
  });

  it('prints an identical record after the window as a new one', () => {
    const { rec, advance, records } = setup(1000);
    rec(waiting('r0'));
    advance(1000);
    rec(waiting('r1'));
    expect(records().map((r) => r.reconcileID)).toEqual(['r0', 'r1']);
  });

  it('keeps records that differ in level, message or any other field', () => {
    const { rec, records } = setup();
    rec(waiting('r0'));
    rec({ ...waiting('r1'), level: 'warn' });
    rec({ ...waiting('r2'), Machine: { name: 'm2', namespace: 'default' } });
    rec({ ...waiting('r3'), msg: 'other' });
    expect(records()).toHaveLength(4);
  });

  it('never loses a folded error line: its summary carries the level, the error and the count', () => {
    const { filter, rec, records } = setup();
    const failed = (id: string) => ({ level: 'error', msg: 'Reconciler error', error: 'boom', reconcileID: id });
    rec(failed('r0'));
    rec(failed('r1'));
    filter.flush(); // what the process 'exit' hook does
    expect(records()).toEqual([
      expect.objectContaining({ level: 'error', error: 'boom', reconcileID: 'r0' }),
      expect.objectContaining({ level: 'error', error: 'boom', reconcileID: 'r1', repeated: 1 }),
    ]);
  });

  it('passes lines that are not JSON through, after any pending summary', () => {
    const { filter, rec, lines } = setup();
    rec(waiting('r0'));
    rec(waiting('r1'));
    filter.write('plain\n');
    expect(lines.map((l) => (l.startsWith('{') ? JSON.parse(l).repeated : l))).toEqual([undefined, 1, 'plain\n']);
  });
});
