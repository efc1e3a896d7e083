// An UpdateMachine Runtime Extension over real HTTPS whose answers a test breaks on purpose (slow, 500, truncated or
// wrongly typed JSON, status Failure, a certificate the ExtensionConfig's caBundle does not trust) and heals again.
// createExtensionServer always answers well-formed JSON with one certificate, so this one is a raw HTTPS server.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { HOOKS_API_VERSION, type LabelSelector } from '@capi/api';
import { extensionConfigFor } from '@capi/envtest';
import { generateServerTls, gvhToPath, hookDescriptor, type ExtensionConfig } from '@capi/runtime-client';

export const EXTENSION_FAULTS = [
  'slow',
  'http500',
  'truncatedJson',
  'wrongTypes',
  'failureStatus',
  'untrustedCertificate',
] as const;
export type ExtensionFault = (typeof EXTENSION_FAULTS)[number];

export const FAULTY_HANDLER_NAME = 'update-machine';
/** The message of the status Failure answer. */
export const FAILURE_MESSAGE = 'disk full on the node';
/** The message of a healthy answer (the update is done at once). */
export const HEALTHY_MESSAGE = 'updated in place';

export interface FaultyExtension {
  /** To register (status.handlers filled, timeoutSeconds as asked, failurePolicy Fail); caBundle = the trusted CA. */
  extensionConfig: ExtensionConfig;
  /** The current misbehaviour (set at start); undefined once healed: answers Success, retryAfterSeconds 0. */
  readonly fault: ExtensionFault | undefined;
  /** UpdateMachine calls that reached the extension: HTTP requests plus TLS handshakes the client rejected. */
  attempts(): number;
  /** Date.now() of each attempt, in order of arrival. */
  readonly attemptTimes: number[];
  /** Names of the Machines in the requests that were read (not the TLS-rejected ones), in order. */
  readonly machines: string[];
  /** Serves the trusted certificate and answers correctly from now on. */
  heal(): void;
  close(): Promise<void>;
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');
const success = {
  apiVersion: HOOKS_API_VERSION,
  kind: 'UpdateMachineResponse',
  status: 'Success',
  message: HEALTHY_MESSAGE,
  retryAfterSeconds: 0,
};

/** Status code and body of a (non-slow) answer for a fault. */
function answerFor(fault: ExtensionFault | undefined): { code: number; body: Buffer } {
  switch (fault) {
    case 'http500':
      return { code: 500, body: json({ message: 'internal error' }) };
    case 'truncatedJson': {
      const full = json(success);
      return { code: 200, body: full.subarray(0, Math.floor(full.length / 2)) };
    }
    case 'wrongTypes':
      return { code: 200, body: json({ ...success, retryAfterSeconds: '5' }) };
    case 'failureStatus':
      return { code: 200, body: json({ ...success, status: 'Failure', message: FAILURE_MESSAGE }) };
    default:
      return { code: 200, body: json(success) };
  }
}

export async function startFaultyExtension(
  name: string,
  opts: { fault?: ExtensionFault; namespaceSelector?: LabelSelector; timeoutSeconds?: number; slowMs?: number },
): Promise<FaultyExtension> {
  const trusted = await generateServerTls();
  // Same subject and names, another key: a valid server certificate, just not one the caBundle vouches for.
  const untrusted = await generateServerTls();
  const timeoutSeconds = opts.timeoutSeconds ?? 1;
  const slowMs = opts.slowMs ?? timeoutSeconds * 1000 + 500;
  const path = gvhToPath(hookDescriptor('UpdateMachine').gvh, FAULTY_HANDLER_NAME);
  const timers = new Set<NodeJS.Timeout>();
  let fault = opts.fault;
  const attemptTimes: number[] = [];

  const server = https.createServer({ cert: trusted.cert, key: trusted.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      attemptTimes.push(Date.now());
      if (req.url?.split('?')[0] !== path) {
        res.writeHead(404).end();
        return;
      }
      try {
        ext.machines.push(
          (
            JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              desired: { machine: { metadata: { name: string } } };
            }
          ).desired.machine.metadata.name,
        );
      } catch {
        ext.machines.push('<unreadable request>');
      }
      const slow = fault === 'slow';
      const send = () => {
        const { code, body } = answerFor(fault === 'slow' ? undefined : fault);
        if (!res.destroyed)
          res.writeHead(code, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
      };
      if (!slow) return send();
      // Answers correctly, but only after the client gave up.
      const t = setTimeout(() => {
        timers.delete(t);
        send();
      }, slowMs);
      timers.add(t);
    });
  });
  server.on('tlsClientError', () => attemptTimes.push(Date.now()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ec = extensionConfigFor(
    name,
    { url, caBundle: Buffer.from(trusted.cert).toString('base64') },
    { resourceVersion: '1' },
  );
  const ext: FaultyExtension = {
    extensionConfig: {
      ...ec,
      spec: { ...ec.spec, ...(opts.namespaceSelector ? { namespaceSelector: opts.namespaceSelector } : {}) },
      status: {
        handlers: [
          {
            name: `${FAULTY_HANDLER_NAME}.${name}`,
            requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' },
            timeoutSeconds,
            failurePolicy: 'Fail',
          },
        ],
      },
    },
    get fault() {
      return fault;
    },
    attempts: () => attemptTimes.length,
    attemptTimes,
    machines: [],
    heal: () => {
      fault = undefined;
      server.setSecureContext({ cert: trusted.cert, key: trusted.key });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  if (opts.fault === 'untrustedCertificate') server.setSecureContext({ cert: untrusted.cert, key: untrusted.key });
  return ext;
}
