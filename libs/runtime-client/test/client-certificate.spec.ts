// mTLS client certificate from files: validated at start, reloaded on change, new connections use the new one.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { ClientCertificateFiles, generateServerTls, HttpsExtensionTransport } from '@capi/runtime-client';
import { ClientCertificateError } from '../src/client-certificate';

async function clientPair(cn: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: cn }], { keyType: 'ec', days: 1 } as never);
  return { cert: pems.cert, key: pems.private };
}

async function eventually<T>(cond: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('ClientCertificateFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'client-cert-'));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  const write = (p: { cert: string; key: string }) => {
    writeFileSync(certFile, p.cert);
    writeFileSync(keyFile, p.key);
  };
  let server: https.Server;
  let url: URL;
  let ca: string;

  beforeAll(async () => {
    const tls = await generateServerTls();
    ca = Buffer.from(tls.cert).toString('base64');
    // Answers with the CN of the client certificate the connection presented.
    server = https.createServer(
      { cert: tls.cert, key: tls.key, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        req.resume();
        const delay = req.url === '/slow' ? 300 : 0;
        req.on('end', () => setTimeout(() => res.writeHead(200).end(String(peer?.subject?.CN ?? 'none')), delay));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a missing file or a key that does not match the certificate is a clear error at start', async () => {
    expect(() => new ClientCertificateFiles(join(dir, 'nope.crt'), keyFile)).toThrow(ClientCertificateError);
    const a = await clientPair('a');
    const b = await clientPair('b');
    write({ cert: a.cert, key: b.key });
    expect(() => new ClientCertificateFiles(certFile, keyFile)).toThrow(/invalid runtime extension client certificate/);
  });

  it('presents the certificate from the files and, after they change, the new one on new connections', async () => {
    write(await clientPair('client-one'));
    const errors: Error[] = [];
    const source = new ClientCertificateFiles(certFile, keyFile, {
      pollIntervalMs: 50,
      onReloadError: (e) => errors.push(e),
    });
    source.start();
    const transport = new HttpsExtensionTransport(source);
    try {
      const cn = async () => (await transport.post(url, {}, { caBundle: ca, timeoutMs: 5_000 })).body;
      expect(await cn()).toBe('client-one');
      expect(await cn()).toBe('client-one'); // kept-alive connection

      write(await clientPair('client-two'));
      await eventually(async () => (source.current().version === 2 ? true : undefined), 'reload');
      expect(await cn()).toBe('client-two');

      // A request in flight during a rotation completes on its connection; the next one uses the new certificate.
      const slow = transport.post(new URL('/slow', url), {}, { caBundle: ca, timeoutMs: 5_000 });
      await new Promise((r) => setTimeout(r, 50));
      write(await clientPair('client-rotated'));
      source.reload();
      expect(await cn()).toBe('client-rotated');
      expect((await slow).body).toBe('client-two');
      write(await clientPair('client-two-again'));
      source.reload();

      // A half-written rotation (new cert, old key) is rejected: the previous pair stays in use.
      writeFileSync(certFile, (await clientPair('client-three')).cert);
      await eventually(async () => (errors.length > 0 ? true : undefined), 'reload error');
      expect(source.current().version).toBe(4);
      expect(await cn()).toBe('client-two-again');
    } finally {
      source.stop();
      transport.close();
    }
  });
});
