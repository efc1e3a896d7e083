// Workload API servers in one child process (see server-host.ts for why). The child is forked on the first start
// and talks over Node's IPC channel (server-process.ts). If it dies, its servers report alive = false, pending
// requests fail and the servers' onLost listeners run, so WorkloadClusters has the cluster started again (in a new
// child).
import { fork, type ChildProcess } from 'node:child_process';
import { extname, join, resolve } from 'node:path';
import type { Logger, RequestCounts } from '@capi/apiserver';
import type { KeyPair } from '@capi/certs';
import type { StorageUsage, WorkloadServer, WorkloadServerHost, WorkloadServerStartOptions } from './server-host';
import type { WorkloadServerReply, WorkloadServerRequest } from './server-process';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type Started = { id: number; url: string; token: string; caData?: string };
type Op = Exclude<WorkloadServerRequest['op'], 'start' | 'setEtcdCA'>;

/** Distributive Omit, so each request variant keeps its own fields. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** How long close() waits for the child to exit before killing it. */
const DEFAULT_EXIT_TIMEOUT_MS = 5000;

export interface ChildProcessWorkloadServerHostOptions {
  logger?: Logger;
  /** How long close() waits for the child to exit before killing it (default 5 s). */
  exitTimeoutMs?: number;
}

/** Node options for the child: the parent's, minus debugger flags; a TypeScript entry needs swc's require hook. */
function childExecArgv(entry: string): string[] {
  const argv = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  const hooked = argv.some((a) => a.includes('@swc-node/register'));
  return entry.endsWith('.ts') && !hooked ? [...argv, '-r', '@swc-node/register'] : argv;
}

/** A server's state in the parent: marked dead, and its lost listeners called, when the child exits. */
interface ServerState {
  alive: boolean;
  lost: ((reason: string) => void)[];
}

/** One forked child: its process, the servers it runs and requests awaiting a reply. */
interface Child {
  proc: ChildProcess;
  servers: Set<ServerState>;
  pending: Map<number, Pending>;
}

export class ChildProcessWorkloadServerHost implements WorkloadServerHost {
  private child?: Child;
  private nextId = 1;

  constructor(private readonly opts: ChildProcessWorkloadServerHostOptions = {}) {}

  pid(): number | undefined {
    return this.child?.proc.pid;
  }

  async start(host: string, preferredPort?: number, opts?: WorkloadServerStartOptions): Promise<WorkloadServer> {
    const child = this.ensureChild();
    const started = (await this.request(child, { op: 'start', host, preferredPort, opts })) as Started;
    const state: ServerState = { alive: child.proc.connected, lost: [] };
    let etcdCA: KeyPair | undefined;
    child.servers.add(state);
    const call = async (op: Op) =>
      state.alive
        ? this.request(child, { op, server: started.id })
        : Promise.reject(new Error(`workload server ${started.url} is gone`));
    return {
      url: started.url,
      token: started.token,
      caData: started.caData,
      port: Number(new URL(started.url).port),
      get alive() {
        return state.alive;
      },
      onLost: (listener) => void state.lost.push(listener),
      countRequests: async () => (await call('countRequests')) as RequestCounts,
      resetRequests: async () => void (await call('resetRequests')),
      storageUsage: async () => (await call('storageUsage')) as StorageUsage,
      // The CA goes to the child once per server (a lost child's new server gets it again from the controller).
      setEtcdCA: async (ca) => {
        if (etcdCA?.cert === ca.cert && etcdCA.key === ca.key) return;
        if (!state.alive) throw new Error(`workload server ${started.url} is gone`);
        await this.request(child, { op: 'setEtcdCA', server: started.id, ca });
        etcdCA = ca;
      },
      stop: async () => {
        if (!state.alive) return;
        state.alive = false;
        child.servers.delete(state);
        await this.request(child, { op: 'stop', server: started.id }).catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    // Stopped on purpose: dead, but not lost.
    for (const s of child.servers) s.alive = false;
    child.servers.clear();
    const proc = child.proc;
    const exited = new Promise<void>((r) =>
      proc.exitCode !== null || proc.signalCode !== null ? r() : proc.once('exit', () => r()),
    );
    // The child stops its servers and exits when the channel closes.
    if (proc.connected) proc.disconnect();
    const timer = setTimeout(() => proc.kill('SIGKILL'), this.opts.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private ensureChild(): Child {
    if (this.child?.proc.connected) return this.child;
    // The entry sits next to this file: server-process.ts from source (swc), server-process.js once built.
    const entry = join(__dirname, `server-process${extname(__filename)}`);
    const ts = entry.endsWith('.ts');
    const proc = fork(entry, [], {
      execArgv: childExecArgv(entry),
      // From source, swc resolves the @capi/* path aliases with the repository's tsconfig.
      env: ts ? { SWC_NODE_PROJECT: resolve(__dirname, '../../../../tsconfig.json'), ...process.env } : process.env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const child: Child = { proc, servers: new Set(), pending: new Map() };
    proc.on('message', (m: WorkloadServerReply) => this.onReply(child, m));
    proc.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const gone = new Error(`the workload servers' process ${proc.pid} exited (${signal ?? `code ${code}`})`);
      for (const p of child.pending.values()) p.reject(gone);
      child.pending.clear();
      const servers = [...child.servers];
      child.servers.clear();
      for (const s of servers) s.alive = false;
      for (const s of servers) for (const listener of s.lost.splice(0)) listener(gone.message);
    });
    // Nothing but a pending request keeps the parent alive for the child (see request()).
    proc.unref();
    proc.channel?.unref();
    this.child = child;
    return child;
  }

  private onReply(child: Child, m: WorkloadServerReply): void {
    if ('log' in m) {
      this.opts.logger?.[m.log](m.msg);
      return;
    }
    const p = child.pending.get(m.id);
    if (!p) return;
    child.pending.delete(m.id);
    if (child.pending.size === 0) child.proc.channel?.unref();
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(m.error));
  }

  private request(child: Child, req: WithoutId<WorkloadServerRequest>): Promise<unknown> {
    if (!child.proc.connected)
      return Promise.reject(new Error(`the workload servers' process ${child.proc.pid} is gone`));
    const id = this.nextId++;
    return new Promise((resolvePromise, reject) => {
      child.pending.set(id, { resolve: resolvePromise, reject });
      child.proc.channel?.ref();
      child.proc.send({ ...req, id } as WorkloadServerRequest, (e) => {
        if (!e || !child.pending.delete(id)) return;
        reject(e);
      });
    });
  }
}
