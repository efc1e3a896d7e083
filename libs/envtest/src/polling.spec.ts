import { eventually, settle, type ControllerQueues } from './polling';

describe('eventually', () => {
  it('returns the first truthy value, retrying falsy results and thrown errors', async () => {
    let calls = 0;
    const v = await eventually(
      () => {
        calls++;
        if (calls === 1) throw new Error('not yet');
        return calls >= 3 ? { calls } : undefined;
      },
      { message: 'three calls', intervalMs: 1 },
    );
    expect(v).toEqual({ calls: 3 });
  });

  it('treats 0, empty string, null and false as not yet', async () => {
    const results: unknown[] = [0, '', null, false, 'done'];
    let i = 0;
    expect(await eventually(() => results[i++] as string, { message: 'done', intervalMs: 1 })).toBe('done');
    expect(i).toBe(5);
  });

  it('times out naming what it waited for and the last error', async () => {
    await expect(
      eventually(
        () => {
          throw new Error('boom');
        },
        { message: 'the widget', timeoutMs: 30, intervalMs: 5 },
      ),
    ).rejects.toThrow('timed out waiting for the widget: boom');
    await expect(eventually(async () => false, { message: 'nothing', timeoutMs: 30, intervalMs: 5 })).rejects.toThrow(
      /^timed out waiting for nothing$/,
    );
  });

  it('types the result without the falsy alternatives of the check', async () => {
    const obj = { name: 'm' } as { name: string } | undefined;
    let calls = 0;
    const got: { name: string } = await eventually(async () => (++calls > 1 ? 'ready' : '') && obj, {
      message: 'ready',
      intervalMs: 1,
    });
    expect(got.name).toBe('m');
  });

  it('accepts just a message (defaults: 10 s timeout, 20 ms interval)', async () => {
    let calls = 0;
    expect(await eventually(() => ++calls === 2, 'second call')).toBe(true);
  });
});

/** A controller whose queue drains one item per poll. */
function fakeManager(pending: Record<string, number>): ControllerQueues {
  return {
    controller: (name) =>
      name in pending
        ? { queue: { len: () => (pending[name] > 0 ? pending[name]-- : 0), processingCount: () => 0 } }
        : undefined,
  };
}

describe('settle', () => {
  it('returns once every named controller has been idle for quietMs', async () => {
    const pending = { a: 3, b: 1 };
    await settle(fakeManager(pending), ['a', 'b'], { quietMs: 20 });
    expect(pending).toEqual({ a: 0, b: 0 });
  });

  it('fails when a controller stays busy or does not exist', async () => {
    const busy: ControllerQueues = { controller: () => ({ queue: { len: () => 0, processingCount: () => 1 } }) };
    await expect(settle(busy, ['a'], { quietMs: 10, timeoutMs: 50 })).rejects.toThrow(
      'controller(s) a did not settle within 50 ms',
    );
    await expect(settle(fakeManager({}), ['missing'], { quietMs: 10, timeoutMs: 50 })).rejects.toThrow(
      'controller(s) missing did not settle',
    );
  });
});
