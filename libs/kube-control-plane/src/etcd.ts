// etcd on loopback: one member for tests (as controller-runtime's envtest), or several for fault-injection, each a
// ManagedProcess with its own data folder so a killed member restarts on its data.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { freePort, ManagedProcess, startRetryingTakenPorts } from './process';

/** How long an etcd member may take to answer /health. */
export const ETCD_READY_TIMEOUT_MS = 30_000;
/** How many times a new cluster is started when a port it was given was taken meanwhile. */
/** Timeout of one request to an etcd member's HTTP endpoints (/health, the gRPC gateway). */
const ETCD_REQUEST_TIMEOUT_MS = 2000;

export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  process: ManagedProcess;
}

/** TLS for the members' client URLs, as kubeadm runs etcd: a serving certificate and client certificates required. */
export interface EtcdTlsOptions {
  /** The CA (PEM) clients must present a certificate of (--client-cert-auth, --trusted-ca-file). */
  caCert: string;
  /** The members' serving certificate (valid for 127.0.0.1) and key, PEM. */
  serverCert: string;
  serverKey: string;
  /** A client certificate of the CA (and key) for the cluster's own probes (/health, leader()). */
  clientCert: string;
  clientKey: string;
}

/** Client-side TLS of a probe request (none for http:// members). */
type ProbeTls = Pick<RequestOptions & { ca?: string; cert?: string; key?: string }, 'ca' | 'cert' | 'key'>;

function request(url: string, opts: RequestOptions & ProbeTls, cb: Parameters<typeof httpRequest>[2]) {
  return url.startsWith('https:') ? httpsRequest(url, opts, cb) : httpRequest(url, opts, cb);
}

function getJson(url: string, tls: ProbeTls = {}): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: ETCD_REQUEST_TIMEOUT_MS, ...tls }, (res) => {
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
async function healthy(clientUrl: string, tls?: ProbeTls): Promise<boolean> {
  const { status, body } = await getJson(`${clientUrl}/health`, tls);
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
  /** Serve clients over TLS with client-certificate authentication (default: plain http). */
  tls?: EtcdTlsOptions;
  /** Where the members' ports come from (default: a free port on 127.0.0.1 each). */
  freePort?: () => Promise<number>;
}

export class EtcdCluster {
  readonly members: EtcdMember[] = [];

  constructor(private readonly opts: EtcdClusterOptions) {}

  /** What the probes present to TLS members. */
  private get probeTls(): ProbeTls {
    const tls = this.opts.tls;
    return tls ? { ca: tls.caCert, cert: tls.clientCert, key: tls.clientKey } : {};
  }

  private get readyTimeoutMs(): number {
    return this.opts.readyTimeoutMs ?? ETCD_READY_TIMEOUT_MS;
  }

  /** Client URLs, comma-separated, as kube-apiserver's --etcd-servers takes them. */
  get clientUrls(): string {
    return this.members.map((m) => m.clientUrl).join(',');
  }

  /** Starts a new cluster; on ports another process took meanwhile, again on other ports (startRetryingTakenPorts). */
  async start(): Promise<void> {
    await startRetryingTakenPorts(
      () => this.startOnce(),
      () => {
        for (const m of this.members.splice(0)) rmSync(m.dataDir, { recursive: true, force: true });
      },
    );
  }

  private async startOnce(): Promise<void> {
    const n = this.opts.members ?? 1;
    const scheme = this.opts.tls ? 'https' : 'http';
    const tlsArgs: string[] = [];
    if (this.opts.tls) {
      const dir = join(this.opts.dir, 'tls');
      mkdirSync(dir, { recursive: true });
      const file = (name: string, pem: string) => {
        writeFileSync(join(dir, name), pem, { mode: 0o600 });
        return join(dir, name);
      };
      tlsArgs.push(
        `--cert-file=${file('server.crt', this.opts.tls.serverCert)}`,
        `--key-file=${file('server.key', this.opts.tls.serverKey)}`,
        `--trusted-ca-file=${file('ca.crt', this.opts.tls.caCert)}`,
        '--client-cert-auth=true',
      );
    }
    for (let i = 0; i < n; i++) {
      const name = `etcd-${i}`;
      const dataDir = join(this.opts.dir, name);
      mkdirSync(dataDir, { recursive: true });
      const port = this.opts.freePort ?? freePort;
      const [client, peer] = [await port(), await port()];
      this.members.push({
        name,
        dataDir,
        clientUrl: `${scheme}://127.0.0.1:${client}`,
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
          ...tlsArgs,
        ],
      });
    }
    // Members of a new cluster wait for each other's peers, so all are started before any is awaited.
    const started = this.members.map((m) =>
      m.process.start(() => healthy(m.clientUrl, this.probeTls), this.readyTimeoutMs),
    );
    const results = await Promise.allSettled(started);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await this.stop();
      throw failed.reason;
    }
  }

  /** Restarts a stopped or killed member on its data (it rejoins the cluster it left). */
  async restart(member: EtcdMember): Promise<void> {
    await member.process.start(() => healthy(member.clientUrl, this.probeTls), this.readyTimeoutMs);
  }

  /** Whether a member is up and answers /health with a leader (false when down, unreachable or leaderless). */
  async healthy(member: EtcdMember): Promise<boolean> {
    if (!member.process.alive) return false;
    return healthy(member.clientUrl, this.probeTls).catch(() => false);
  }

  /** The member that is the Raft leader now, from each live member's /v3/maintenance/status. */
  async leader(): Promise<EtcdMember | undefined> {
    for (const m of this.members) {
      if (!m.process.alive) continue;
      const status = await postJson(`${m.clientUrl}/v3/maintenance/status`, this.probeTls).catch(() => undefined);
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
function postJson(url: string, tls: ProbeTls = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', timeout: ETCD_REQUEST_TIMEOUT_MS, headers: { 'content-type': 'application/json' }, ...tls },
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
