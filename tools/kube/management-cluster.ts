// A management cluster set up as a user sets one up: etcd + kube-apiserver (@capi/kube-control-plane), then with
// kubectl the project's CRDs, Namespace and RBAC from deploy/ (and the in-memory provider's CRDs), and a token for the
// manager's ServiceAccount issued by kube-apiserver itself (`kubectl create token`), so the manager runs with exactly
// the permissions deploy/rbac grants it. Used by `npm run kube:up`, the demo's kube e2e and the rollout bench.
import { execFile } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderKubeconfig } from '@capi/apiserver';
import { startKubeControlPlane, type KubeControlPlane } from '@capi/kube-control-plane';

export const REPO_ROOT = resolve(__dirname, '../..');

/** The ServiceAccount deploy/rbac binds the manager's roles to. */
export const MANAGER_SERVICE_ACCOUNT = { namespace: 'capi-system', name: 'capi-manager' } as const;

/** What is applied from deploy/, in order (the Namespace before the namespaced RBAC objects). */
export const DEPLOY_STEPS: ReadonlyArray<{ what: string; args: string[] }> = [
  { what: 'Cluster API CRDs', args: ['-k', 'deploy/crd'] },
  { what: 'Namespace capi-system', args: ['-f', 'deploy/manager/namespace.yaml'] },
  { what: 'RBAC (ServiceAccount, ClusterRole, leader-election Role, bindings)', args: ['-k', 'deploy/rbac'] },
  { what: 'in-memory provider CRDs and RBAC', args: ['-k', 'deploy/inmemory'] },
];

/** Lifetime of the manager's token (kube-apiserver runs without --service-account-max-token-expiration). */
export const MANAGER_TOKEN_DURATION = '720h';

export class KubectlError extends Error {}

/**
 * The folder of etcd and kube-apiserver: KUBEBUILDER_ASSETS, else the `npm run kube:build` cache (never builds here:
 * a missing binary is an error saying to run it). assets.mjs is an ES module, loaded with require() (Node >= 20.19).
 */
export function kubeAssetsFolder(): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const assets = require('./assets.mjs') as { kubeAssets(opts: { build: boolean }): Promise<string> };
  return assets.kubeAssets({ build: false });
}

/** Runs kubectl in the repository root; rejects with its last stderr line (version-skew warnings dropped). */
export function kubectl(args: string[], kubeconfig?: string, timeoutMs = 120_000): Promise<string> {
  const full = [...args, ...(kubeconfig ? ['--kubeconfig', kubeconfig] : [])];
  return new Promise((resolvePromise, reject) => {
    execFile('kubectl', full, { cwd: REPO_ROOT, maxBuffer: 64 << 20, timeout: timeoutMs }, (err, stdout, stderr) => {
      if (!err) return resolvePromise(stdout);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT')
        return reject(new KubectlError("kubectl not found on PATH: it applies deploy/ and issues the manager's token"));
      const lines = stderr
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !/^Warning: version difference/.test(l));
      reject(new KubectlError(`kubectl ${args.join(' ')}: ${lines.at(-1) ?? err.message}`));
    });
  });
}

export interface ManagementClusterOptions {
  /** Folder of the control plane's data, certificates and logs, and of the two kubeconfigs. */
  dir: string;
  /** kube-apiserver's port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Folder holding etcd and kube-apiserver (default KUBEBUILDER_ASSETS). */
  assetsDir?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface ManagementCluster {
  controlPlane: KubeControlPlane;
  url: string;
  /** kubeconfig of the admin (system:masters): for users, kubectl and the demo. */
  adminKubeconfig: string;
  /** kubeconfig of ServiceAccount capi-system/capi-manager: for the manager, with deploy/rbac's permissions only. */
  managerKubeconfig: string;
  stop(): Promise<void>;
}

function writeKubeconfig(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // the mode only applies when the file is created
}

/** Starts etcd + kube-apiserver in `dir`, applies deploy/ with kubectl and writes admin.kubeconfig and manager.kubeconfig there. */
export async function startManagementCluster(opts: ManagementClusterOptions): Promise<ManagementCluster> {
  const log = opts.log ?? (() => undefined);
  const dir = resolve(opts.dir);
  await kubectl(['version', '--client']); // no kubectl: say so before starting anything
  log(`starting etcd and kube-apiserver in ${dir}`);
  const controlPlane = await startKubeControlPlane({ dir, port: opts.port, assetsDir: opts.assetsDir, keepData: true });
  try {
    const adminKubeconfig = join(dir, 'admin.kubeconfig');
    writeKubeconfig(
      adminKubeconfig,
      renderKubeconfig({
        url: controlPlane.url,
        token: controlPlane.token,
        caData: controlPlane.caData,
        name: 'capi-kube-admin',
      }),
    );
    for (const step of DEPLOY_STEPS) {
      log(`applying ${step.what}: kubectl apply --server-side ${step.args.join(' ')}`);
      await kubectl(['apply', '--server-side', ...step.args], adminKubeconfig);
    }
    await kubectl(
      ['wait', '--for=condition=Established', '--timeout=60s', 'customresourcedefinitions', '--all'],
      adminKubeconfig,
    );
    const { namespace, name } = MANAGER_SERVICE_ACCOUNT;
    log(
      `issuing a token for ServiceAccount ${namespace}/${name}: kubectl create token ${name} -n ${namespace} --duration=${MANAGER_TOKEN_DURATION}`,
    );
    const token = (
      await kubectl(['create', 'token', name, '-n', namespace, `--duration=${MANAGER_TOKEN_DURATION}`], adminKubeconfig)
    ).trim();
    const managerKubeconfig = join(dir, 'manager.kubeconfig');
    writeKubeconfig(
      managerKubeconfig,
      renderKubeconfig({ url: controlPlane.url, token, caData: controlPlane.caData, name: 'capi-kube-manager' }),
    );
    return { controlPlane, url: controlPlane.url, adminKubeconfig, managerKubeconfig, stop: () => controlPlane.stop() };
  } catch (e) {
    await controlPlane.stop().catch(() => undefined);
    throw e;
  }
}
