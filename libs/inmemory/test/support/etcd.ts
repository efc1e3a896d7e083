// Reaching a workload cluster's etcd members the way KCP does: a port-forward to the etcd Pod through the workload
// API server (@kubernetes/client-node's PortForward, the kubelet WebSocket protocol), bridged to a 127.0.0.1 listener
// (one WebSocket per connection, as kubectl port-forward) that the etcd3 client dials over TLS with a client
// certificate.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { KubeConfig, PortForward } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { renderKubeconfig, type StartedServer } from '@capi/apiserver';
import type { KeyPair } from '@capi/certs';

export interface EtcdForward {
  /** `https://127.0.0.1:<port>` of the local listener. */
  endpoint: string;
  /** Errors the API server sent on the error channel, one string per connection. */
  errors: string[];
  close(): Promise<void>;
}

/** A local listener forwarding each connection to `kube-system/<pod>`:2379 through the workload API server. */
export async function forwardToEtcdPod(server: StartedServer, pod: string): Promise<EtcdForward> {
  const kc = new KubeConfig();
  kc.loadFromString(renderKubeconfig({ ...server, name: 'workload' }));
  const sockets = new Set<Socket>();
  const errors: string[] = [];
  const listener: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const errorChannel = new PassThrough();
    let error = '';
    errorChannel.on('data', (c: Buffer) => (error += c.toString()));
    // The socket's bytes go in as the forward's input, what comes back is written to it.
    new PortForward(kc)
      .portForward('kube-system', pod, [2379], socket, errorChannel, socket)
      .then((ws) => {
        const w = ws as unknown as { on(ev: 'close', fn: () => void): void; close(): void };
        w.on('close', () => {
          if (error) errors.push(error);
          socket.destroy();
        });
        socket.on('close', () => w.close());
      })
      .catch((e: Error) => {
        errors.push(e.message);
        socket.destroy();
      });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `https://127.0.0.1:${(listener.address() as AddressInfo).port}`,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        listener.close(() => resolve());
      }),
  };
}

/** An etcd3 client of one endpoint with a client certificate and the CA it trusts the member's certificate by. */
export function etcdClient(endpoint: string, trusted: KeyPair, client: KeyPair): Etcd3 {
  return new Etcd3({
    hosts: endpoint,
    credentials: {
      rootCertificate: Buffer.from(trusted.cert),
      certChain: Buffer.from(client.cert),
      privateKey: Buffer.from(client.key),
    },
    dialTimeout: 5000,
    // Fail a call at once rather than retrying it (the assertions are about what one member answers).
    faultHandling: { host: () => noRetry, global: noRetry } as never,
  });
}

/** A cockatiel-shaped policy that runs the call once (etcd3 wraps every call in its `execute`). */
const noRetry = { execute: <T>(fn: () => Promise<T>) => fn() };

/** A call's failure message, or '' when it succeeded. */
export async function failure(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}
