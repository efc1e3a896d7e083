// One client's writes to one object leave in the order they were called. A write whose body is built late (a
// PatchBuilder waiting for earlier writes to reach the cache) would otherwise be overtaken by a write called after it,
// and be refused for the resourceVersion that write moved on. Only the sending is ordered: the answers are awaited
// concurrently.

export class SendOrder {
  /** Per object: settles once the last write called for it has been built (is being sent) or has ended. */
  private readonly last = new Map<string, Promise<void>>();

  /**
   * Joins the queue of `key`. `body` (a value or a builder) becomes a builder that first waits for the previous write
   * to `key` to be on its way; `done` lets the next one go and must be called when the request ends, sent or not.
   */
  enter(key: string, body: unknown): { body: () => Promise<unknown>; done: () => void } {
    const previous = this.last.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.last.set(key, mine);
    const done = () => {
      release();
      if (this.last.get(key) === mine) this.last.delete(key);
    };
    return {
      body: async () => {
        try {
          await previous;
          return typeof body === 'function' ? await (body as () => unknown)() : body;
        } finally {
          done();
        }
      },
      done,
    };
  }

  /** Objects with writes queued or on their way (tests). */
  get size(): number {
    return this.last.size;
  }
}
