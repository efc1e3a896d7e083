import * as selfsigned from 'selfsigned';

export interface ServingCerts {
  caCert: string;
  cert: string;
  key: string;
}

/** Validity of the generated certificates: one year, as kubeadm's self-signed ones. */
const CERT_VALIDITY_MS = 365 * 24 * 3600 * 1000;

/** A throwaway CA and a serving certificate for 127.0.0.1 / localhost signed by it (one year). */
export async function generateServingCerts(): Promise<ServingCerts> {
  const notAfterDate = new Date(Date.now() + CERT_VALIDITY_MS);
  const base = { keyType: 'ec', curve: 'P-256', notAfterDate, algorithm: 'sha256' } as const;
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'envtest-kube-ca' }], {
    ...base,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await selfsigned.generate([{ name: 'commonName', value: 'kube-apiserver' }], {
    ...base,
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
        ],
      },
    ],
  });
  return { caCert: ca.cert, cert: server.cert, key: server.private };
}
