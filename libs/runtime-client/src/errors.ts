// Typed errors of the runtime client, so controllers can write conditions with a reason.

export type ExtensionCallErrorReason =
  /** The handler did not answer within its timeout. */
  | 'Timeout'
  /** Connection refused/reset, TLS failure (e.g. untrusted certificate), DNS... */
  | 'TransportError'
  /** The handler answered with a non-200 HTTP status. */
  | 'HttpStatus'
  /** The body is not JSON or not a valid response of the hook. */
  | 'MalformedResponse'
  /** The handler answered status: Failure. */
  | 'Failure'
  /** The body decoded but its status is neither Success nor Failure (or missing); not subject to failurePolicy. */
  | 'InvalidResponseStatus'
  /** No registration under that name, or it is for another hook. */
  | 'NotRegistered'
  /** The registration's namespaceSelector does not match the object. */
  | 'NamespaceMismatch'
  /** The registry has not been warmed up yet. */
  | 'NotReady'
  /** The client config cannot produce a valid URL. */
  | 'InvalidClientConfig'
  /** More handlers than the caller supports (in-place hooks: only one). */
  | 'MultipleHandlers';

/** Reasons that upstream calls "errors calling the extension handler": subject to failurePolicy Ignore. */
export const TRANSPORT_LEVEL_REASONS: readonly ExtensionCallErrorReason[] = [
  'Timeout',
  'TransportError',
  'HttpStatus',
  'MalformedResponse',
];

export class ExtensionCallError extends Error {
  constructor(
    readonly reason: ExtensionCallErrorReason,
    message: string,
    readonly details: { hook?: string; extension?: string; httpStatus?: number; cause?: unknown } = {},
  ) {
    super(message);
    this.name = 'ExtensionCallError';
  }
}

export const isExtensionCallError = (e: unknown, reason?: ExtensionCallErrorReason): e is ExtensionCallError =>
  e instanceof ExtensionCallError && (reason === undefined || e.reason === reason);

/** Discovery response / ExtensionConfig rejected. */
export class DiscoveryError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'DiscoveryError';
  }
}
