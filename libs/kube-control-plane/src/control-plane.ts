// etcd + kube-apiserver from KUBEBUILDER_ASSETS (as controller-runtime's envtest finds them), started on loopback
// in a temporary folder and stopped with their data.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster } from './etcd';
import { AuditRequestCounter, type AuditCounts } from './audit';
import { installCrds } from './crds';
import { ADMIN_USER, getWithToken, KubeApiServer, type KubeApiServerEndpoint } from './kube-apiserver';

export const KUBEBUILDER_ASSETS = 'KUBEBUILDER_ASSETS';

/** The folder holding kube-apiserver and etcd, or an error saying how to get them. */
export function kubeAssetsDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env[KUBEBUILDER_ASSETS];
  if (!dir) {
    throw new Error(
      `${KUBEBUILDER_ASSETS} is not set: it names the folder of kube-apiserver and etcd; ` +
        'build them with `npm run kube:build` and set it to the folder that command prints',
    );
  }
  for (const bin of ['etcd', 'kube-apiserver']) {
    if (!existsSync(join(dir, bin)))
      throw new Error(`${KUBEBUILDER_ASSETS}=${dir} has no ${bin}: run \`npm run kube:build\``);
  }
  return dir;
}

export interface KubeControlPlaneOptions {
  /** etcd members behind kube-apiserver (default 1). */
  etcdMembers?: number;
  /** kube-apiserver's secure port (default: a free one). */
  port?: number;
  /** Extra kube-apiserver flags. */
  apiServerArgs?: string[];
  /**
   * The folder of data, certificates and logs (created if missing; its etcd data must not be in use). Default: a new
   * temporary folder.
   */
  dir?: string;
  /** Keep the folder (data and logs) after stop (default: true for a given `dir`, else ENVTEST_KEEP_DATA=1). */
  keepData?: boolean;
  /** The folder of etcd and kube-apiserver (default KUBEBUILDER_ASSETS). */
  assetsDir?: string;
  /** Readiness timeouts (defaults ETCD_READY_TIMEOUT_MS, KUBE_APISERVER_READY_TIMEOUT_MS). */
  etcdReadyTimeoutMs?: number;
  apiServerReadyTimeoutMs?: number;
}

export interface KubeControlPlane extends KubeApiServerEndpoint {
  /** The folder of data, certificates and logs. */
  dir: string;
  etcd: EtcdCluster;
  apiServer: KubeApiServer;
  /** Applies CRDs; resolves once they are Established and their resources served. */
  installCrds(crds: object[]): Promise<void>;
  /** The admin user's requests since the last resetRequests(), from kube-apiserver's audit log. */
  countRequests(): Promise<AuditCounts>;
  resetRequests(): Promise<void>;
  stop(): Promise<void>;
}

export async function startKubeControlPlane(opts: KubeControlPlaneOptions = {}): Promise<KubeControlPlane> {
  const assets = opts.assetsDir ?? kubeAssetsDir();
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'envtest-kube-'));
  if (opts.dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keep = opts.keepData ?? (opts.dir !== undefined || process.env.ENVTEST_KEEP_DATA === '1');
  const etcd = new EtcdCluster({
    binary: join(assets, 'etcd'),
    dir,
    members: opts.etcdMembers,
    readyTimeoutMs: opts.etcdReadyTimeoutMs,
  });
  let apiServer: KubeApiServer | undefined;
  const stop = async () => {
    await apiServer?.stop();
    await etcd.stop();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await etcd.start();
    apiServer = new KubeApiServer({
      binary: join(assets, 'kube-apiserver'),
      dir,
      etcdServers: etcd.clientUrls,
      port: opts.port,
      extraArgs: opts.apiServerArgs,
      readyTimeoutMs: opts.apiServerReadyTimeoutMs,
    });
    const endpoint = await apiServer.start();
    const counter = new AuditRequestCounter(apiServer.auditLog, ADMIN_USER, async (name) => {
      await getWithToken(endpoint, `/api/v1/namespaces/kube-system/configmaps/${name}`);
    });
    return {
      ...endpoint,
      dir,
      etcd,
      apiServer,
      stop,
      installCrds: (crds) => installCrds(endpoint, crds),
      countRequests: () => counter.counts(),
      resetRequests: () => counter.reset(),
    };
  } catch (e) {
    await apiServer?.stop().catch(() => undefined);
    await etcd.stop().catch(() => undefined);
    // The logs are what explains the failure: keep the folder the error names.
    throw e;
  }
}
