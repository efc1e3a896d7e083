// A recording HTTPS front for a server the chaos run cannot instrument from inside (an API server, a Runtime
// Extension): it terminates TLS with its own certificate, forwards every request unchanged to the real server and
// records when it arrived and from whom. "From whom" is the front's fixed label (one front per client, e.g. one
// kubeconfig per manager) or the client certificate's common name (one front shared by several clients that present
// certificates, e.g. the managers' --runtime-extension-client-cert-file towards an extension).
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { generateServerTls } from '@capi/runtime-client';

export interface FrontRequest {
  /** Date.now() when the request's headers arrived. */
  at: number;
  /** The front's label, or the client certificate's CN when the front has none. */
  from: string;
  method: string;
  path: string;
}

export interface RecordingFront {
  url: string;
  /** base64 PEM of the front's CA (kubeconfig certificate-authority-data, ExtensionConfig caBundle). */
  caData: string;
  readonly requests: FrontRequest[];
  close(): Promise<void>;
}

export interface RecordingFrontOptions {
  /** The real server. */
  target: string;
  /** base64 PEM CA of the real server. */
  targetCaData: string;
  /** Recorded as `from` of every request; without it, the client certificate's CN ("" without one). */
  label?: string;
}

export async function startRecordingFront(opts: RecordingFrontOptions): Promise<RecordingFront> {
  const tls = await generateServerTls();
  const target = new URL(opts.target);
  const ca = Buffer.from(opts.targetCaData, 'base64');
  const agent = new https.Agent({ keepAlive: true, ca });
  const requests: FrontRequest[] = [];
  const server = https.createServer(
    { cert: tls.cert, key: tls.key, requestCert: opts.label === undefined, rejectUnauthorized: false },
    (req, res) => {
      requests.push({
        at: Date.now(),
        from: opts.label ?? clientName(req),
        method: req.method ?? '',
        path: req.url ?? '',
      });
      const upstream = https.request(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
          agent,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          // A watch's headers go out at once, as from the server itself (Node holds them until the first body byte).
          res.flushHeaders();
          up.pipe(res);
        },
      );
      upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      // A client going away (a watch closed, a hook call timed out) ends the forwarded request too.
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caData: Buffer.from(tls.cert).toString('base64'),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}

function clientName(req: IncomingMessage): string {
  const cert = (req.socket as TLSSocket).getPeerCertificate?.();
  return cert?.subject?.CN ? String(cert.subject.CN) : '';
}

/** A self-signed client certificate (PEM) whose CN names the client in a shared front's records. */
export async function generateClientCert(commonName: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
