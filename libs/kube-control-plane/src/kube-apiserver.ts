// kube-apiserver on loopback over an EtcdCluster, configured as controller-runtime's envtest configures it
// (pkg/internal/testing/controlplane/apiserver.go): a generated serving CA, service-account keys, RBAC, and an admin
// in system:masters — here by a static bearer token, so kubeconfigs look like the embedded server's.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { generateServingCerts } from './tls';
import { AUDIT_POLICY, AuditLog } from './audit';
import { freePort, ManagedProcess, startRetryingTakenPorts } from './process';

/** How long kube-apiserver may take to answer /readyz (post-start hooks, RBAC bootstrap policy). */
export const KUBE_APISERVER_READY_TIMEOUT_MS = 90_000;
/** Timeout of one admin request (readiness probes, CRD installs): a hung one is retried by its caller. */
const ADMIN_REQUEST_TIMEOUT_MS = 5000;

/** The user the admin token authenticates as. */
export const ADMIN_USER = 'envtest-admin';

export interface KubeApiServerOptions {
  binary: string;
  /** Folder for certificates, keys, the token file and the log. */
  dir: string;
  etcdServers: string;
  /** Secure port; 0 or omitted picks a free one. */
  port?: number;
  /** Where free ports come from (default freePort); a test hands out a taken one. */
  freePort?: () => Promise<number>;
  /** Extra flags, `--name=value`, appended last (so they win). */
  extraArgs?: string[];
  /** How long it may take to become ready (default KUBE_APISERVER_READY_TIMEOUT_MS). */
  readyTimeoutMs?: number;
}

export interface KubeApiServerEndpoint {
  url: string;
  token: string;
  /** base64 PEM of the serving CA, as a kubeconfig's certificate-authority-data. */
  caData: string;
}

/** A request with the admin token (a JSON body, or `contentType`); resolves the status code and body. */
export function requestWithToken(
  ep: KubeApiServerEndpoint,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${ep.token}`,
      ...(body === undefined ? {} : { 'content-type': contentType }),
    };
    const req = request(
      `${ep.url}${path}`,
      { method, ca: Buffer.from(ep.caData, 'base64'), headers, timeout: ADMIN_REQUEST_TIMEOUT_MS },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** GET a path with the admin token; resolves the status code and body. */
export const getWithToken = (ep: KubeApiServerEndpoint, path: string) => requestWithToken(ep, 'GET', path);

export class KubeApiServer {
  process?: ManagedProcess;
  endpoint?: KubeApiServerEndpoint;
  /** Every request the server answered (JSON lines), read by request counters. */
  readonly auditLog: AuditLog;

  constructor(private readonly opts: KubeApiServerOptions) {
    this.auditLog = new AuditLog(join(opts.dir, 'audit.log'));
  }

  /** Starts the server; on a free port another process took meanwhile, again on another (startRetryingTakenPorts). */
  async start(): Promise<KubeApiServerEndpoint> {
    if (this.opts.port) return this.startOnce(); // a port asked for: its bind error is the answer
    return startRetryingTakenPorts(
      () => this.startOnce(),
      () => undefined,
    );
  }

  private async startOnce(): Promise<KubeApiServerEndpoint> {
    const { dir } = this.opts;
    const certs = await generateServingCerts();
    writeFileSync(join(dir, 'apiserver.crt'), certs.cert);
    writeFileSync(join(dir, 'apiserver.key'), certs.key, { mode: 0o600 });
    writeFileSync(join(dir, 'ca.crt'), certs.caCert);
    const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'sa.key'), sa.privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    writeFileSync(join(dir, 'sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }));
    const token = randomBytes(24).toString('hex');
    writeFileSync(join(dir, 'tokens.csv'), `${token},${ADMIN_USER},${ADMIN_USER},system:masters\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
    const port = this.opts.port || (await (this.opts.freePort ?? freePort)());
    const url = `https://127.0.0.1:${port}`;
    const endpoint = { url, token, caData: Buffer.from(certs.caCert).toString('base64') };
    this.process = new ManagedProcess({
      component: 'kube-apiserver',
      binary: this.opts.binary,
      logPath: join(dir, 'kube-apiserver.log'),
      args: [
        `--etcd-servers=${this.opts.etcdServers}`,
        '--advertise-address=127.0.0.1',
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${dir}`,
        `--tls-cert-file=${join(dir, 'apiserver.crt')}`,
        `--tls-private-key-file=${join(dir, 'apiserver.key')}`,
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
        '--authorization-mode=RBAC',
        `--service-account-issuer=${url}`,
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        // As envtest: no controller-manager runs to create service-account tokens.
        '--disable-admission-plugins=ServiceAccount',
        `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
        `--audit-log-path=${this.auditLog.path}`,
        '--audit-log-format=json',
        '--audit-log-mode=blocking',
        '--audit-log-maxsize=0',
        ...(this.opts.extraArgs ?? []),
      ],
    });
    this.endpoint = endpoint;
    await this.process.start(
      async () => (await getWithToken(endpoint, '/readyz')).status === 200,
      this.opts.readyTimeoutMs ?? KUBE_APISERVER_READY_TIMEOUT_MS,
    );
    return endpoint;
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }
}
