// grpc-js cannot take a connection from a custom dialer (upstream passes proxy.Dialer to grpc.WithContextDialer), so
// each etcd endpoint gets a listener on 127.0.0.1:0: every connection accepted there is one port-forward, as kubectl
// port-forward does. The bridge remembers why the last dial failed, so a failed call can say it.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export class LoopbackBridge {
  /** Why the last dial failed (cleared by a successful one). */
  lastDialError: Error | undefined;
  private readonly open = new Set<Socket | Duplex>();
  private closed = false;

  private constructor(
    private readonly server: Server,
    private readonly dial: () => Promise<Duplex>,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /** A bridge listening on 127.0.0.1 (a free port) whose connections are piped to `dial()`'s streams. */
  static listen(dial: () => Promise<Duplex>): Promise<LoopbackBridge> {
    const server = createServer({ pauseOnConnect: true });
    const bridge = new LoopbackBridge(server, dial);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        server.unref();
        resolve(bridge);
      });
    });
  }

  /** host:port to connect to. */
  get address(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `${address}:${port}`;
  }

  private track<T extends Socket | Duplex>(s: T): T {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    return s;
  }

  private accept(socket: Socket): void {
    this.track(socket);
    socket.on('error', () => undefined);
    this.dial().then(
      (remote) => {
        if (this.closed || socket.destroyed) {
          remote.destroy();
          return;
        }
        this.lastDialError = undefined;
        this.track(remote);
        remote.on('error', (e) => {
          this.lastDialError = e;
          socket.destroy();
        });
        remote.once('close', () => socket.destroy());
        socket.once('close', () => remote.destroy());
        socket.pipe(remote);
        remote.pipe(socket);
        socket.resume();
      },
      (e: Error) => {
        this.lastDialError = e;
        socket.destroy();
      },
    );
  }

  /** Stops listening and closes every open connection. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const s of this.open) s.destroy();
    this.open.clear();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
