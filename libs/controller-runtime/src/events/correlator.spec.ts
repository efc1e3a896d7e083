import { AGGREGATED_MESSAGE_PREFIX, EventCorrelator, formatEventTime, type CoreEvent } from './correlator';

describe('EventCorrelator (client-go EventCorrelator semantics)', () => {
  let t = 0;
  const now = () => new Date(Date.UTC(2026, 0, 1) + t);
  let seq = 0;
  const ev = (over: { name?: string; reason?: string; message?: string; type?: string } = {}): CoreEvent => ({
    metadata: { name: `m.${seq++}`, namespace: 'default' },
    involvedObject: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      name: over.name ?? 'm',
      namespace: 'default',
      uid: `${over.name ?? 'm'}-uid`,
    },
    reason: over.reason ?? 'Started',
    message: over.message ?? 'starting',
    type: over.type ?? 'Normal',
    source: { component: 'test' },
    firstTimestamp: formatEventTime(now()),
    lastTimestamp: formatEventTime(now()),
    count: 1,
  });
  beforeEach(() => {
    t = 0;
  });

  it('the same event again is a patch of count and lastTimestamp on the first Event, firstTimestamp kept', () => {
    const c = new EventCorrelator({ now });
    const first = c.correlate(ev());
    if (first.skip) throw new Error('skipped');
    expect(first.patch).toBeUndefined();
    c.updateState(first.key, { ...first.event, metadata: { ...first.event.metadata, resourceVersion: '7' } });
    t = 5_000;
    const second = c.correlate(ev());
    if (second.skip) throw new Error('skipped');
    expect(second.event.metadata).toEqual({
      name: first.event.metadata.name,
      namespace: 'default',
      resourceVersion: '7',
    });
    expect(second.patch).toEqual({ count: 2, lastTimestamp: formatEventTime(now()), message: 'starting' });
    expect(second.event.firstTimestamp).toBe(first.event.firstTimestamp);
    const third = c.correlate(ev());
    expect(!third.skip && third.patch?.count).toBe(3);
  });

  it('events differing by object, reason or type are separate Events', () => {
    const c = new EventCorrelator({ now });
    for (const e of [ev(), ev({ name: 'other' }), ev({ reason: 'Other' }), ev({ type: 'Warning' })]) {
      const r = c.correlate(e);
      expect(!r.skip && r.patch).toBeUndefined();
    }
  });

  it('the 10th distinct message of one reason within 10 minutes starts one combined Event, then counted', () => {
    const c = new EventCorrelator({ now });
    for (let i = 0; i < 9; i++)
      expect(c.correlate(ev({ message: `msg ${i}` }))).toMatchObject({ skip: false, event: { message: `msg ${i}` } });
    const tenth = c.correlate(ev({ message: 'msg 9' }));
    if (tenth.skip) throw new Error('skipped');
    expect(tenth.event.message).toBe(`${AGGREGATED_MESSAGE_PREFIX}msg 9`);
    expect(tenth.patch).toBeUndefined();
    const eleventh = c.correlate(ev({ message: 'msg 10' }));
    if (eleventh.skip) throw new Error('skipped');
    expect(eleventh.event.metadata.name).toBe(tenth.event.metadata.name);
    expect(eleventh.patch).toEqual({
      count: 2,
      lastTimestamp: formatEventTime(now()),
      message: `${AGGREGATED_MESSAGE_PREFIX}msg 10`,
    });
  });

  it('after 10 quiet minutes the distinct messages are counted afresh', () => {
    const c = new EventCorrelator({ now });
    for (let i = 0; i < 9; i++) c.correlate(ev({ message: `msg ${i}` }));
    t = 600_001;
    expect(c.correlate(ev({ message: 'msg 9' }))).toMatchObject({ skip: false, event: { message: 'msg 9' } });
  });

  it('a source may send 25 events about one object, then one per 5 minutes', () => {
    const c = new EventCorrelator({ now });
    for (let i = 0; i < 25; i++) expect(c.correlate(ev()).skip).toBe(false);
    expect(c.correlate(ev()).skip).toBe(true);
    expect(c.correlate(ev({ name: 'other' })).skip).toBe(false); // another object has its own budget
    t = 299_000;
    expect(c.correlate(ev()).skip).toBe(true);
    t = 300_000;
    expect(c.correlate(ev()).skip).toBe(false);
    expect(c.correlate(ev()).skip).toBe(true);
  });
});
