import type { KubeObject } from '@capi/apimachinery';
import type { Client, WatchHandle } from '../client/types';

/**
 * A Client for informers without a server: lists `items` (copies, resourceVersion "10") and then watches quietly until
 * stopped. Enough for what a cache holds after its first sync (e.g. resync tests); every other method is absent.
 */
export function listOnlyClient(items: KubeObject[]): Client {
  return {
    list: async (apiVersion: string, kind: string) => ({
      apiVersion,
      kind: `${kind}List`,
      metadata: { resourceVersion: '10' },
      items: items.map((o) => structuredClone(o)),
    }),
    watch: async (): Promise<WatchHandle> => {
      let stop = () => {};
      const done = new Promise<void>((resolve) => (stop = resolve));
      return { stop, done };
    },
  } as unknown as Client;
}
