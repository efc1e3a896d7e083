// The serving CA and certificate of the embedded API server, as kubeadm makes them (cmd/kubeadm/app/util/pkiutil):
// a self-signed CA valid 10 years and a serving certificate it signs, valid 1 year, both ECDSA P-256.
import * as selfsigned from 'selfsigned';

export interface ServingCerts {
  caCert: string;
  /** The CA's private key: the serving certificate is re-issued under the same CA, so kubeconfigs stay valid. */
  caKey: string;
  cert: string;
  key: string;
}

/** kubeadm's CertificateValidityPeriod and CACertificateValidityPeriod (cmd/kubeadm/app/constants/constants.go). */
export const DEFAULT_LEAF_VALIDITY_MS = 365 * 24 * 3600 * 1000;
export const DEFAULT_CA_VALIDITY_MS = 10 * DEFAULT_LEAF_VALIDITY_MS;

export interface IssueOptions {
  /** Epoch milliseconds the certificate is valid from. */
  now: number;
  validityMs: number;
}

/** A self-signed CA. */
export async function generateCa(o: IssueOptions): Promise<{ cert: string; key: string }> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'capi-ts-apiserver-ca' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(o.now),
    notAfterDate: new Date(o.now + o.validityMs),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: ca.cert, key: ca.private };
}

/** A serving certificate for localhost, 127.0.0.1 and `host`, signed by `ca`; never valid longer than the CA. */
export async function issueServingCert(
  ca: { cert: string; key: string; notAfter: number },
  host: string,
  o: IssueOptions,
): Promise<{ cert: string; key: string }> {
  const isIp = /^[\d.]+$|:/.test(host);
  const server = await selfsigned.generate([{ name: 'commonName', value: 'capi-ts-apiserver' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(o.now),
    notAfterDate: new Date(Math.min(o.now + o.validityMs, ca.notAfter)),
    algorithm: 'sha256',
    ca: { key: ca.key, cert: ca.cert },
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
  return { cert: server.cert, key: server.private };
}

/** A new CA and a serving certificate signed by it (default validities: 10 years and 1 year). */
export async function generateServingCerts(
  host: string,
  o: { now?: number; caValidityMs?: number; leafValidityMs?: number } = {},
): Promise<ServingCerts> {
  const now = o.now ?? Date.now();
  const caValidityMs = o.caValidityMs ?? DEFAULT_CA_VALIDITY_MS;
  const ca = await generateCa({ now, validityMs: caValidityMs });
  const leaf = await issueServingCert({ ...ca, notAfter: now + caValidityMs }, host, {
    now,
    validityMs: o.leafValidityMs ?? DEFAULT_LEAF_VALIDITY_MS,
  });
  return { caCert: ca.cert, caKey: ca.key, cert: leaf.cert, key: leaf.key };
}
