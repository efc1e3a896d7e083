import { FakeClock } from '@capi/apimachinery/testing';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import { ServerSideApplier } from './applier';
import { IntentMemo, intentMemoKey } from './intent-memo';

/** A client whose apply answers with the intent at the next resourceVersion (what the request cache needs). */
function fakeClient(): Client & { applies: number } {
  let rv = 10;
  const c = {
    applies: 0,
    apply: async (obj: KubeObject) => {
      c.applies++;
      return { ...obj, metadata: { ...obj.metadata, uid: 'u1', resourceVersion: String(++rv) } };
    },
  };
  return c as unknown as Client & { applies: number };
}

const intent = (labels: Record<string, string>): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'ns', labels },
});
const key = (inputs: string) => ({ object: 'u1', inputs, kind: 'Machine' });

describe('IntentMemo', () => {
  it('answers only for the same object with the same inputs, and is bounded', () => {
    const memo = new IntentMemo(1);
    memo.remember(key('rv1/a'), 'id-1');
    expect(memo.requestIdFor(key('rv1/a'))).toBe('id-1');
    expect(memo.requestIdFor(key('rv2/a'))).toBeUndefined();
    expect(memo.requestIdFor(key('rv1/b'))).toBeUndefined();
    memo.remember({ object: 'u2', inputs: 'x', kind: 'Machine' }, 'id-2');
    expect(memo.size).toBe(1);
    expect(memo.requestIdFor(key('rv1/a'))).toBeUndefined();
  });
});

describe('ServerSideApplier.knownNoop', () => {
  const opts = { fieldOwner: 'capi-machineset' };

  /** Applies once (fills the request cache), then patches again with the applied object as original: a hit. */
  async function hitOnce(applier: ServerSideApplier, client: Client, inputs: string) {
    const applied = intent({ a: '1' });
    await applier.patch(client, applied, opts);
    const second = await applier.patch(client, intent({ a: '1' }), { ...opts, original: applied, memo: key(inputs) });
    expect(second.cacheHit).toBe(true);
    return applied;
  }

  it('is true after a cache hit recorded under the same key, false for other inputs', async () => {
    const applier = new ServerSideApplier({ clock: new FakeClock(1_000) });
    const client = fakeClient();
    await hitOnce(applier, client, 'rv11/a');
    expect(applier.knownNoop('capi-machineset', key('rv11/a'))).toBe(true);
    // A changed input (another resourceVersion, another template) is never served from the memo.
    expect(applier.knownNoop('capi-machineset', key('rv12/a'))).toBe(false);
    expect(applier.knownNoop('capi-machineset', key('rv11/b'))).toBe(false);
    expect(applier.knownNoop('other-controller', key('rv11/a'))).toBe(false);
  });

  it('is false once the request-cache entry expired (the request cache decides, as for patch)', async () => {
    const clock = new FakeClock(1_000);
    const applier = new ServerSideApplier({ clock, ttlMs: 100 });
    await hitOnce(applier, fakeClient(), 'rv11/a');
    clock.advance(101);
    expect(applier.knownNoop('capi-machineset', key('rv11/a'))).toBe(false);
  });

  it('a patch with the key that was not a hit forgets it', async () => {
    const applier = new ServerSideApplier({ clock: new FakeClock(1_000) });
    const client = fakeClient();
    const applied = await hitOnce(applier, client, 'rv11/a');
    const changed = await applier.patch(client, intent({ a: '2' }), {
      ...opts,
      original: applied,
      memo: key('rv11/a'),
    });
    expect(changed.cacheHit).toBe(false);
    expect(client.applies).toBe(2);
    expect(applier.knownNoop('capi-machineset', key('rv11/a'))).toBe(false);
  });
});

describe('intentMemoKey', () => {
  it('keys by uid with the resourceVersion in the inputs; by kind/namespace/name before the object has a uid', () => {
    expect(
      intentMemoKey(
        { kind: 'Machine', metadata: { uid: 'u1', name: 'm', namespace: 'ns', resourceVersion: '7' } },
        'x',
      ),
    ).toEqual({ object: 'u1', inputs: '7/x', kind: 'Machine' });
    expect(intentMemoKey({ kind: 'Machine', metadata: { name: 'm', namespace: 'ns' } }, 'x')).toEqual({
      object: 'Machine/ns/m',
      inputs: 'undefined/x',
      kind: 'Machine',
    });
  });
});
