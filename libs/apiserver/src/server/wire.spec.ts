import { hasCachedFrame, watchEncoding } from './wire';

describe('watch frames', () => {
  const object = (name: string) =>
    Object.freeze({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: Object.freeze({ name }),
      data: Object.freeze({ k: name }),
    });

  it('encodes an event once for every watcher of it', () => {
    const a = object('a');
    const first = watchEncoding('json').frame({ type: 'MODIFIED', object: a });
    const second = watchEncoding('json').frame({ type: 'MODIFIED', object: a });
    expect(second).toBe(first);
    expect(first).toBe(`{"type":"MODIFIED","object":${JSON.stringify(a)}}\n`);
  });

  it('keeps no frame of an object once later events were framed (no second copy of every stored object)', () => {
    const a = object('a');
    const { frame } = watchEncoding('json');
    frame({ type: 'MODIFIED', object: a });
    expect(hasCachedFrame(a)).toBe(true);
    for (let i = 0; i < 100; i++) frame({ type: 'MODIFIED', object: object(`o${i}`) });
    expect(hasCachedFrame(a)).toBe(false);
  });
});
