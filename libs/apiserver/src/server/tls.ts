import * as selfsigned from 'selfsigned';

export interface ServingCerts {
  caCert: string;
  cert: string;
  key: string;
}

/** Validity of the generated CA and serving certificate (kubeadm's self-signed certificates: one year). */
const CERT_VALIDITY_MS = 365 * 24 * 3600 * 1000;

/** A throwaway CA and a loopback serving certificate signed by it. */
export async function generateServingCerts(host: string): Promise<ServingCerts> {
  const year = new Date(Date.now() + CERT_VALIDITY_MS);
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'capi-ts-apiserver-ca' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: year,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const isIp = /^[\d.]+$|:/.test(host);
  const server = await selfsigned.generate([{ name: 'commonName', value: 'capi-ts-apiserver' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: year,
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          ...(isIp
            ? host !== '127.0.0.1'
              ? [{ type: 7 as const, ip: host }]
              : []
            : [{ type: 2 as const, value: host }]),
        ],
      },
    ],
  });
  return { caCert: ca.cert, cert: server.cert, key: server.private };
}
