// Requests asking for a protocol upgrade (Node's 'upgrade' event: WebSocket, SPDY). Only pods/portforward is served
// this way; refusals are written on the raw socket as the Status kube-apiserver answers with.
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { authorized, parseResourcePath } from './http';
import type { RequestMetrics } from './metrics';
import { isPortForward, portForwardPreflight, type PortForwardSessions } from './portforward';
import type { Registry } from './registry';
import type { Resources } from './resources';
import { StatusError } from './status';

export interface UpgradeDeps {
  registry: Registry;
  resources: Resources;
  token: string;
  metrics: RequestMetrics;
  sessions: PortForwardSessions;
  onError: (err: unknown) => void;
}

function refuse(socket: Duplex, err: StatusError): void {
  const body = JSON.stringify(err.toStatus());
  socket.end(
    `HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? ''}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

export function createUpgradeHandler(deps: UpgradeDeps) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (!authorized(req, deps.token)) throw new StatusError(401, 'Unauthorized', 'Unauthorized');
      const route = parseResourcePath(deps.registry, url.pathname);
      if (!route?.name || !isPortForward(route.info, route.subresource))
        throw new StatusError(400, `this server upgrades only pods/portforward requests, not ${url.pathname}`);
      deps.metrics.record('create', '/pods/portforward');
      const { pod, ports } = portForwardPreflight(
        deps.registry,
        deps.resources,
        route.info,
        route.namespace ?? '',
        route.name,
        req.method ?? '',
        url.searchParams,
      );
      deps.sessions.check(req, ports);
      deps.sessions.upgrade(req, socket, head, pod, ports);
    } catch (e) {
      if (!(e instanceof StatusError)) deps.onError(e);
      refuse(socket, e instanceof StatusError ? e : new StatusError(500, `Internal error: ${(e as Error)?.message}`));
    }
  };
}
