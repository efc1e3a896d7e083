// `kubectl scale kubeadmcontrolplane` through the /scale subresource on envtest: KCP scales up to the new replicas.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@capi/envtest';
import {
  createControlPlane,
  getKcp,
  KCP_NAME,
  KCP_POLL,
  listMachines,
  NS,
  startKcpHarness,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(90_000);

const run = promisify(execFile);

describe('kubectl scale kubeadmcontrolplane', () => {
  let h: KcpHarness;
  let cacheDir: string;
  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 1 });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('creates control plane Machines up to the scaled replicas', async () => {
    await eventually(async () => (await listMachines(h.client)).filter((m) => m.status?.nodeRef).length === 1, {
      ...KCP_POLL,
      message: '1 control plane Machine with a Node',
    });
    const out = await run(
      'kubectl',
      ['--kubeconfig', h.env.kubeconfigPath, 'scale', 'kubeadmcontrolplane', KCP_NAME, '-n', NS, '--replicas=3'],
      { env: { ...process.env, KUBECACHEDIR: cacheDir } },
    );
    expect(out.stdout).toContain(`kubeadmcontrolplane.controlplane.cluster.x-k8s.io/${KCP_NAME} scaled`);
    expect((await getKcp(h.client)).spec.replicas).toBe(3);
    await eventually(
      async () => {
        const machines = await listMachines(h.client);
        return (
          machines.length === 3 &&
          machines.every((m) => m.status?.nodeRef) &&
          (await getKcp(h.client)).status?.replicas === 3
        );
      },
      { ...KCP_POLL, message: '3 control plane Machines with Nodes' },
    );
  });
});
