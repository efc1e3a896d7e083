import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdRegistry } from '@capi/api';
import { ApiServer, type ApiServerOptions } from '@capi/apiserver';

export interface EnvtestOptions {
  /** Extra CRDs installed after the project's ones. */
  crds?: object[];
  /** Install the CRDs of every kind registered in @capi/api's crdRegistry (default true). */
  installProjectCrds?: boolean;
  /** Server options (defaults: in-memory storage, HTTPS on 127.0.0.1, random port). */
  server?: Partial<ApiServerOptions>;
}

export interface Envtest {
  server: ApiServer;
  url: string;
  token: string;
  caData?: string;
  /** A kubeconfig file (mode 0600) in a temporary directory removed by stop(). */
  kubeconfigPath: string;
  /** The same kubeconfig as YAML. */
  kubeconfig: string;
  stop(): Promise<void>;
}

/** Starts an in-memory ApiServer with the project's CRDs installed: the default backend for controller tests. */
export async function startEnvtest(opts: EnvtestOptions = {}): Promise<Envtest> {
  const server = new ApiServer({ storage: { type: 'memory' }, ...opts.server });
  const started = await server.start();
  const dir = mkdtempSync(join(tmpdir(), 'envtest-'));
  try {
    const crds = [...(opts.installProjectCrds === false ? [] : crdRegistry.crds()), ...(opts.crds ?? [])];
    await server.installCrds(crds);
    const kubeconfigPath = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfigPath);
    return {
      server, ...started, kubeconfigPath, kubeconfig: server.kubeconfig(),
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
