import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdRegistry } from '@capi/api';
import { ApiServer, renderKubeconfig, type ApiServerOptions, type RequestCounts } from '@capi/apiserver';
import {
  envtestTarget,
  startKubeControlPlane,
  type EnvtestTarget,
  type KubeControlPlane,
  type KubeControlPlaneOptions,
} from '@capi/kube-control-plane';

export interface EnvtestOptions {
  /** Extra CRDs installed after the project's ones. */
  crds?: object[];
  /** Install the CRDs of every kind registered in @capi/api's crdRegistry (default true). */
  installProjectCrds?: boolean;
  /** Default: ENVTEST_TARGET, else embedded. */
  target?: EnvtestTarget;
  /** Embedded server options (defaults: in-memory storage, HTTPS on 127.0.0.1, random port); ignored by kube. */
  server?: Partial<ApiServerOptions>;
  /** kube target options (etcd members, port, extra kube-apiserver flags); ignored by embedded. */
  kube?: KubeControlPlaneOptions;
}

export interface Envtest {
  target: EnvtestTarget;
  /** The embedded server; undefined on the kube target (see embeddedServer()). */
  server?: ApiServer;
  /** etcd + kube-apiserver; undefined on the embedded target. */
  kube?: KubeControlPlane;
  url: string;
  token: string;
  caData?: string;
  /** A kubeconfig file (mode 0600) in a temporary directory removed by stop(). */
  kubeconfigPath: string;
  /** The same kubeconfig as YAML. */
  kubeconfig: string;
  /** Installs CRDs and returns once their resources are served. */
  installCrds(crds: object[]): Promise<void>;
  /**
   * Requests the server answered since the last resetRequests(), counted by the server: the embedded server's
   * counters, or kube-apiserver's audit log (the admin user's requests; a write's no-op outcome is not known there).
   */
  countRequests(): Promise<RequestCounts>;
  resetRequests(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The embedded ApiServer of an envtest, for what only it has (garbage collection idling, storage figures): code
 * using it runs on the embedded target only. Request counts are on both: Envtest.countRequests().
 */
export function embeddedServer(env: Envtest): ApiServer {
  if (!env.server)
    throw new Error(`this assertion reads the embedded API server's internals; the target is ${env.target}`);
  return env.server;
}

/** What each target starts: the server, and how the target-independent parts reach it. */
type Backend = Pick<
  Envtest,
  'server' | 'kube' | 'url' | 'token' | 'caData' | 'kubeconfig' | 'installCrds' | 'countRequests' | 'resetRequests'
> & {
  stopServer(): Promise<void>;
};

async function startBackend(target: EnvtestTarget, opts: EnvtestOptions): Promise<Backend> {
  if (target === 'kube') {
    const kube = await startKubeControlPlane(opts.kube);
    const kubeconfig = renderKubeconfig({
      url: kube.url,
      token: kube.token,
      caData: kube.caData,
      name: 'envtest-kube',
    });
    return {
      kube,
      url: kube.url,
      token: kube.token,
      caData: kube.caData,
      kubeconfig,
      installCrds: (crds) => kube.installCrds(crds),
      countRequests: () => kube.countRequests(),
      resetRequests: () => kube.resetRequests(),
      stopServer: () => kube.stop(),
    };
  }
  const server = new ApiServer({ storage: { type: 'memory' }, ...opts.server });
  const started = await server.start();
  return {
    server,
    ...started,
    kubeconfig: server.kubeconfig(),
    installCrds: (crds) => server.installCrds(crds),
    countRequests: async () => server.countRequests(),
    resetRequests: async () => server.resetRequests(),
    stopServer: () => server.stop(),
  };
}

/** Starts an API server with the project's CRDs installed: the backend of controller tests. */
export async function startEnvtest(opts: EnvtestOptions = {}): Promise<Envtest> {
  const target = opts.target ?? envtestTarget();
  const crds = [...(opts.installProjectCrds === false ? [] : crdRegistry.crds()), ...(opts.crds ?? [])];
  const dir = mkdtempSync(join(tmpdir(), 'envtest-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let backend: Backend | undefined;
  try {
    backend = await startBackend(target, opts);
    await backend.installCrds(crds);
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, backend.kubeconfig, { mode: 0o600 });
    const { stopServer, ...env } = backend;
    return {
      ...env,
      target,
      kubeconfigPath,
      stop: async () => {
        await stopServer();
        cleanup();
      },
    };
  } catch (e) {
    await backend?.stopServer();
    cleanup();
    throw e;
  }
}
