// The client certificate presented to extensions (mTLS), from PEM files that are reloaded when they change
// (upstream: --runtime-extension-client-cert-file/-key-file with controller-runtime's certwatcher).
import { readFileSync, unwatchFile, watchFile, type StatWatcher } from 'node:fs';
import { createSecureContext } from 'node:tls';

/** Optional client certificate presented to extensions (mTLS). */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/** A client certificate that may change; `version` changes with it (the transport then builds new connections). */
export interface ClientCertificateSource {
  current(): { certificate: ClientCertificate; version: number };
}

export class ClientCertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientCertificateError';
  }
}

function load(certFile: string, keyFile: string): ClientCertificate {
  let cert: string;
  let key: string;
  try {
    cert = readFileSync(certFile, 'utf8');
    key = readFileSync(keyFile, 'utf8');
  } catch (e) {
    throw new ClientCertificateError(`failed to read runtime extension client certificate: ${(e as Error).message}`);
  }
  try {
    // Parses both and checks that the key belongs to the certificate.
    createSecureContext({ cert, key });
  } catch (e) {
    throw new ClientCertificateError(
      `invalid runtime extension client certificate ${certFile} / key ${keyFile}: ${(e as Error).message}`,
    );
  }
  return { cert, key };
}

/**
 * How often the certificate files are checked. Not upstream's: controller-runtime's certwatcher reacts to fsnotify
 * events and re-reads every 10 s; polling mtimes this often costs a stat per file.
 */
const DEFAULT_POLL_INTERVAL_MS = 2_000;

export interface ClientCertificateFilesOptions {
  /** How often the files' mtime is checked. Default 2 s. */
  pollIntervalMs?: number;
  /** A reload that failed (e.g. cert and key written one after the other): the previous pair stays in use. */
  onReloadError?: (error: Error) => void;
  onReload?: (version: number) => void;
}

/** Loads cert + key at construction (a bad pair throws ClientCertificateError) and reloads them on change once started. */
export class ClientCertificateFiles implements ClientCertificateSource {
  private certificate: ClientCertificate;
  private version = 1;
  private watchers: StatWatcher[] = [];

  constructor(
    readonly certFile: string,
    readonly keyFile: string,
    private readonly opts: ClientCertificateFilesOptions = {},
  ) {
    this.certificate = load(certFile, keyFile);
  }

  current(): { certificate: ClientCertificate; version: number } {
    return { certificate: this.certificate, version: this.version };
  }

  /** Re-reads the files; keeps the previous pair when they are unreadable or do not match. */
  reload(): void {
    let next: ClientCertificate;
    try {
      next = load(this.certFile, this.keyFile);
    } catch (e) {
      this.opts.onReloadError?.(e as Error);
      return;
    }
    if (next.cert === this.certificate.cert && next.key === this.certificate.key) return;
    this.certificate = next;
    this.version++;
    this.opts.onReload?.(this.version);
  }

  start(): void {
    if (this.watchers.length) return;
    const interval = this.opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    // Polling (not fs.watch): survives the symlink swaps Kubernetes does when it updates a mounted Secret.
    for (const file of [this.certFile, this.keyFile]) {
      const w = watchFile(file, { interval, persistent: false }, () => this.reload());
      this.watchers.push(w);
    }
  }

  stop(): void {
    for (const file of [this.certFile, this.keyFile]) unwatchFile(file);
    this.watchers = [];
  }
}

/** A fixed certificate as a source (version never changes). */
export const staticClientCertificate = (certificate: ClientCertificate): ClientCertificateSource => ({
  current: () => ({ certificate, version: 1 }),
});
