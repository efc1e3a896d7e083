// In-cluster mode through the real manager module: a pod's environment (KUBERNETES_SERVICE_HOST/PORT and a
// service-account volume) pointing at an envtest API server; no --kubeconfig, no embedded API server. On the kube
// target the volume's token is the deploy/rbac ServiceAccount's, so the manager has only the permissions it is given.
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { managerToken, MANAGER_SERVICE_ACCOUNT } from '../support/service-account';
import {
  buildManagerModule,
  EMBEDDED_ENVIRONMENT,
  type EmbeddedEnvironment,
  JsonLogger,
  LEADER_ELECTION_ID,
  loadManagerConfig,
  LOGGER,
} from '@capi/manager';

jest.setTimeout(60_000);

class UnusedEmbedded implements EmbeddedEnvironment {
  starts = 0;
  async start(): Promise<{ kubeconfig: string }> {
    this.starts++;
    throw new Error('the embedded API server must not start in a pod');
  }
  async stop(): Promise<void> {}
}

let env: Envtest;
let saDir: string;
const apps: INestApplicationContext[] = [];
beforeAll(async () => {
  env = await startEnvtest();
  const admin = clientFor(env);
  let token: string;
  try {
    token = await managerToken(env, admin);
  } finally {
    admin.close();
  }
  saDir = mkdtempSync(join(tmpdir(), 'serviceaccount-'));
  writeFileSync(join(saDir, 'token'), token);
  writeFileSync(join(saDir, 'ca.crt'), Buffer.from(env.caData!, 'base64'));
  writeFileSync(join(saDir, 'namespace'), 'capi-system\n');
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await env?.stop();
  rmSync(saDir, { recursive: true, force: true });
});

function podEnv(): Record<string, string> {
  const url = new URL(env.url);
  return { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port };
}

async function startManager(argv: string[], processEnv: Record<string, string>, logLines: string[]) {
  const loaded = loadManagerConfig(
    ['--metrics-bind-address=0', '--health-probe-bind-address=0', '--controllers=mhc', ...argv],
    processEnv,
    { serviceAccountDir: saDir },
  );
  if (loaded.help) throw new Error('help');
  const embedded = new UnusedEmbedded();
  const log = JsonLogger.create({ destination: { write: (l: string) => void logLines.push(l) } });
  const app = await NestFactory.createApplicationContext(
    buildManagerModule(loaded.config, {
      providers: [
        { provide: LOGGER, useValue: log },
        { provide: EMBEDDED_ENVIRONMENT, useValue: embedded },
      ],
    }),
    { logger: false, abortOnError: false },
  );
  apps.push(app);
  await app.init();
  return { app, embedded, config: loaded.config };
}

describe('manager in a pod without --kubeconfig', () => {
  it('connects with the service account token and CA, keeps its Lease in the pod namespace, and says so in the log', async () => {
    const admin = clientFor(env);
    try {
      if (!(await admin.tryGet({ apiVersion: 'v1', kind: 'Namespace', name: 'capi-system' })))
        await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system' } });
      const lines: string[] = [];
      const { app, embedded, config } = await startManager(['--leader-elect'], podEnv(), lines);
      expect(config.apiServer.mode).toBe('in-cluster');
      // The in-cluster defaults are upstream's: the embedded default's gates stay off.
      expect(config.featureGates.enabled('InPlaceUpdates')).toBe(false);
      expect(embedded.starts).toBe(0);
      const lease = await eventually(
        () =>
          admin.tryGet({
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            namespace: 'capi-system',
            name: LEADER_ELECTION_ID,
          }),
        'leader election Lease in capi-system',
      );
      expect(lease).toBeDefined();
      await app.get<Client>(KUBE_CLIENT).list('cluster.x-k8s.io/v1beta2', 'Machine');
      const announced = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'API server');
      expect(announced).toMatchObject({ mode: 'in-cluster', reason: expect.stringContaining('running in a pod') });
      if (env.target === 'kube') {
        // Who the API server says the manager is, and that deploy/rbac let it do all it tried.
        const review = await app.get<Client>(KUBE_CLIENT).create<{
          apiVersion: string;
          kind: string;
          metadata: object;
          status?: { userInfo?: { username?: string } };
        }>({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
        const { namespace, name } = MANAGER_SERVICE_ACCOUNT;
        expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${namespace}:${name}`);
        expect(lines.filter((l) => /forbidden/i.test(l))).toEqual([]);
      }
    } finally {
      admin.close();
    }
  });

  it('--api-server=embedded forces the embedded API server even in a pod', () => {
    const loaded = loadManagerConfig(['--api-server=embedded'], podEnv(), { serviceAccountDir: saDir });
    expect(!loaded.help && loaded.config.apiServer).toEqual({ mode: 'embedded', reason: '--api-server=embedded' });
  });
});
