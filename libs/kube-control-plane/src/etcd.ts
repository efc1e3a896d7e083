// etcd on loopback: one member for tests (as controller-runtime's envtest), or several for fault-injection, each a
// ManagedProcess with its own data folder so a killed member restarts on its data.
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { freePort, ManagedProcess } from './process';

/** How long an etcd member may take to answer /health. */
export const ETCD_READY_TIMEOUT_MS = 30_000;
/** Timeout of one request to an etcd member's HTTP endpoints (/health, the gRPC gateway). */
const ETCD_REQUEST_TIMEOUT_MS = 2000;

export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  process: ManagedProcess;
}

function getJson(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: ETCD_REQUEST_TIMEOUT_MS }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** etcd's /health answers {"health":"true"} once the member has a leader and serves reads. */
async function healthy(clientUrl: string): Promise<boolean> {
  const { status, body } = await getJson(`${clientUrl}/health`);
  return status === 200 && (body as { health?: string }).health === 'true';
}

export interface EtcdClusterOptions {
  binary: string;
  /** Folder for the members' data and logs. */
  dir: string;
  /** Members (default 1). */
  members?: number;
  /** How long each member may take to become healthy (default ETCD_READY_TIMEOUT_MS). */
  readyTimeoutMs?: number;
}

export class EtcdCluster {
  readonly members: EtcdMember[] = [];

  constructor(private readonly opts: EtcdClusterOptions) {}

  private get readyTimeoutMs(): number {
    return this.opts.readyTimeoutMs ?? ETCD_READY_TIMEOUT_MS;
  }

  /** Client URLs, comma-separated, as kube-apiserver's --etcd-servers takes them. */
  get clientUrls(): string {
    return this.members.map((m) => m.clientUrl).join(',');
  }

  async start(): Promise<void> {
    const n = this.opts.members ?? 1;
    for (let i = 0; i < n; i++) {
      const name = `etcd-${i}`;
      const dataDir = join(this.opts.dir, name);
      mkdirSync(dataDir, { recursive: true });
      const [client, peer] = [await freePort(), await freePort()];
      this.members.push({
        name,
        dataDir,
        clientUrl: `http://127.0.0.1:${client}`,
        peerUrl: `http://127.0.0.1:${peer}`,
        process: undefined!,
      });
    }
    const initialCluster = this.members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    for (const m of this.members) {
      m.process = new ManagedProcess({
        component: n === 1 ? 'etcd' : `etcd member ${m.name}`,
        binary: this.opts.binary,
        logPath: join(this.opts.dir, `${m.name}.log`),
        args: [
          `--name=${m.name}`,
          `--data-dir=${m.dataDir}`,
          `--listen-client-urls=${m.clientUrl}`,
          `--advertise-client-urls=${m.clientUrl}`,
          `--listen-peer-urls=${m.peerUrl}`,
          `--initial-advertise-peer-urls=${m.peerUrl}`,
          `--initial-cluster=${initialCluster}`,
          '--initial-cluster-state=new',
          '--initial-cluster-token=envtest',
          // Test data is thrown away: envtest runs etcd without fsync too.
          '--unsafe-no-fsync=true',
          '--log-level=warn',
          '--listen-metrics-urls=',
        ],
      });
    }
    // Members of a new cluster wait for each other's peers, so all are started before any is awaited.
    const started = this.members.map((m) => m.process.start(() => healthy(m.clientUrl), this.readyTimeoutMs));
    const results = await Promise.allSettled(started);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await this.stop();
      throw failed.reason;
    }
  }

  /** Restarts a stopped or killed member on its data (it rejoins the cluster it left). */
  async restart(member: EtcdMember): Promise<void> {
    await member.process.start(() => healthy(member.clientUrl), this.readyTimeoutMs);
  }

  /** Whether a member is up and answers /health with a leader (false when down, unreachable or leaderless). */
  async healthy(member: EtcdMember): Promise<boolean> {
    if (!member.process.alive) return false;
    return healthy(member.clientUrl).catch(() => false);
  }

  /** The member that is the Raft leader now, from each live member's /v3/maintenance/status. */
  async leader(): Promise<EtcdMember | undefined> {
    for (const m of this.members) {
      if (!m.process.alive) continue;
      const status = await postJson(`${m.clientUrl}/v3/maintenance/status`).catch(() => undefined);
      const header = status as { header?: { member_id?: string }; leader?: string } | undefined;
      if (header?.leader && header.header?.member_id === header.leader) return m;
    }
    return undefined;
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.process?.stop()));
  }
}

/** POST {} to etcd's gRPC gateway (JSON); 64-bit ids come back as decimal strings. */
function postJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', timeout: ETCD_REQUEST_TIMEOUT_MS, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(e);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end('{}');
  });
}
