import * as x509 from '@peculiar/x509';
import { generateCA } from '@capi/certs';
import { EtcdClientCertCache, generateEtcdClientCert } from './client-cert';

describe('etcd client certificate (upstream generateClientCert)', () => {
  it('CN cluster-api.x-k8s.io, clientAuth, signed by the etcd CA; cached per cluster and CA', async () => {
    const ca = await generateCA('etcd-ca');
    const pair = await generateEtcdClientCert(ca);
    const cert = new x509.X509Certificate(pair.cert);
    expect(cert.subject).toBe('CN=cluster-api.x-k8s.io');
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(await cert.verify({ publicKey: new x509.X509Certificate(ca.cert).publicKey, signatureOnly: true })).toBe(
      true,
    );

    const cache = new EtcdClientCertCache();
    const a = await cache.tlsFor({ namespace: 'ns', name: 'c' }, ca);
    expect(a.ca).toBe(ca.cert);
    expect(await cache.tlsFor({ namespace: 'ns', name: 'c' }, ca)).toEqual(a);
    const other = await generateCA('etcd-ca');
    expect((await cache.tlsFor({ namespace: 'ns', name: 'c' }, other)).cert).not.toBe(a.cert);
    expect((await cache.tlsFor({ namespace: 'ns', name: 'd' }, ca)).cert).not.toBe(a.cert);
  });

  it('a CA without its key is an error, not cached', async () => {
    const ca = await generateCA('etcd-ca');
    const cache = new EtcdClientCertCache();
    await expect(cache.tlsFor({ namespace: 'ns', name: 'c' }, { cert: ca.cert, key: '' })).rejects.toThrow();
    expect((await cache.tlsFor({ namespace: 'ns', name: 'c' }, ca)).ca).toBe(ca.cert);
  });
});
