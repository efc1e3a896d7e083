import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureEmbeddedWebhookCerts } from './webhook-certs';

jest.setTimeout(30_000);

describe('ensureEmbeddedWebhookCerts', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'webhook-certs-spec-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes a CA and a serving certificate for 127.0.0.1 it signs (0600), and the CA as caBundle', async () => {
    const certs = await ensureEmbeddedWebhookCerts(dataDir);
    expect(certs.certDir).toBe(join(dataDir, 'webhook-certs'));
    const cert = new X509Certificate(readFileSync(join(certs.certDir, 'tls.crt')));
    const ca = new X509Certificate(Buffer.from(certs.caBundle, 'base64'));
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(statSync(join(certs.certDir, 'tls.key')).mode & 0o777).toBe(0o600);
  });

  it('reuses a valid pair across restarts (the same CA), replaces one that no longer verifies', async () => {
    const first = await ensureEmbeddedWebhookCerts(dataDir);
    const again = await ensureEmbeddedWebhookCerts(dataDir);
    expect(again.caBundle).toBe(first.caBundle);
    writeFileSync(join(first.certDir, 'tls.crt'), 'garbage');
    const renewed = await ensureEmbeddedWebhookCerts(dataDir);
    expect(renewed.caBundle).not.toBe(first.caBundle);
    expect(new X509Certificate(readFileSync(join(renewed.certDir, 'tls.crt'))).checkIP('127.0.0.1')).toBe('127.0.0.1');
  });

  it('renews a certificate close to expiry', async () => {
    const first = await ensureEmbeddedWebhookCerts(dataDir);
    const tenYearsLater = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
    const renewed = await ensureEmbeddedWebhookCerts(dataDir, tenYearsLater);
    expect(renewed.caBundle).not.toBe(first.caBundle);
  });

  it('without a data dir: a temporary directory, removed by cleanup', async () => {
    const certs = await ensureEmbeddedWebhookCerts(undefined);
    expect(existsSync(join(certs.certDir, 'tls.crt'))).toBe(true);
    certs.cleanup();
    expect(existsSync(certs.certDir)).toBe(false);
  });
});
