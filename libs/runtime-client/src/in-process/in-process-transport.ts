// The extension transport with in-process dispatch: URLs of in-process registrations go to the updaters, the rest to
// the wrapped (HTTPS) transport.
import type { ExtensionTransport, PostOptions, TransportResponse } from '../transport';
import type { InProcessUpdaters } from './in-process-updaters';

export class InProcessAwareTransport implements ExtensionTransport {
  constructor(
    readonly inner: ExtensionTransport,
    private readonly updaters: InProcessUpdaters,
  ) {}

  post(url: URL, body: unknown, opts: PostOptions): Promise<TransportResponse> {
    return this.updaters.handles(url)
      ? this.updaters.dispatch(url, body, opts.timeoutMs)
      : this.inner.post(url, body, opts);
  }

  /** Closes the wrapped transport's idle connections (when it has any). */
  close(): void {
    (this.inner as { close?: () => void }).close?.();
  }
}
