import { ApiServer, renderKubeconfig } from '@capi/apiserver';

/**
 * What the manager runs against when no --kubeconfig is given: it is started before any controller module and
 * yields the kubeconfig (YAML text) the controllers use.
 */
export interface EmbeddedEnvironment {
  start(): Promise<{ kubeconfig: string }>;
  stop(): Promise<void>;
}

export const EMBEDDED_ENVIRONMENT = Symbol.for('capi.EmbeddedEnvironment');

/**
 * Embedded default backed by @capi/apiserver's ApiServer (in-memory storage, HTTPS on 127.0.0.1, random port).
 * The in-memory infrastructure provider and reference in-place updater are not started yet (those libs have no
 * runnable module); the API server alone is what this provides.
 */
export class ApiServerEmbeddedEnvironment implements EmbeddedEnvironment {
  private server?: ApiServer;

  constructor(private readonly opts: { port?: number; log?: (msg: string) => void } = {}) {}

  async start(): Promise<{ kubeconfig: string }> {
    const log = this.opts.log;
    this.server = new ApiServer({
      storage: { type: 'memory' },
      host: '127.0.0.1',
      port: this.opts.port ?? 0,
      logger: log && { info: log, error: log },
    });
    const started = await this.server.start();
    return { kubeconfig: renderKubeconfig({ url: started.url, token: started.token, caData: started.caData, name: 'embedded' }) };
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }
}
