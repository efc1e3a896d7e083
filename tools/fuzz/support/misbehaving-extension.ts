// A Runtime Extension over raw HTTPS: serves a correct Discovery, then answers hook calls with whatever misbehaviour
// the test sets (createExtensionServer always sends well-formed JSON, so it cannot play truncated bodies or resets).
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { HOOKS_API_VERSION, type FailurePolicy } from '@capi/api';
import { generateServerTls } from '@capi/runtime-client';
import type { Misbehaviour } from '../hook-responses';

export interface MisbehavingExtension {
  url: string;
  caBundle: string;
  /** What the next hook calls get. */
  behaviour: Misbehaviour;
  close(): Promise<void>;
}

export async function startMisbehavingExtension(
  handlers: { name: string; hook: string; failurePolicy: FailurePolicy; timeoutSeconds?: number }[],
): Promise<MisbehavingExtension> {
  const tls = await generateServerTls();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const discovery = {
    apiVersion: HOOKS_API_VERSION,
    kind: 'DiscoveryResponse',
    status: 'Success',
    handlers: handlers.map((h) => ({
      name: h.name,
      requestHook: { apiVersion: HOOKS_API_VERSION, hook: h.hook },
      timeoutSeconds: h.timeoutSeconds ?? 1,
      failurePolicy: h.failurePolicy,
    })),
  };
  const ext: MisbehavingExtension = {
    url: '',
    caBundle: Buffer.from(tls.cert).toString('base64'),
    behaviour: { type: 'hang-up' },
    close: async () => undefined,
  };
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.includes('/discovery')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discovery));
        return;
      }
      const b = ext.behaviour;
      switch (b.type) {
        case 'respond':
          res
            .writeHead(b.code, {
              ...(b.contentType ? { 'content-type': b.contentType } : {}),
              'content-length': b.body.length,
            })
            .end(b.body);
          return;
        case 'reset-mid-body':
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': b.partial.length + 100 });
          res.write(b.partial, () => res.destroy());
          return;
        case 'hang-up':
          req.socket.destroy();
          return;
        case 'slow':
          later(b.delayMs, () =>
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"Success"}'),
          );
          return;
        case 'stall-body':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"status":');
          later(2000, () => res.end('"Success"}'));
          return;
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  ext.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ext.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return ext;
}
