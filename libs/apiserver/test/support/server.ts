import { ApiServer, type ApiServerOptions } from '../../src';
import { ClientNodeClient } from './client-node-client';
import { RawClient } from './raw-client';
import { widgetCrd, gadgetCrd } from './fixtures';
import type { Conn, TestClient } from './test-client';

export interface TestServer { server: ApiServer; conn: Conn; kubeconfig: string; clients: TestClient[] }

/** An in-memory HTTPS server on 127.0.0.1:0 with the test CRDs installed, and both suite clients. */
export async function startTestServer(opts: Partial<ApiServerOptions> = {}): Promise<TestServer> {
  const server = new ApiServer({ storage: { type: 'memory' }, bookmarkIntervalMs: 100, ...opts });
  const conn = await server.start();
  await server.installCrds([widgetCrd, gadgetCrd]);
  const kubeconfig = server.kubeconfig();
  return { server, conn, kubeconfig, clients: [new RawClient(conn), new ClientNodeClient(kubeconfig, conn)] };
}
