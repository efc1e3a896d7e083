// The embedded default's webhook serving certificate: no cert-manager and no --webhook-cert-dir there, so a CA and a
// serving certificate for 127.0.0.1 are generated (as @capi/certs makes Cluster API's) into the data directory, and
// the CA goes into the webhook configurations' caBundle (what cert-manager's CA injector does when deployed).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { generateCA, signCertificate } from '@capi/certs';

export interface EmbeddedWebhookCerts {
  /** Directory holding tls.crt / tls.key (give it to the webhook server as its cert dir). */
  certDir: string;
  /** base64 PEM of the CA, for clientConfig.caBundle. */
  caBundle: string;
  /** Removes a temporary directory (no data dir); no-op otherwise. */
  cleanup(): void;
}

export const WEBHOOK_CERT_NAME = 'tls.crt';
export const WEBHOOK_KEY_NAME = 'tls.key';
const CA_NAME = 'ca.crt';
/** Renew this long before expiry, so a long-running embedded default never serves an expired certificate after restart. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** Reuses `<dataDir>/webhook-certs` while its certificate is valid for 127.0.0.1, else writes a new CA and certificate. */
export async function ensureEmbeddedWebhookCerts(
  dataDir: string | undefined,
  now = new Date(),
): Promise<EmbeddedWebhookCerts> {
  const certDir = dataDir ? join(dataDir, 'webhook-certs') : mkdtempSync(join(tmpdir(), 'capi-webhook-certs-'));
  const cleanup = dataDir ? () => undefined : () => rmSync(certDir, { recursive: true, force: true });
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const files = {
    ca: join(certDir, CA_NAME),
    cert: join(certDir, WEBHOOK_CERT_NAME),
    key: join(certDir, WEBHOOK_KEY_NAME),
  };
  const reusable = (() => {
    if (![files.ca, files.cert, files.key].every((f) => existsSync(f))) return false;
    try {
      const cert = new X509Certificate(readFileSync(files.cert));
      const ca = new X509Certificate(readFileSync(files.ca));
      return (
        cert.verify(ca.publicKey) &&
        cert.checkIP('127.0.0.1') !== undefined &&
        new Date(cert.validTo).getTime() - now.getTime() > RENEW_BEFORE_MS
      );
    } catch {
      return false;
    }
  })();
  if (!reusable) {
    const ca = await generateCA('capi-webhook-ca', now);
    const serving = await signCertificate(
      ca,
      { commonName: 'capi-webhook-service', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] },
      now,
    );
    writeFileSync(files.ca, ca.cert, { mode: 0o600 });
    writeFileSync(files.key, serving.key, { mode: 0o600 });
    writeFileSync(files.cert, serving.cert, { mode: 0o600 });
  }
  return { certDir, caBundle: Buffer.from(readFileSync(files.ca)).toString('base64'), cleanup };
}
