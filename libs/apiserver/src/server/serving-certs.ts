// Keeping the serving certificate valid: checked and re-issued at start, and re-issued by a timer while serving.
// kubeadm renews certificates by command (`kubeadm certs renew`, cmd/kubeadm/app/phases/certs/renewal); kubelet rotates
// its own on a timer at 70-90% of their life (client-go util/certificate/certificate_manager.go nextRotationDeadline).
// Here a certificate is renewed once two thirds of its life have passed, which is cert-manager's default renewBefore
// too: a 1-year serving certificate is renewed about 4 months before it expires, so a manager started now and then
// still renews it long before clients would see it expire, and the CA (10 years) is replaced after ~6.7 years.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import {
  DEFAULT_CA_VALIDITY_MS,
  DEFAULT_LEAF_VALIDITY_MS,
  generateServingCerts,
  issueServingCert,
  type ServingCerts,
} from './tls';

export interface CertValidity {
  /** The CA's validity (default 10 years, kubeadm's). */
  caValidityMs?: number;
  /** The serving certificate's validity (default 1 year, kubeadm's). */
  leafValidityMs?: number;
}

/** Node's setTimeout takes at most 2^31 - 1 ms (~24.8 days); longer waits are made of several timers. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** Retry delay after a failed renewal, and the shortest wait between two (a CA about to expire issues short leaves). */
const RETRY_MS = 60_000;
const MIN_WAIT_MS = 1000;

const x509 = (pem: string) => new X509Certificate(pem);
const notBefore = (c: X509Certificate) => Date.parse(c.validFrom);
const notAfter = (c: X509Certificate) => Date.parse(c.validTo);

/** When a certificate is due for renewal: two thirds into its validity. */
export function renewalTime(certPem: string): number {
  const c = x509(certPem);
  return notBefore(c) + ((notAfter(c) - notBefore(c)) * 2) / 3;
}

export type CertAction = { type: 'keep' } | { type: 'leaf' | 'ca'; why: string };

/** What start-up must do with the stored certificates (undefined: none stored or unreadable). */
export function planServingCerts(stored: Partial<ServingCerts> | undefined, host: string, now: number): CertAction {
  if (!stored?.caCert) return { type: 'ca', why: 'no serving CA yet' };
  if (!stored.caKey) return { type: 'ca', why: 'the CA key was not kept (a data dir of an older version)' };
  let ca: X509Certificate;
  try {
    ca = x509(stored.caCert);
    const pub = createPublicKey(createPrivateKey(stored.caKey)).export({ type: 'spki', format: 'der' });
    if (!pub.equals(ca.publicKey.export({ type: 'spki', format: 'der' })))
      return { type: 'ca', why: 'the CA key does not match the CA certificate' };
  } catch (e) {
    return { type: 'ca', why: `the CA cannot be read (${(e as Error).message})` };
  }
  if (now >= renewalTime(stored.caCert))
    return { type: 'ca', why: `the CA expires ${ca.validTo} (renewed in the last third of its life)` };
  if (!stored.cert || !stored.key) return { type: 'leaf', why: 'no serving certificate' };
  let leaf: X509Certificate;
  try {
    leaf = x509(stored.cert);
    if (!leaf.verify(ca.publicKey)) return { type: 'leaf', why: 'the serving certificate is not signed by the CA' };
    if (!leaf.checkPrivateKey(createPrivateKey(stored.key)))
      return { type: 'leaf', why: 'the serving key does not match the certificate' };
  } catch (e) {
    return { type: 'leaf', why: `the serving certificate cannot be read (${(e as Error).message})` };
  }
  if (now >= renewalTime(stored.cert))
    return { type: 'leaf', why: `it expires ${leaf.validTo} (renewed in the last third of its life)` };
  if (!(isIP(host) ? leaf.checkIP(host) : leaf.checkHost(host)))
    return { type: 'leaf', why: `it does not name the host ${host}` };
  return { type: 'keep' };
}

/** Carries out a plan: the certificates to serve (the same object when kept). */
export async function applyServingCertsPlan(
  stored: Partial<ServingCerts> | undefined,
  action: CertAction,
  host: string,
  now: number,
  validity: CertValidity = {},
): Promise<ServingCerts> {
  if (action.type === 'keep') return stored as ServingCerts;
  if (action.type === 'ca') return generateServingCerts(host, { now, ...validity });
  return reissueLeaf(stored as ServingCerts, host, now, validity);
}

/** A new serving certificate under the same CA. */
export async function reissueLeaf(
  certs: ServingCerts,
  host: string,
  now: number,
  validity: CertValidity = {},
): Promise<ServingCerts> {
  const ca = { cert: certs.caCert, key: certs.caKey, notAfter: notAfter(x509(certs.caCert)) };
  const leaf = await issueServingCert(ca, host, {
    now,
    validityMs: validity.leafValidityMs ?? DEFAULT_LEAF_VALIDITY_MS,
  });
  return { ...certs, cert: leaf.cert, key: leaf.key };
}

export interface RotatorOptions {
  host: string;
  validity: CertValidity;
  now: () => number;
  /** Swaps the new certificate in (tls.Server#setSecureContext) and persists it; may throw. */
  install(certs: ServingCerts): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/**
 * Re-issues the serving certificate at its renewal time while the server runs. Its timer is unref'd (it keeps no
 * process alive) and capped at Node's longest; a CA in the last third of its life is only replaced at the next start
 * (clients hold the CA in their kubeconfig, which the host rewrites then), so a warning says so.
 */
export class ServingCertRotator {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private certs: ServingCerts,
    private readonly o: RotatorOptions,
  ) {}

  start(): void {
    this.schedule(renewalTime(this.certs.cert));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The certificates being served. */
  current(): ServingCerts {
    return this.certs;
  }

  private schedule(at: number, minWait = MIN_WAIT_MS): void {
    if (this.stopped) return;
    const wait = Math.min(MAX_TIMER_MS, Math.max(minWait, at - this.o.now()));
    this.timer = setTimeout(() => void this.tick(at), wait);
    this.timer.unref();
  }

  private async tick(at: number): Promise<void> {
    if (this.stopped) return;
    // Woken early by the timer cap: wait on.
    if (this.o.now() < at) return this.schedule(at, 0);
    let next: ServingCerts;
    try {
      next = await reissueLeaf(this.certs, this.o.host, this.o.now(), this.o.validity);
      if (this.stopped) return;
      this.o.install(next);
    } catch (e) {
      this.o.error(`serving certificate: renewal failed, retrying in ${RETRY_MS / 1000}s: ${(e as Error).message}`);
      return this.schedule(this.o.now() + RETRY_MS);
    }
    this.certs = next;
    const leaf = x509(next.cert);
    this.o.info(
      `serving certificate renewed under the same CA: valid until ${leaf.validTo} (serial ${leaf.serialNumber})`,
    );
    if (this.o.now() >= renewalTime(next.caCert))
      this.o.warn(
        `serving CA expires ${x509(next.caCert).validTo}: restart the server to get a new CA (clients need the new kubeconfig)`,
      );
    this.schedule(renewalTime(next.cert));
  }
}

export { DEFAULT_CA_VALIDITY_MS, DEFAULT_LEAF_VALIDITY_MS };
