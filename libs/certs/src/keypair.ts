// Certificate authorities and certificates signed by them, as Cluster API generates them (upstream util/certs and
// util/secret/certificates.go newSelfSignedCACert; controlplane/kubeadm/internal/cluster.go newClientCert): RSA 2048
// keys, SHA-256 signatures, valid from five minutes ago for ten years.
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

/** A PEM certificate (or, for the service-account purpose, a PEM public key) and its PEM PKCS#8 private key. */
export interface KeyPair {
  cert: string;
  key: string;
}

export type CertificateUsage = 'client' | 'server' | 'client-server';

export interface CertificateRequest {
  commonName: string;
  organizations?: string[];
  usage: CertificateUsage;
  dnsNames?: string[];
  ipAddresses?: string[];
}

type CryptoKey = webcrypto.CryptoKey;
const crypto = webcrypto;
// @peculiar/x509 types its provider with the DOM's Crypto, which Node's webcrypto implements.
x509.cryptoProvider.set(crypto as unknown as Parameters<typeof x509.cryptoProvider.set>[1]);

const RSA: webcrypto.RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;
const CLOCK_SKEW_MS = 5 * 60 * 1000;

const newKeys = () => crypto.subtle.generateKey(RSA, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

function validity(now: Date) {
  return { notBefore: new Date(now.getTime() - CLOCK_SKEW_MS), notAfter: new Date(now.getTime() + TEN_YEARS_MS) };
}

function subjectOf(commonName: string, organizations: readonly string[] = []): string {
  const escape = (v: string) => v.replace(/([,+"\\<>;=])/g, '\\$1');
  return [`CN=${escape(commonName)}`, ...organizations.map((o) => `O=${escape(o)}`)].join(', ');
}

/** A random positive 128-bit serial (hex), so re-issued certificates never share one. */
const randomSerial = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Buffer.from(bytes).toString('hex');
};

/** A self-signed CA (upstream newSelfSignedCACert: CN "kubernetes" unless told, path length 0). */
export async function generateCA(commonName = 'kubernetes', now = new Date()): Promise<KeyPair> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: subjectOf(commonName),
    ...validity(now),
    keys,
    signingAlgorithm: RSA,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys.privateKey) };
}

async function importCA(ca: KeyPair): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(ca.cert);
  } catch (e) {
    throw new Error(`the CA certificate is not a PEM certificate: ${(e as Error).message}`);
  }
  let der: ArrayBuffer;
  try {
    const [block] = x509.PemConverter.decodeWithHeaders(ca.key);
    if (!block) throw new Error('no PEM block');
    if (block.type === 'RSA PRIVATE KEY') throw new Error('PKCS#1 keys are not supported, use PKCS#8');
    der = block.rawData;
  } catch (e) {
    throw new Error(`the CA key is not a PEM PKCS#8 private key: ${(e as Error).message}`);
  }
  const algorithm = cert.publicKey.algorithm as webcrypto.Algorithm;
  const signing = algorithm.name === 'ECDSA' ? { name: 'ECDSA', namedCurve: 'P-256' } : RSA;
  try {
    return { cert, key: await crypto.subtle.importKey('pkcs8', der, signing, false, ['sign']) };
  } catch (e) {
    throw new Error(`the CA key cannot be imported: ${(e as Error).message}`);
  }
}

/** A certificate for `req` signed by `ca`, with a new key (upstream util/certs NewSignedCert). */
export async function signCertificate(ca: KeyPair, req: CertificateRequest, now = new Date()): Promise<KeyPair> {
  const issuer = await importCA(ca);
  const keys = await newKeys();
  const usages: x509.ExtendedKeyUsageType[] = [];
  if (req.usage !== 'server') usages.push(x509.ExtendedKeyUsage.clientAuth);
  if (req.usage !== 'client') usages.push(x509.ExtendedKeyUsage.serverAuth);
  const names: x509.JsonGeneralName[] = [
    ...(req.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(req.ipAddresses ?? []).map((value) => {
      if (!isIP(value)) throw new Error(`${value} is not an IP address`);
      return { type: 'ip' as const, value };
    }),
  ];
  const signingAlgorithm =
    (issuer.cert.publicKey.algorithm as webcrypto.Algorithm).name === 'ECDSA'
      ? { name: 'ECDSA', hash: 'SHA-256' }
      : RSA;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: subjectOf(req.commonName, req.organizations),
    issuer: issuer.cert.subject,
    ...validity(now),
    publicKey: keys.publicKey,
    signingKey: issuer.key,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(usages),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys.privateKey) };
}

/** The service-account signing key pair (upstream generateServiceAccountKeys: the public key PEM as "cert"). */
export async function generateServiceAccountKeys(): Promise<KeyPair> {
  const keys = await newKeys();
  const spki = await crypto.subtle.exportKey('spki', keys.publicKey);
  return { cert: x509.PemConverter.encode(spki, 'PUBLIC KEY'), key: await privateKeyPem(keys.privateKey) };
}
