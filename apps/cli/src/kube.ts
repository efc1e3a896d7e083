// The management cluster as kubectl finds it: --kubeconfig, else $KUBECONFIG (paths merged), else ~/.kube/config;
// --context, else the current context; the namespace from -n, else the context's, else "default". Requests go
// through @capi/controller-runtime's KubeClient; every failure becomes one CliError line naming what was asked.
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ObjectList } from '@capi/apimachinery';
import {
  isApiError,
  KubeClient,
  type ListOptions,
  type ObjectRef,
  type WatchEvent,
  type WatchHandle,
  type WatchOptions,
} from '@capi/controller-runtime';
import type { Global } from './args';

/** A failure shown as one `error: <message>` line, exit code 1. */
export class CliError extends Error {}

export interface Connection {
  client: KubeClient;
  api: Api;
  namespace: string;
  /** The server's URL, for messages. */
  server: string;
  close(): void;
}

export function loadKubeConfig(g: Global, env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (g.kubeconfig) {
      if (!existsSync(g.kubeconfig)) throw new CliError(`kubeconfig ${g.kubeconfig} does not exist`);
      kc.loadFromFile(g.kubeconfig);
    } else if (env.KUBECONFIG || existsSync(`${env.HOME ?? ''}/.kube/config`)) {
      kc.loadFromDefault();
    } else {
      throw new CliError('no kubeconfig: pass --kubeconfig, set KUBECONFIG or create ~/.kube/config');
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot load kubeconfig: ${(e as Error).message}`);
  }
  if (g.context) {
    if (!kc.getContexts().some((c) => c.name === g.context))
      throw new CliError(`context "${g.context}" does not exist in the kubeconfig`);
    kc.setCurrentContext(g.context);
  }
  if (!kc.getCurrentCluster())
    throw new CliError(`the kubeconfig's current context "${kc.getCurrentContext()}" names no cluster`);
  return kc;
}

export function connect(g: Global, env: NodeJS.ProcessEnv = process.env): Connection {
  const kc = loadKubeConfig(g, env);
  const contextNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  const client = new KubeClient(kc, { userAgent: 'capi-inplace' });
  const server = kc.getCurrentCluster()?.server ?? '';
  return {
    client,
    api: new Api(client, server),
    namespace: g.namespace ?? contextNamespace ?? 'default',
    server,
    close: () => client.close(),
  };
}

const resourceOf = (kind: string) => `${kind.toLowerCase()}s`;

/** Turns a request failure into one line: Forbidden / Unauthorized name the verb and resource, transport errors the server. */
export function requestError(e: unknown, verb: string, what: string, server: string): CliError {
  if (e instanceof CliError) return e;
  if (isApiError(e)) {
    if (e.code === 401)
      return new CliError(`you must be logged in to the server (Unauthorized): cannot ${verb} ${what}`);
    if (e.code === 403) {
      const msg = e.message;
      return new CliError(/forbidden/i.test(msg) ? msg : `${verb} ${what} is forbidden: ${msg}`);
    }
    return new CliError(`${verb} ${what}: ${e.message}`);
  }
  const err = e as NodeJS.ErrnoException;
  if (err?.code && /^(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|ETIMEDOUT|EAI_AGAIN)$/.test(err.code))
    return new CliError(`unable to connect to the server at ${server}: ${err.message}`);
  return new CliError(`${verb} ${what}: ${(e as Error)?.message ?? String(e)}`);
}

/** Read-only access with errors as CliError; the CLI never writes. */
export class Api {
  constructor(
    private readonly client: KubeClient,
    private readonly server: string,
  ) {}

  async tryGet<T extends KubeObject>(ref: ObjectRef): Promise<T | undefined> {
    const what = `${resourceOf(ref.kind)} "${ref.name}"${ref.namespace ? ` in namespace "${ref.namespace}"` : ''}`;
    try {
      return await this.client.tryGet<T>(ref);
    } catch (e) {
      throw requestError(e, 'get', what, this.server);
    }
  }

  async list<T extends KubeObject>(apiVersion: string, kind: string, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const what = `${resourceOf(kind)}${opts.namespace ? ` in namespace "${opts.namespace}"` : ''}`;
    try {
      return await this.client.list<T>(apiVersion, kind, opts);
    } catch (e) {
      throw requestError(e, 'list', what, this.server);
    }
  }

  async watch<T extends KubeObject>(
    apiVersion: string,
    kind: string,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent<T>) => void,
  ): Promise<WatchHandle> {
    const what = `${resourceOf(kind)}${opts.namespace ? ` in namespace "${opts.namespace}"` : ''}`;
    try {
      return await this.client.watch<T>(apiVersion, kind, opts, onEvent);
    } catch (e) {
      throw requestError(e, 'watch', what, this.server);
    }
  }
}
