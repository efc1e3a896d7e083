// The child side of ChildProcessWorkloadServerHost: runs workload API servers in this process and answers the
// parent's requests over the IPC channel. It exits when the parent disconnects (closes the host, exits or is killed),
// so no server outlives the manager.
import type { KeyPair } from '@capi/certs';
import { InProcessWorkloadServerHost, type WorkloadServer, type WorkloadServerStartOptions } from './server-host';

/** parent → child */
export type WorkloadServerRequest =
  | { id: number; op: 'start'; host: string; preferredPort?: number; opts?: WorkloadServerStartOptions }
  | { id: number; op: 'stop' | 'countRequests' | 'resetRequests' | 'storageUsage'; server: number }
  | { id: number; op: 'setEtcdCA'; server: number; ca: KeyPair };

/** child → parent: a reply to request `id`, or a log line of a server. */
export type WorkloadServerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string }
  | { log: 'info' | 'error'; msg: string };

/** Serves the parent's requests until it disconnects, then stops the servers and exits. */
export function serveWorkloadServers(): void {
  const send = (m: WorkloadServerReply) => {
    if (process.connected) process.send!(m);
  };
  const host = new InProcessWorkloadServerHost({
    info: (msg) => send({ log: 'info', msg }),
    error: (msg) => send({ log: 'error', msg }),
  });
  const servers = new Map<number, WorkloadServer>();
  let next = 1;
  const handle = async (req: WorkloadServerRequest): Promise<unknown> => {
    if (req.op === 'start') {
      const server = await host.start(req.host, req.preferredPort, req.opts);
      const id = next++;
      servers.set(id, server);
      return { id, url: server.url, token: server.token, caData: server.caData };
    }
    const server = servers.get(req.server);
    if (!server) throw new Error(`no workload server ${req.server} in process ${process.pid}`);
    if (req.op === 'setEtcdCA') return server.setEtcdCA(req.ca);
    if (req.op === 'stop') servers.delete(req.server);
    return server[req.op]();
  };
  process.on('message', (req: WorkloadServerRequest) => {
    handle(req).then(
      (value) => send({ id: req.id, ok: true, value }),
      (e: unknown) => send({ id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
    );
  });
  process.once('disconnect', () => {
    void host.close().finally(() => process.exit(0));
  });
}

if (require.main === module) serveWorkloadServers();
