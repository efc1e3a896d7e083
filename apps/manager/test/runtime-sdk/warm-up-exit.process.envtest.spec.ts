// The real entry point exits 1 with one log line naming the ExtensionConfig it could not discover, after upstream's
// 60 s warm-up budget (slow on purpose: the budget is not configurable, as upstream).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { createExtensionServer, generateServerTls } from '@capi/runtime-client';

const root = join(__dirname, '../../../..');
jest.setTimeout(120_000);

describe('manager process: registry warm-up gives up', () => {
  let env: Envtest;
  beforeAll(async () => {
    env = await startEnvtest();
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('exits 1 and logs the ExtensionConfig(s) it could not discover', async () => {
    const tls = await generateServerTls();
    const gone = await createExtensionServer({ tls, handlers: [] });
    await gone.close();
    const kc = new KubeConfig();
    kc.loadFromString(env.kubeconfig);
    await new KubeClient(kc).create({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'unreachable-updater' },
      spec: { clientConfig: { url: gone.url, caBundle: Buffer.from(tls.cert).toString('base64') } },
    });

    const args = [
      `--kubeconfig=${env.kubeconfigPath}`,
      '--controllers=extensionconfig',
      '--feature-gates=RuntimeSDK=true',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
    ];
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(root, 'apps/manager/src/main.ts'), ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
          EXP_IN_PLACE_UPDATES: '',
          EXP_RUNTIME_SDK: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55_000);
    const records = stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const exitLines = records.filter((r) => String(r.msg).startsWith('ExtensionConfig registry warm-up failed'));
    expect(exitLines).toEqual([
      expect.objectContaining({
        msg: 'ExtensionConfig registry warm-up failed: could not discover ExtensionConfig(s) unreachable-updater; exiting',
        extensionConfigs: ['unreachable-updater'],
      }),
    ]);
    // The exit record (lifecycle/exit-reporting) is the last word, with the code and the same reason.
    expect(records.pop()).toMatchObject({
      msg: 'manager exiting',
      code: 1,
      reason:
        'ExtensionConfig registry warm-up failed: could not discover ExtensionConfig(s) unreachable-updater; exiting',
    });
  });
});
