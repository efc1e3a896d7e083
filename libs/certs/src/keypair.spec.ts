import { once } from 'node:events';
import * as tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import { generateCA, generateServiceAccountKeys, signCertificate, type KeyPair } from './keypair';

jest.setTimeout(30_000);

/** Opens an mTLS connection to a server trusting `trustedCA` and returns whether the handshake was accepted. */
async function mtls(server: KeyPair, trustedCA: KeyPair, client: KeyPair, clientTrusts: KeyPair): Promise<boolean> {
  const srv = tls.createServer(
    { cert: server.cert, key: server.key, ca: trustedCA.cert, requestCert: true, rejectUnauthorized: true },
    (s) => s.end('ok'),
  );
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  try {
    return await new Promise<boolean>((resolve) => {
      const sock = tls.connect({
        host: '127.0.0.1',
        port,
        cert: client.cert,
        key: client.key,
        ca: clientTrusts.cert,
        servername: 'localhost',
      });
      let data = '';
      sock.on('data', (d) => (data += d));
      sock.on('end', () => resolve(data === 'ok'));
      sock.on('error', () => resolve(false));
    });
  } finally {
    srv.close();
  }
}

describe('generateCA / signCertificate', () => {
  let ca: KeyPair;
  beforeAll(async () => {
    ca = await generateCA();
  });

  it('generates a CA as upstream newSelfSignedCACert: CN kubernetes, CA with path length 0, valid 10 years', () => {
    const cert = new x509.X509Certificate(ca.cert);
    expect(cert.subject).toBe('CN=kubernetes');
    const bc = cert.getExtension(x509.BasicConstraintsExtension);
    expect(bc?.ca).toBe(true);
    expect(bc?.pathLength).toBe(0);
    const years = (cert.notAfter.getTime() - cert.notBefore.getTime()) / (365 * 24 * 3600 * 1000);
    expect(years).toBeGreaterThan(10);
    expect(years).toBeLessThan(10.01);
    expect(ca.key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('signs server and client certificates that a TLS server and client accept', async () => {
    const server = await signCertificate(ca, {
      commonName: 'etcd',
      usage: 'server',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
    });
    const client = await signCertificate(ca, { commonName: 'cluster-api.x-k8s.io', usage: 'client' });
    expect(await mtls(server, ca, client, ca)).toBe(true);
  });

  it('a client certificate of another CA is refused', async () => {
    const other = await generateCA('other');
    const server = await signCertificate(ca, { commonName: 'etcd', usage: 'server', dnsNames: ['localhost'] });
    const stranger = await signCertificate(other, { commonName: 'cluster-api.x-k8s.io', usage: 'client' });
    expect(await mtls(server, ca, stranger, ca)).toBe(false);
  });

  it('a server-only certificate carries serverAuth only, a client one clientAuth only; subject with organizations', async () => {
    const server = new x509.X509Certificate((await signCertificate(ca, { commonName: 's', usage: 'server' })).cert);
    const client = new x509.X509Certificate(
      (await signCertificate(ca, { commonName: 'c', organizations: ['system:masters'], usage: 'client' })).cert,
    );
    expect(server.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.serverAuth]);
    expect(client.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(client.subject).toBe('CN=c, O=system:masters');
    expect(client.issuer).toBe('CN=kubernetes');
  });

  it('bad input is a clear error', async () => {
    await expect(signCertificate({ cert: 'nope', key: ca.key }, { commonName: 'x', usage: 'client' })).rejects.toThrow(
      /CA certificate is not a PEM certificate/,
    );
    await expect(signCertificate({ cert: ca.cert, key: 'nope' }, { commonName: 'x', usage: 'client' })).rejects.toThrow(
      /CA key is not a PEM PKCS#8 private key/,
    );
    await expect(signCertificate(ca, { commonName: 'x', usage: 'server', ipAddresses: ['not-an-ip'] })).rejects.toThrow(
      /not-an-ip is not an IP address/,
    );
  });

  it('service-account keys: a PEM public key and its private key', async () => {
    const sa = await generateServiceAccountKeys();
    expect(sa.cert).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(sa.key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });
});
