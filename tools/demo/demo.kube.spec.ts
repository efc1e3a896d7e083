// End to end on a real management cluster (kube pass only): etcd + kube-apiserver, the CRDs and RBAC of deploy/ applied
// with kubectl and the manager's ServiceAccount token from `kubectl create token` (tools/kube/management-cluster.ts, as
// `npm run kube:up` does); the manager as its own process, compiled as the container image runs it (deploy/build.mjs,
// then node dist/apps/manager/src/main.js; the other suites run it from source), with that ServiceAccount's kubeconfig,
// the in-memory provider and reference updater (--embedded-provider), the gates on and leader election; then the demo
// flow through the admin kubeconfig. Default provisioning and update timings (1.5 s boot, 15-19 s per in-place update),
// so this takes about three minutes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { API_WARNINGS_LOGGER, LEADER_ELECTION_ID } from '@capi/manager';
import { startManagementCluster, type ManagementCluster } from '../kube/management-cluster';
import { buildCompiledManager, startManagerProcess, type ManagerProcess } from '../kube/manager-process';
import { DemoRun, type DemoResult } from './flow';
import { itChecksTheDemoOutcome } from './testing/outcome';

jest.setTimeout(600_000);

const dir = mkdtempSync(join(tmpdir(), 'demo-kube-'));
let cluster: ManagementCluster | undefined;
let manager: ManagerProcess | undefined;
let client: KubeClient | undefined;
const lines: string[] = [];
let result: DemoResult;

beforeAll(async () => {
  const dist = join(dir, 'dist');
  buildCompiledManager(dist);
  cluster = await startManagementCluster({ dir });
  manager = await startManagerProcess(
    [
      `--kubeconfig=${cluster.managerKubeconfig}`,
      '--embedded-provider',
      '--feature-gates=RuntimeSDK=true,InPlaceUpdates=true',
      '--leader-elect',
      '--leader-elect-resource-namespace=capi-system',
    ],
    join(dir, 'manager.log'),
    { main: join(dist, 'apps/manager/src/main.js') },
  );
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.adminKubeconfig);
  client = new KubeClient(kc);
  // keep: the checks read the demo's Machines first; the shared checks' last step deletes the Cluster.
  const run = new DemoRun({ client, out: (l) => lines.push(l), phaseTimeoutMs: 240_000, pollMs: 500, keep: true });
  try {
    result = await run.run();
  } catch (e) {
    process.stdout.write(`${lines.join('\n')}\nmanager log: ${manager.logPath}\n`);
    throw e;
  }
});

afterAll(async () => {
  client?.close();
  await manager?.stop();
  await cluster?.stop();
  // Kept when the demo failed: the manager's, etcd's and kube-apiserver's logs are there.
  if (result?.ok) rmSync(dir, { recursive: true, force: true });
  else process.stdout.write(`logs kept in ${dir}\n`);
});

describe('demo flow on etcd + kube-apiserver, the manager in its own process with the ServiceAccount of deploy/rbac', () => {
  itChecksTheDemoOutcome(() => ({ result, client: client!, lines }));

  it("the manager ran as leader (Lease in capi-system, which only deploy/rbac's Role lets it use) and is still running", async () => {
    const lease = await client!.get<{
      apiVersion: string;
      kind: string;
      metadata: { name: string };
      spec?: { holderIdentity?: string };
    }>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'capi-system',
      name: LEADER_ELECTION_ID,
    });
    expect(lease.spec?.holderIdentity).toBeTruthy();
    expect(manager!.process.alive).toBe(true);
  });

  it('no request of the manager was forbidden by deploy/rbac', () => {
    const forbidden = readFileSync(manager!.logPath, 'utf8')
      .split('\n')
      .filter((l) => / is forbidden: /.test(l));
    expect(forbidden).toEqual([]);
  });

  it('kube-apiserver sent the manager no warnings it logs (fields it dropped, deprecated APIs; as upstream, not the finalizer-name ones)', () => {
    const warnings = readFileSync(manager!.logPath, 'utf8')
      .split('\n')
      .filter((l) => l.includes(`"logger":"${API_WARNINGS_LOGGER}"`));
    expect(warnings).toEqual([]);
  });
});
