// Test certificates until @capi/certs is on this branch: a CA, a serving certificate for 127.0.0.1 and client
// certificates signed by it (selfsigned, EC P-256).
import * as selfsigned from 'selfsigned';

export interface KeyPair {
  cert: string;
  key: string;
}

const notAfterDate = () => new Date(Date.now() + 24 * 3600 * 1000);
const base = () => ({ keyType: 'ec', curve: 'P-256', notAfterDate: notAfterDate(), algorithm: 'sha256' }) as const;

export async function generateCA(commonName: string): Promise<KeyPair> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: commonName }], {
    ...base(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: ca.cert, key: ca.private };
}

export async function signCertificate(
  ca: KeyPair,
  req: { commonName: string; usage: 'client' | 'server'; ipAddresses?: string[] },
): Promise<KeyPair> {
  const signed = await selfsigned.generate([{ name: 'commonName', value: req.commonName }], {
    ...base(),
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: req.usage === 'server', clientAuth: true },
      ...(req.ipAddresses
        ? [{ name: 'subjectAltName' as const, altNames: req.ipAddresses.map((ip) => ({ type: 7 as const, ip })) }]
        : []),
    ],
  });
  return { cert: signed.cert, key: signed.private };
}
