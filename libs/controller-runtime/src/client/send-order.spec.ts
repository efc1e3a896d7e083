import { SendOrder } from './send-order';

describe('SendOrder', () => {
  it("builds one object's writes in call order, a late builder holding back the writes called after it", async () => {
    const order = new SendOrder();
    const built: string[] = [];
    let letFirstGo!: () => void;
    const firstMayBuild = new Promise<void>((r) => (letFirstGo = r));
    const first = order.enter('a', async () => {
      await firstMayBuild;
      built.push('first');
      return 1;
    });
    const second = order.enter('a', 2);
    const other = order.enter('b', 3);

    const secondBody = second.body().then((b) => (built.push('second'), b));
    expect(await other.body()).toBe(3); // another object: not held back
    await new Promise((r) => setTimeout(r, 10));
    expect(built).toEqual([]);
    const firstBody = first.body();
    letFirstGo();
    expect(await Promise.all([firstBody, secondBody])).toEqual([1, 2]);
    expect(built).toEqual(['first', 'second']);
    for (const q of [first, second, other]) q.done();
    expect(order.size).toBe(0);
  });

  it('a write that ends without being built (refused before sending, failed builder) lets the next one go', async () => {
    const order = new SendOrder();
    const never = order.enter('a', 1);
    const failing = order.enter('a', async () => {
      throw new Error('no body');
    });
    const next = order.enter('a', 3);
    never.done(); // e.g. the fence refused it: its body is never asked for
    await expect(failing.body()).rejects.toThrow('no body');
    expect(await next.body()).toBe(3);
    next.done();
    expect(order.size).toBe(0);
  });
});
