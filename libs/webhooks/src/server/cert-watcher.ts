// The serving certificate and key, read from files and re-read when they change, as controller-runtime's certwatcher
// (pkg/certwatcher/certwatcher.go): a cert-manager rotation of the mounted Secret takes effect without a restart.
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createSecureContext } from 'node:tls';

export interface ServingCertificate {
  cert: string;
  key: string;
}

/** certwatcher's defaultWatchInterval: the files are re-checked this often. */
export const DEFAULT_CERT_WATCH_INTERVAL_MS = 10_000;

/** Reads and checks a pair: unreadable files or a key that does not match the certificate throw, naming the files. */
export function readServingCertificate(certFile: string, keyFile: string): ServingCertificate {
  let pair: ServingCertificate;
  try {
    pair = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } catch (e) {
    throw new Error(`webhook server: cannot read the serving certificate: ${(e as Error).message}`);
  }
  try {
    createSecureContext(pair);
  } catch (e) {
    throw new Error(
      `webhook server: invalid serving certificate ${certFile} / key ${keyFile}: ${(e as Error).message}`,
    );
  }
  return pair;
}

export interface CertWatcherOptions {
  intervalMs?: number;
  onChange: (pair: ServingCertificate) => void;
  /** A re-read that failed (e.g. the cert written before the key): the previous pair stays in use. */
  onError?: (err: Error) => void;
}

/** Loads the pair now (throws when it is bad) and, once started, calls onChange with every new valid pair. */
export class CertWatcher {
  current: ServingCertificate;
  private watching = false;
  private readonly listener = () => void this.reload();

  constructor(
    readonly certFile: string,
    readonly keyFile: string,
    private readonly opts: CertWatcherOptions,
  ) {
    this.current = readServingCertificate(certFile, keyFile);
  }

  /** Re-reads the files; returns true when the pair changed. */
  reload(): boolean {
    let next: ServingCertificate;
    try {
      next = readServingCertificate(this.certFile, this.keyFile);
    } catch (e) {
      this.opts.onError?.(e as Error);
      return false;
    }
    if (next.cert === this.current.cert && next.key === this.current.key) return false;
    this.current = next;
    this.opts.onChange(next);
    return true;
  }

  start(): void {
    if (this.watching) return;
    this.watching = true;
    // Polling stat (not fs.watch): a mounted Secret is updated by swapping a symlink, which fs.watch may miss.
    const interval = this.opts.intervalMs ?? DEFAULT_CERT_WATCH_INTERVAL_MS;
    for (const f of [this.certFile, this.keyFile]) watchFile(f, { interval, persistent: false }, this.listener);
  }

  stop(): void {
    if (!this.watching) return;
    this.watching = false;
    for (const f of [this.certFile, this.keyFile]) unwatchFile(f, this.listener);
  }
}
