import * as https from 'https';
import type { AddressInfo, Socket } from 'net';
import { KubeConfig } from '@kubernetes/client-node';
import * as selfsigned from 'selfsigned';
import { sameTlsMaterial, Transport } from '../../src/client/transport';

// The transport keeps one keep-alive TLS agent (client-node builds a new agent, so a new handshake, per request)
// and resends a request once when a pooled socket turns out to be closed by the server before answering.
describe('Transport over TLS', () => {
  let server: https.Server;
  let kubeConfig: KubeConfig;
  let handshakes = 0;
  /** When set, the next request arriving on an already-used socket is dropped without an answer. */
  let dropNextReused = false;
  const requests: { method: string; reused: boolean }[] = [];

  beforeAll(async () => {
    const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const used = new WeakSet<Socket>();
    server = https.createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
      const reused = used.has(req.socket);
      used.add(req.socket);
      requests.push({ method: req.method ?? '', reused });
      if (reused && dropNextReused) {
        dropNextReused = false;
        req.socket.destroy(); // as if the server had closed the idle connection just as the client reused it
        return;
      }
      req.resume();
      req.on('end', async () => {
        if (req.url === '/slow') await new Promise((r) => setTimeout(r, 300));
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            kind: 'ConfigMap',
            apiVersion: 'v1',
            metadata: { name: 'x' },
            auth: req.headers.authorization,
          }),
        );
      });
    });
    server.on('secureConnection', () => handshakes++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
          caData: Buffer.from(pems.cert).toString('base64'),
        },
      ],
      users: [{ name: 'u', token: 'secret-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    handshakes = 0;
    requests.length = 0;
    dropNextReused = false;
  });

  it('reuses one verified TLS connection for sequential requests and sends the token on each', async () => {
    const transport = new Transport(kubeConfig);
    for (let i = 0; i < 10; i++) {
      const body = await transport.json<{ auth: string }>({
        method: 'GET',
        path: '/api/v1/namespaces/default/configmaps/x',
      });
      expect(body.auth).toBe('Bearer secret-token');
    }
    transport.close();
    expect(handshakes).toBe(1);
    expect(requests.filter((r) => r.reused)).toHaveLength(9);
  });

  it('resends a request once on a fresh connection when the reused socket was closed unanswered', async () => {
    const transport = new Transport(kubeConfig);
    await transport.json({ method: 'GET', path: '/x' });
    dropNextReused = true;
    await expect(transport.json({ method: 'PATCH', path: '/x', body: {} })).resolves.toMatchObject({
      kind: 'ConfigMap',
    });
    transport.close();
    expect(requests.map((r) => `${r.method}${r.reused ? ' reused' : ''}`)).toEqual(['GET', 'PATCH reused', 'PATCH']);
  });

  it('does not resend a create, which could otherwise run twice', async () => {
    const transport = new Transport(kubeConfig);
    await transport.json({ method: 'GET', path: '/x' });
    dropNextReused = true;
    await expect(transport.json({ method: 'POST', path: '/x', body: {} })).rejects.toThrow(/socket hang up|ECONNRESET/);
    transport.close();
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('closes a pooled connection once it sat idle for idleSocketTimeoutMs, before a server would', async () => {
    const transport = new Transport(kubeConfig, { idleSocketTimeoutMs: 100 });
    await transport.json({ method: 'GET', path: '/x' });
    await transport.json({ method: 'GET', path: '/x' }); // reused while fresh
    await new Promise((r) => setTimeout(r, 250));
    await transport.json({ method: 'POST', path: '/x', body: {} }); // a create is never sent on a stale connection
    transport.close();
    expect(handshakes).toBe(2);
    expect(requests.map((r) => `${r.method}${r.reused ? ' reused' : ''}`)).toEqual(['GET', 'GET reused', 'POST']);
  });

  it('keeps a connection in use past idleSocketTimeoutMs: a slow answer is not cut off', async () => {
    const transport = new Transport(kubeConfig, { idleSocketTimeoutMs: 100 });
    await expect(transport.json({ method: 'GET', path: '/slow' })).resolves.toMatchObject({ kind: 'ConfigMap' });
    transport.close();
  });

  it('rejects a server whose certificate the kubeconfig CA did not sign', async () => {
    const other = new KubeConfig();
    other.loadFromOptions({
      clusters: [{ name: 'c', server: kubeConfig.getCurrentCluster()!.server }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const transport = new Transport(other);
    await expect(transport.json({ method: 'GET', path: '/x' })).rejects.toThrow(/self-signed|certificate/i);
    transport.close();
  });
});

// Decides when the keep-alive TLS agent is rebuilt (compared per request, so not by serialising the material).
describe('sameTlsMaterial', () => {
  const base = {
    ca: Buffer.from('ca'),
    cert: 'cert',
    key: Buffer.from('key'),
    rejectUnauthorized: true,
    servername: 'a',
  };
  it('is true for equal material in fresh buffers', () => {
    expect(sameTlsMaterial(base, { ...base, ca: Buffer.from('ca'), key: Buffer.from('key') })).toBe(true);
    expect(sameTlsMaterial({ ca: [Buffer.from('x'), 'y'] }, { ca: [Buffer.from('x'), 'y'] })).toBe(true);
  });
  it('is false when any field differs', () => {
    expect(sameTlsMaterial(base, { ...base, key: Buffer.from('rotated') })).toBe(false);
    expect(sameTlsMaterial(base, { ...base, cert: 'other' })).toBe(false);
    expect(sameTlsMaterial(base, { ...base, rejectUnauthorized: false })).toBe(false);
    expect(sameTlsMaterial(base, { ...base, servername: undefined })).toBe(false);
    expect(sameTlsMaterial({ ca: [Buffer.from('x')] }, { ca: [Buffer.from('x'), Buffer.from('y')] })).toBe(false);
    expect(sameTlsMaterial({ ca: Buffer.from('x') }, { ca: 'x' })).toBe(false);
  });
});
